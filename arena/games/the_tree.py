"""The Tree (rules/the-tree.md): binary-coded dominoes grown into a brick-bond tree by
1 to 4 players with hidden hands. Pure rules, no I/O, no randomness of its own.

The deal is one chance action (the 36 tiles in dealt order), so a record replays
without a random generator. What each seat may know goes through `visible_action`
(a seat sees its own hand in the deal, and only its own draws) and `observation`.

Speed (search bots clone and play thousands of positions): the free brick-bond
positions with support ("spots") are kept incrementally, rule b is two bit masks per
spot, action strings are cached process-wide, and `moves`/`play` give bots a path
without strings at all.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from arena.games.base import CHANCE, TERMINAL, Game, IllegalAction, Result, State
from arena.games.copying import copy_lists
from arena.games.the_tree_tiles import (
    ABOVE_OK,
    ANY,
    BELOW_OK,
    DEAL_PREFIX,
    DRAW,
    HAND,
    MOVE_NAMES,
    PASS,
    TILE_BY_NAME,
    TILES,
    Move,
    Tile,
    deal_action,
    move_name,
    parse_deal,
    parse_placement,
    start_key,
    tile_name,
    tile_of,
)


class TheTreeState(State):
    """A position. `cells` maps (x, y) to the symbol there; `tiles` lists placements in
    order; `spots` holds every free position (x, y) a tile may take as far as support,
    overlap and brick bond go (rule b is checked per tile); `hands[s]` holds seat s's
    tiles; `supply` is the face-down stack, top first; `finished` lists seats in the
    order they emptied their hands."""

    game_id = "the-tree"
    copied = {"hands": copy_lists, "supply": list.copy, "cells": dict.copy, "tiles": list.copy, "placers": list.copy,
              "spots": set.copy, "finished": list.copy, "blocked": list.copy}

    def __init__(self, num_seats: int, options: Mapping[str, str] | None = None) -> None:
        super().__init__(num_seats, options or {})
        self.dealt = False
        self.hands: list[list[Tile]] = [[] for _ in range(num_seats)]
        self.supply: list[Tile] = []
        self.cells: dict[tuple[int, int], int] = {}
        self.tiles: list[Move] = []
        self.placers: list[int] = []
        """The seat that placed each of `tiles` (-1 when built by `from_position`)."""
        self.spots: set[tuple[int, int]] = set()
        self.mover = 0
        self.finished: list[int] = []
        self.passes = 0
        """Consecutive passes (with the supply empty); every holder passing ends the game."""
        self.over = False
        self.blocked: list[int] = []
        """Seats still holding tiles when everybody passed (they share the next rank)."""
        self._legal: list[str] | None = None
        self._moves: dict[str, Move] | None = None

    @classmethod
    def from_position(
        cls,
        tiles: Iterable[Move],
        hands: Sequence[Iterable[Tile]],
        supply: Iterable[Tile] = (),
        mover: int = 0,
        finished: Iterable[int] = (),
        passes: int = 0,
    ) -> TheTreeState:
        """A dealt position built directly (for tests, and for search bots that fill in
        the hidden hands and supply with a guess). Tiles are placed in the given order.
        Its `history` is None: it was not played from the start."""
        state = cls(len(hands))
        state.dealt = True
        state.hands = [list(h) for h in hands]
        state.supply = list(supply)
        for move in tiles:
            state._put(move, -1)
        state.mover = mover
        state.finished = list(finished)
        state.passes = passes
        state.set_history(None)
        return state

    @classmethod
    def from_observation(
        cls,
        observation: Mapping[str, Any],
        rng: random.Random,
        hands: Mapping[int, Iterable[Tile]] | None = None,
    ) -> TheTreeState:
        """A full position consistent with what a seat observes (a "determinisation"):
        the tiles it has not seen are shuffled into the other hands and the supply with
        the sizes it was told. `hands` may fix some other seats' hands (a search bot's
        own guess); their tiles are taken out of the shuffle."""
        seat = int(observation["seat"])
        sizes = [int(n) for n in observation["hand_sizes"]]
        own = [TILE_BY_NAME[name] for name in observation["hand"]]
        placed = [parse_placement(str(text)) for text in observation["tiles"]]
        moves = [m for m in placed if m is not None]
        fixed = {s: list(h) for s, h in (hands or {}).items()}
        seen = set(own).union(tile_of(m[0], m[1]) for m in moves)
        for tiles in fixed.values():
            seen.update(tiles)
        unseen = [t for t in TILES if t not in seen]
        rng.shuffle(unseen)
        all_hands: list[list[Tile]] = []
        for other, size in enumerate(sizes):
            if other == seat:
                all_hands.append(own)
            elif other in fixed:
                all_hands.append(fixed[other])
            else:
                all_hands.append(unseen[:size])
                del unseen[:size]
        return cls.from_position(
            moves, all_hands, unseen[:int(observation["supply_size"])],
            mover=seat if observation.get("to_move") is None else int(observation["to_move"]),
            finished=[int(s) for s in observation["finished"]], passes=int(observation["passes"]),
        )

    # ---- the interface ------------------------------------------------------------------

    def current(self) -> int:
        if self.over:
            return TERMINAL
        return self.mover if self.dealt else CHANCE

    def legal_actions(self) -> list[str]:
        if self.over or not self.dealt:
            return []
        if self._legal is None:
            moves = self._legal_moves()
            self._legal = sorted(moves) if moves else [DRAW if self.supply else PASS]
        return list(self._legal)

    def is_legal(self, action: str) -> bool:
        if self.over or not self.dealt:
            return False
        moves = self._legal_moves()
        if moves:
            return action in moves
        return action == (DRAW if self.supply else PASS)

    def apply(self, action: str) -> None:
        if self.over:
            raise IllegalAction(action, "the game is over")
        if not self.dealt:
            self._deal(action)
            return
        moves = self._legal_moves()
        if moves:
            move = moves.get(action)
            if move is None:
                raise IllegalAction(action, self._why_illegal(action))
            self.play(move)
        elif action == (DRAW if self.supply else PASS):
            self.play(None)
        else:
            raise IllegalAction(action, self._why_illegal(action))

    def result(self) -> Result:
        ranks = [0] * self.num_seats
        for place, seat in enumerate(self.finished, start=1):
            ranks[seat] = place
        if self.num_seats == 1:
            ranks[0] = 1 if self.finished else 2
        else:
            for seat in range(self.num_seats):
                if seat not in self.finished:
                    ranks[seat] = len(self.finished) + 1  # the last holder, or all the blocked
        return Result(tuple(ranks), tuple(float(len(h)) for h in self.hands))

    def sample_chance(self, rng: random.Random) -> str:
        tiles = list(TILES)
        rng.shuffle(tiles)
        return deal_action(tiles)

    def visible_action(self, action: str, actor: int, seat: int) -> str | None:
        if actor == CHANCE:
            deal = parse_deal(action)
            if deal is None:
                return None
            return DEAL_PREFIX + deal_action(deal[seat * HAND:(seat + 1) * HAND])
        if action == DRAW and self.supply:
            return f"{DRAW} {tile_name(self.supply[0])}" if seat == actor else DRAW
        return action

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "seats": self.num_seats,
            "to_move": None if self.over or not self.dealt else self.mover,
            "hand": sorted(tile_name(t) for t in self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "supply_size": len(self.supply),
            "tiles": [move_name(m) for m in self.tiles],
            "finished": list(self.finished),
            "passes": self.passes,
        }

    # ---- fast path for bots ---------------------------------------------------------------

    def moves(self) -> list[Move]:
        """The mover's legal placements, unsorted (empty: it must draw or pass)."""
        return list(self._legal_moves().values())

    def play(self, move: Move | None) -> None:
        """Play a placement from `moves()`, or None for the draw or pass that is due.
        No legality check: `apply` is the checked way in. Recorded in the history as
        the move itself, named only when `history` is read."""
        self._trail = (self._trail, move if move is not None else DRAW if self.supply else PASS)
        self._legal = None
        self._moves = None
        seat = self.mover
        if move is None:
            if self.supply:
                self.hands[seat].append(self.supply.pop(0))
                self.passes = 0
                self._next_seat()
            else:
                self.passes += 1
                if self.passes >= self.holder_count():
                    self.blocked = self.holders()
                    self.over = True
                else:
                    self._next_seat()
            return
        self.passes = 0
        left, right, x, y = move
        hand = self.hands[seat]
        hand.remove(tile_of(left, right))
        first = not self.tiles
        self._put(move, seat)
        if not hand:
            self.finished.append(seat)
            if self.holder_count() <= (0 if self.num_seats == 1 else 1):
                self.over = True
            else:
                self._next_seat()
        elif first or not self.extra_turn(x, y):
            self._next_seat()

    def _action_text(self, action: object) -> str:
        """`play` records placements as moves (tuples)."""
        return move_name(cast(Move, action)) if isinstance(action, tuple) else str(action)

    # ---- queries ------------------------------------------------------------------------

    def holders(self) -> list[int]:
        """Seats still holding tiles, in seat order."""
        return [s for s in range(self.num_seats) if self.hands[s]]

    def holder_count(self) -> int:
        return sum(1 for h in self.hands if h)

    def placements(self, seat: int) -> dict[str, Move]:
        """Every legal placement of `seat`'s tiles (both orientations), by action."""
        hand = self.hands[seat]
        if not self.tiles:
            doubles = [t for t in hand if t[0] == t[1]]
            a, b = min(doubles) if doubles else min(hand)
            return {move_name(m): m for m in ((a, b, 0, 0), (b, a, 0, 0))}
        cells = self.cells
        found: dict[str, Move] = {}
        for x, y in self.spots:
            below = cells.get((x, y - 1))
            above = cells.get((x, y + 1))
            lm = (ANY if below is None else ABOVE_OK[below]) & (ANY if above is None else BELOW_OK[above])
            if not lm:
                continue
            below = cells.get((x + 1, y - 1))
            above = cells.get((x + 1, y + 1))
            rm = (ANY if below is None else ABOVE_OK[below]) & (ANY if above is None else BELOW_OK[above])
            if not rm:
                continue
            for a, b in hand:
                if lm >> a & 1 and rm >> b & 1:
                    move = (a, b, x, y)
                    found[MOVE_NAMES.get(move) or move_name(move)] = move
                if a != b and lm >> b & 1 and rm >> a & 1:
                    move = (b, a, x, y)
                    found[MOVE_NAMES.get(move) or move_name(move)] = move
        return found

    def extra_turn(self, x: int, y: int) -> bool:
        """Clauses c and d for a tile on (x, y)-(x+1, y): both halves rest on tiles,
        or a tile lies directly above either half."""
        cells = self.cells
        rests = (x, y - 1) in cells and (x + 1, y - 1) in cells
        covered = (x, y + 1) in cells or (x + 1, y + 1) in cells
        return rests or covered

    def starter(self) -> int:
        """The holder of the lowest double, else of the lowest tile (after the deal)."""
        owner = {tile: seat for seat in range(self.num_seats) for tile in self.hands[seat]}
        return owner[min(owner, key=start_key)]

    # ---- rules --------------------------------------------------------------------------

    def _legal_moves(self) -> dict[str, Move]:
        if self._moves is None:
            self._moves = self.placements(self.mover)
        return self._moves

    def _deal(self, action: str) -> None:
        deal = parse_deal(action)
        if deal is None:
            raise IllegalAction(action[:40], "a deal lists the 36 tiles once each, comma-separated")
        for seat in range(self.num_seats):
            self.hands[seat] = deal[seat * HAND:(seat + 1) * HAND]
        self.supply = deal[self.num_seats * HAND:]
        self.dealt = True
        self.mover = self.starter()

    def _put(self, move: Move, seat: int) -> None:
        """Lay a tile on the table and update the spots: its own position goes, and the
        two brick-bond positions over it open if free."""
        left, right, x, y = move
        cells = self.cells
        cells[(x, y)] = left
        cells[(x + 1, y)] = right
        self.tiles.append(move)
        self.placers.append(seat)
        spots = self.spots
        spots.discard((x, y))
        up = y + 1
        for sx in (x - 1, x + 1):
            if (sx, up) not in cells and (sx + 1, up) not in cells:
                spots.add((sx, up))

    def _next_seat(self) -> None:
        """The next seat in seat order that still holds tiles."""
        hands = self.hands
        n = self.num_seats
        for step in range(1, n + 1):
            seat = (self.mover + step) % n
            if hands[seat]:
                self.mover = seat
                return

    def _why_illegal(self, action: str) -> str:
        if action in (DRAW, PASS):
            return "only when no placement is legal (draw with tiles in the supply, pass without)"
        parsed = parse_placement(action)
        if parsed is None:
            return "not a placement <l><r>@<x>,<y>, draw or pass"
        left, right, _, _ = parsed
        if tile_of(left, right) not in self.hands[self.mover]:
            return "the tile is not in the mover's hand"
        if not self.tiles:
            return "the start tile is the lowest double (else the lowest tile) at 0,0"
        return "the tile does not fit there (support, brick bond, overlap or rule b)"


class TheTree(Game):
    """The Tree: 1 to 4 seats, hidden hands, a shuffled supply."""

    id = "the-tree"
    name = "The Tree"
    min_seats = 1
    max_seats = 4
    has_chance = True
    has_hidden_information = True
    score_name = "tiles left"
    midgame_ply = 12

    def _initial_state(self, seats: int, options: dict[str, str]) -> TheTreeState:
        return TheTreeState(seats, options)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> TheTreeState:
        return TheTreeState.from_observation(observation, rng)
