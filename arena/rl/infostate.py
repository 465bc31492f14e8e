"""What one seat of The Tree knows, and deals that agree with it (docs/rl.md,
"Imperfect-information algorithms").

OpenSpiel's `resample_from_infostate` must return a state the seat cannot tell from
the real one *with a whole history*: ISMCTS compares information state strings (every
action as the seat saw it), and a state pickles as its actions from the start. The
actions after the deal are public (the seat saw every placement, draw and pass, and
who made it), so a resampled history keeps them all and changes only the deal: the
seat's own nine tiles stay where they were dealt, so do the tiles it drew, and every
tile it has not seen goes to one of the places left ("bins": another seat's dealt
hand, one draw of another seat, or the supply still face down) where the rules allow
it to be:

- a tile another seat placed was in that seat's hand then: dealt to it, or drawn by
  it before (draws come off the supply in order, so a draw is one supply place);
- a seat that drew or passed had no placement for any tile it held then (the drawn
  tile comes into the hand after the draw);
- the start tile was the lowest dealt: no tile below it (doubles first) was dealt.

Every condition is about one tile in one bin, so the consistent deals are the
assignments of the unseen tiles to bins that fill each bin exactly. One is found by
augmenting paths over a shuffled order, then mixed by swapping and rotating tiles
between bins whenever the swap keeps every tile where it may be (a symmetric chain,
so it draws close to uniformly among the consistent deals: a prior that does not model
how the other seats chose). Before the first placement the starter is known but the
start tile is not; deals are drawn until the same seat starts.

The public facts of a history (`Walk`: who placed, drew and passed when, and which
tiles fitted the tree at each draw and pass) are read once for all seats and extended
from a recent shorter history, so asking after every action costs one action's work.

`Knowledge` also fills The Tree's information state tensor: the observation plus who
placed each tile and in what order, the seat's own dealt and drawn tiles, each seat's
draws, and for every seat and tile whether that seat may hold it now, and whether it
may still be in the supply.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import (
    DRAW,
    HAND,
    PASS,
    TILES,
    Tile,
    deal_action,
    parse_deal,
    parse_placement,
    start_key,
    tile_of,
)
from arena.rl.bridge import Log
from arena.rl.spec import Pieces, RLError, Tensor, rotate

GAME_ID = "the-tree"
"""The game this module knows (the one with hidden information)."""
TILE_INDEX: dict[Tile, int] = {tile: i for i, tile in enumerate(TILES)}
MIX_STEPS_PER_TILE = 8
"""Swap or rotation proposals per unseen tile after the first consistent deal."""
START_TRIES = 2_000
"""Deals drawn before the first placement until the same seat starts (a third of them
do at worst)."""


@dataclass
class Bin:
    """A place an unseen tile can be: a seat's dealt hand (`acquired` -1), one of its
    draws (the step it drew at; `capacity` 1), or the supply still face down (`seat`
    -1). `slots` are the deal's indices it fills, in order."""

    seat: int
    acquired: int
    slots: list[int]

    @property
    def capacity(self) -> int:
        return len(self.slots)


@dataclass
class Knowledge:
    """One seat's view of one history of The Tree (`read`): the deal's places that are
    fixed for it, the bins of the others and which bins each unseen tile may be in."""

    seats: int
    seat: int
    fixed: dict[int, Tile] = field(default_factory=dict)
    """Deal index -> tile for the seat's own hand and its own draws."""
    bins: list[Bin] = field(default_factory=list)
    unseen: list[Tile] = field(default_factory=list)
    """The tiles whose place in the deal this seat does not know (those another seat
    placed included)."""
    allowed: dict[Tile, list[int]] = field(default_factory=dict)
    """Unseen tile -> the bins it may be in."""
    allowed_sets: dict[Tile, frozenset[int]] = field(default_factory=dict)
    placed: list[tuple[Tile, int]] = field(default_factory=list)
    """Each placed tile and its placer, in order."""
    on_tree: frozenset[Tile] = frozenset()
    dealt: list[Tile] = field(default_factory=list)
    drawn: list[Tile] = field(default_factory=list)
    """The tiles this seat drew, in order."""
    draws: list[int] = field(default_factory=list)
    """Draws made by each seat."""
    starter: int = 0
    start_known: bool = False
    """Whether the start tile is placed (else the deal must give the same starter)."""

    def deal(self, rng: random.Random) -> list[Tile]:
        """A deal (36 tiles in order) under which every action of the history replays
        and this seat sees all of it as it did, the unseen tiles drawn at random."""
        for _ in range(START_TRIES):
            tiles = self._deal_once(rng)
            if self.start_known or _starter(tiles, self.seats) == self.starter:
                return tiles
        raise RLError(f"the-tree: no deal in {START_TRIES} gave seat {self.starter} the start; "
                      "report this history (it should not happen)")

    def _deal_once(self, rng: random.Random) -> list[Tile]:
        where = self._assign(rng)
        self._mix(where, rng)
        deal: list[Tile | None] = [None] * len(TILES)
        for index, tile in self.fixed.items():
            deal[index] = tile
        members: list[list[Tile]] = [[] for _ in self.bins]
        for tile, b in where.items():
            members[b].append(tile)
        for b, group in enumerate(members):
            rng.shuffle(group)
            for index, tile in zip(self.bins[b].slots, group, strict=True):
                deal[index] = tile
        return [t for t in deal if t is not None]

    def _assign(self, rng: random.Random) -> dict[Tile, int]:
        """A consistent assignment of every unseen tile to a bin: augmenting paths,
        tiles and their bins taken in a shuffled order."""
        where: dict[Tile, int] = {}
        members: list[set[Tile]] = [set() for _ in self.bins]
        order = list(self.unseen)
        rng.shuffle(order)

        def place(tile: Tile, visited: set[int]) -> bool:
            options = list(self.allowed[tile])
            room = [(b, self.bins[b].capacity - len(members[b])) for b in options if b not in visited]
            room = [(b, free) for b, free in room if free > 0]
            if room:  # a free place, chosen in proportion to the room left there
                b = rng.choices([b for b, _ in room], [free for _, free in room])[0]
                members[b].add(tile)
                where[tile] = b
                return True
            rng.shuffle(options)
            for b in options:
                if b in visited:
                    continue
                visited.add(b)
                for other in list(members[b]):
                    members[b].discard(other)
                    if place(other, visited):
                        members[b].add(tile)
                        where[tile] = b
                        return True
                    members[b].add(other)
                    where[other] = b
            return False

        for tile in order:
            if not place(tile, set()):
                raise RLError(f"the-tree: no deal agrees with seat {self.seat}'s view "
                              "(an inconsistent history; report it)")
        return where

    def _mix(self, where: dict[Tile, int], rng: random.Random) -> None:
        """Swap two tiles' bins, or rotate three, whenever each lands where it may."""
        tiles = list(where)
        n = len(tiles)
        if n < 2:
            return
        allowed = self.allowed_sets
        draw = rng.random
        for _ in range(MIX_STEPS_PER_TILE * n):
            a, b, c = tiles[int(draw() * n)], tiles[int(draw() * n)], tiles[int(draw() * n)]
            if a == b:
                continue
            ba, bb = where[a], where[b]
            if c in (a, b):
                if bb in allowed[a] and ba in allowed[b]:
                    where[a], where[b] = bb, ba
                continue
            bc = where[c]
            if bb in allowed[a] and bc in allowed[b] and ba in allowed[c]:
                where[a], where[b], where[c] = bb, bc, ba

    def may_hold(self, seat: int, tile: Tile) -> bool:
        """Whether another `seat` may hold `tile` now, as far as this seat can tell (it
        is not on the tree and no single event rules it out)."""
        if tile in self.on_tree:
            return False
        return any(self.bins[b].seat == seat for b in self.allowed.get(tile, ()))

    def may_be_in_supply(self, tile: Tile) -> bool:
        return any(self.bins[b].seat == -1 for b in self.allowed.get(tile, ()))


def actions_from_start(log: Log | None) -> list[str]:
    """A position's arena actions from the start (its `log`), oldest first."""
    if log is None:
        raise RLError("a position that did not come from the start has no history to resample")
    actions: list[str] = []
    link = log
    while link:
        link, action = link
        actions.append(action)
    actions.reverse()
    return actions


def _starter(deal: Sequence[Tile], seats: int) -> int:
    """The seat that starts after this deal: the holder of the lowest dealt tile."""
    dealt = list(deal[:seats * HAND])
    return dealt.index(min(dealt, key=start_key)) // HAND


def _fitting(probe: TheTreeState) -> frozenset[Tile]:
    """The tiles not placed yet that have a placement on the tree (`probe`: the same
    tree, with every tile not placed in the hand of its one seat)."""
    return frozenset(tile_of(m[0], m[1]) for m in probe.placements(0).values())


@dataclass
class Walk:
    """The public facts of a history of The Tree, read once for every seat: the deal,
    who placed each tile and when, who drew each supply tile and when, and at each
    draw or pass the tiles that fitted then. `state` and `probe` (the tree, with every
    tile not placed in the hand of one seat) stand where the history ends."""

    deal: list[Tile]
    state: TheTreeState
    probe: TheTreeState
    starter: int
    steps: int = 0
    placed: list[tuple[Tile, int, int]] = field(default_factory=list)
    """(tile, placer, step) in order."""
    drawers: list[tuple[int, int]] = field(default_factory=list)
    """(seat, step) of each draw, in order."""
    blocks: list[tuple[int, int, frozenset[Tile]]] = field(default_factory=list)
    """(seat, step, tiles that fitted then) of each draw or pass."""

    def extended(self, action: str) -> Walk:
        """The walk one action further (this one unchanged)."""
        walk = Walk(self.deal, self.state.clone(), self.probe.clone(), self.starter, self.steps + 1,
                    list(self.placed), list(self.drawers), list(self.blocks))
        step, actor = self.steps, walk.state.current()
        if action in (DRAW, PASS):
            walk.blocks.append((actor, step, _fitting(walk.probe)))
            if action == DRAW:
                walk.drawers.append((actor, step))
        else:
            move = parse_placement(action)
            if move is None:
                raise RLError(f"the-tree: {action[:40]!r} in a history is not a placement, draw or pass")
            walk.placed.append((tile_of(move[0], move[1]), actor, step))
            walk.probe.play(move)
        walk.state.apply(action)
        return walk


_WALKS: dict[tuple[tuple[str, ...], int], Walk] = {}
WALKS_KEPT = 512
PREFIXES_TRIED = 16
"""How far back a new history looks for a walk to extend (random play asks for each
history one action on; a search's root moves on a few)."""


def walk(actions: tuple[str, ...], seats: int) -> Walk:
    """The walk of a history (the deal first), extended from the longest recent
    prefix already walked."""
    found = _WALKS.get((actions, seats))
    if found is not None:
        return found
    start = None
    for cut in range(len(actions) - 1, max(0, len(actions) - 1 - PREFIXES_TRIED), -1):
        start = _WALKS.get((actions[:cut], seats))
        if start is not None:
            break
    if start is None:
        deal = parse_deal(actions[0]) if actions else None
        if deal is None:
            raise RLError("the-tree: a history to read starts with the whole deal")
        state = TheTreeState(seats)
        state.apply(actions[0])
        start = Walk(deal, state, TheTreeState.from_position([], [list(TILES)]), state.current())
    for action in actions[start.steps + 1:]:
        start = start.extended(action)
    if len(_WALKS) >= WALKS_KEPT:
        del _WALKS[next(iter(_WALKS))]
    _WALKS[(actions, seats)] = start
    return start


@lru_cache(maxsize=256)
def read(actions: tuple[str, ...], seats: int, seat: int) -> Knowledge:
    """What `seat` knows after `actions` (the arena actions from the start, the deal
    first): each public fact of the history, and its own tiles."""
    if not 0 <= seat < seats:
        raise RLError(f"the-tree: seat {seat} is not one of the {seats} seats (0..{seats - 1})")
    facts = walk(actions, seats)
    deal = facts.deal
    know = Knowledge(seats, seat, draws=[0] * seats, starter=facts.starter)
    supply_at = seats * HAND
    own = range(seat * HAND, (seat + 1) * HAND)
    know.fixed = {i: deal[i] for i in own}
    know.dealt = [deal[i] for i in own]
    for k, (drawer, _) in enumerate(facts.drawers):
        know.draws[drawer] += 1
        if drawer == seat:
            know.fixed[supply_at + k] = deal[supply_at + k]
            know.drawn.append(deal[supply_at + k])
    know.placed = [(tile, placer) for tile, placer, _ in facts.placed]
    know.on_tree = frozenset(tile for tile, _ in know.placed)
    placed_by = {tile: (placer, step) for tile, placer, step in facts.placed}
    for other in range(seats):
        if other != seat:
            know.bins.append(Bin(other, -1, list(range(other * HAND, (other + 1) * HAND))))
    for k, (drawer, step) in enumerate(facts.drawers):
        if drawer != seat:
            know.bins.append(Bin(drawer, step, [supply_at + k]))
    know.bins.append(Bin(-1, -1, list(range(supply_at + len(facts.drawers), len(TILES)))))
    know.start_known = bool(know.placed)
    lowest = (start_key(know.placed[0][0]) if know.placed
              else start_key(min(know.dealt, key=start_key)) if know.starter == seat else None)
    blocked: dict[int, list[tuple[int, frozenset[Tile]]]] = {}
    for blocker, step, fits in facts.blocks:
        if blocker != seat:
            blocked.setdefault(blocker, []).append((step, fits))
    fixed = set(know.fixed.values())
    know.unseen = [t for t in TILES if t not in fixed]
    for tile in know.unseen:
        know.allowed[tile] = [b for b, place in enumerate(know.bins) if place.slots and _may_be_in(
            tile, place, placed_by.get(tile), blocked.get(place.seat, ()), lowest)]
        know.allowed_sets[tile] = frozenset(know.allowed[tile])
    return know


def _may_be_in(tile: Tile, place: Bin, placed: tuple[int, int] | None,
               blocks: Sequence[tuple[int, frozenset[Tile]]], lowest: tuple[int, int, int] | None) -> bool:
    """Whether the rules allow `tile` in this bin given the history (`blocks`: the
    bin's seat's draws and passes): placed by that seat after it came into the hand,
    never fitting the tree while that seat held it and drew or passed, and never below
    the start tile when dealt."""
    if place.seat == -1:
        return placed is None
    if place.acquired == -1 and lowest is not None and start_key(tile) < lowest:
        return False
    until = None
    if placed is not None:
        placer, until = placed
        if placer != place.seat or until <= place.acquired:
            return False
    acquired = place.acquired
    return not any(acquired < step and (until is None or step < until) and tile in fits for step, fits in blocks)


def resample_deal(actions: tuple[str, ...], seats: int, seat: int, rng: random.Random) -> str:
    """A deal action under which `actions` (from the start, the deal first) replay
    with `seat`'s view unchanged, what it has not seen drawn at random."""
    return deal_action(read(actions, seats, seat).deal(rng))


def partial_deal(count: int, rng: random.Random) -> list[int]:
    """Tile ids (in the rules' order) for a deal `count` tiles along: nobody has seen
    any of it yet, so any distinct tiles will do."""
    return rng.sample(range(len(TILES)), count)


def pieces(observation: Pieces, seats: int) -> Pieces:
    """The information state tensor's pieces: the observation's, then what the seat
    recalls (docs/rl.md)."""
    n, t = seats, len(TILES)
    return Pieces(list(observation.pieces) + [
        ("placed_by", (n, t)),
        ("placed_order", (t,)),
        ("dealt", (t,)),
        ("drawn", (t,)),
        ("draws", (n,)),
        ("may_hold", (n, t)),
        ("may_be_in_supply", (t,)),
    ])


def fill(views: dict[str, Tensor], know: Knowledge) -> None:
    """Write what the seat recalls into the views of `pieces` (all zero on entry)."""
    n, me = know.seats, know.seat
    total = len(TILES)
    for order, (tile, placer) in enumerate(know.placed):
        index = TILE_INDEX[tile]
        if placer >= 0:
            views["placed_by"][rotate(placer, me, n), index] = 1.0
        views["placed_order"][index] = (order + 1) / total
    for tile in know.dealt:
        views["dealt"][TILE_INDEX[tile]] = 1.0
    for tile in know.drawn:
        views["drawn"][TILE_INDEX[tile]] = 1.0
    for other in range(n):
        views["draws"][rotate(other, me, n)] = know.draws[other]
    hand = set(know.dealt + know.drawn) - {tile for tile, _ in know.placed}
    for tile in hand:
        views["may_hold"][0, TILE_INDEX[tile]] = 1.0
    for tile in know.unseen:
        index = TILE_INDEX[tile]
        for other in range(n):
            if other != me and know.may_hold(other, tile):
                views["may_hold"][rotate(other, me, n), index] = 1.0
        if know.may_be_in_supply(tile):
            views["may_be_in_supply"][index] = 1.0
