"""The Tree (rules/the-tree.md): binary-coded dominoes grown into a brick-bond tree by
1 to 4 players with hidden hands. Pure rules.

The deal is one chance action (the 36 tiles in dealt order), so a record replays
without a random generator. What each seat may know goes through `visible_action`
(a seat sees its own hand in the deal, and only its own draws) and `observation`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import CHANCE, TERMINAL, Game, IllegalAction, Result, State

TILES: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(8) for b in range(a, 8))
"""The double-seven set: every pair a <= b of symbols 0..7 (36 tiles)."""
HAND = 9
DRAW, PASS = "draw", "pass"


def tile_name(tile: tuple[int, int]) -> str:
    return f"{tile[0]}{tile[1]}"


TILE_NAMES = frozenset(tile_name(t) for t in TILES)


def fits_above(up: int, down: int) -> bool:
    """Rule b: the symbol above has exactly the rings of the one below, plus one more."""
    return up & down == down and bin(up ^ down).count("1") == 1


def parse_deal(action: str) -> list[tuple[int, int]] | None:
    """The 36 tiles of a deal action in order, or None if it is not a permutation."""
    names = action.split(",")
    if len(names) != len(TILES) or set(names) != TILE_NAMES:
        return None
    return [(int(n[0]), int(n[1])) for n in names]


def parse_placement(action: str) -> tuple[int, int, int, int] | None:
    """(left symbol, right symbol, x, y) of `<l><r>@<x>,<y>` in canonical form."""
    symbols, at, where = action.partition("@")
    if not at or len(symbols) != 2 or not symbols.isdigit():
        return None
    xs, comma, ys = where.partition(",")
    try:
        x, y = int(xs), int(ys)
    except ValueError:
        return None
    if not comma or str(x) != xs or str(y) != ys:
        return None
    left, right = int(symbols[0]), int(symbols[1])
    if left > 7 or right > 7:
        return None
    return left, right, x, y


class TheTreeState(State):
    """A position. `cells` maps (x, y) to the symbol there; `hands[s]` holds seat s's
    tiles; `supply` is the face-down stack, top first; `finished` lists seats in the
    order they emptied their hands."""

    def __init__(self, num_seats: int, options: Mapping[str, str] | None = None) -> None:
        super().__init__(num_seats, options or {})
        self.dealt = False
        self.hands: list[list[tuple[int, int]]] = [[] for _ in range(num_seats)]
        self.supply: list[tuple[int, int]] = []
        self.cells: dict[tuple[int, int], int] = {}
        self.tiles: list[tuple[int, int, int, int]] = []
        """Placed tiles in order: (left symbol, right symbol, x, y)."""
        self.mover = 0
        self.finished: list[int] = []
        self.passes = 0
        """Consecutive passes (with the supply empty); every holder passing ends the game."""
        self.over = False
        self.blocked: list[int] = []
        """Seats still holding tiles when everybody passed (they share the next rank)."""
        self._legal: list[str] | None = None

    # ---- the interface ------------------------------------------------------------------

    def current(self) -> int:
        if self.over:
            return TERMINAL
        return self.mover if self.dealt else CHANCE

    def legal_actions(self) -> list[str]:
        if self.over or not self.dealt:
            return []
        if self._legal is None:
            placements = self.placements(self.mover)
            self._legal = sorted(placements) if placements else [DRAW if self.supply else PASS]
        return list(self._legal)

    def apply(self, action: str) -> None:
        if self.over:
            raise IllegalAction(action, "the game is over")
        if not self.dealt:
            self._deal(action)
            return
        if action not in self.legal_actions():
            raise IllegalAction(action, self._why_illegal(action))
        self._legal = None
        seat = self.mover
        if action == DRAW:
            self.hands[seat].append(self.supply.pop(0))
            self.passes = 0
            self._next_seat()
        elif action == PASS:
            self.passes += 1
            if self.passes >= len(self.holders()):
                self._end_blocked()
            else:
                self._next_seat()
        else:
            self.passes = 0
            extra = self._place(seat, action)
            if not self.hands[seat]:
                self.finished.append(seat)
                if len(self.holders()) <= (0 if self.num_seats == 1 else 1):
                    self.over = True
                    return
                self._next_seat()
            elif not extra:
                self._next_seat()

    def clone(self) -> TheTreeState:
        other = TheTreeState.__new__(TheTreeState)
        other.num_seats = self.num_seats
        other.options = self.options
        other.dealt = self.dealt
        other.hands = [list(h) for h in self.hands]
        other.supply = list(self.supply)
        other.cells = dict(self.cells)
        other.tiles = list(self.tiles)
        other.mover = self.mover
        other.finished = list(self.finished)
        other.passes = self.passes
        other.over = self.over
        other.blocked = list(self.blocked)
        other._legal = self._legal
        return other

    def result(self) -> Result:
        ranks = [0] * self.num_seats
        for place, seat in enumerate(self.finished, start=1):
            ranks[seat] = place
        rest = [s for s in range(self.num_seats) if s not in self.finished]
        if self.num_seats == 1:
            ranks[0] = 1 if self.finished else 2
        else:
            for seat in rest:
                ranks[seat] = len(self.finished) + 1  # the last holder, or those all blocked
        scores = tuple(float(len(h)) for h in self.hands)
        return Result(tuple(ranks), scores)

    def sample_chance(self, rng: random.Random) -> str:
        tiles = list(TILES)
        rng.shuffle(tiles)
        return ",".join(tile_name(t) for t in tiles)

    def visible_action(self, action: str, actor: int, seat: int) -> str | None:
        if actor == CHANCE:
            deal = parse_deal(action)
            if deal is None:
                return None
            hand = deal[seat * HAND:(seat + 1) * HAND]
            return "deal " + ",".join(tile_name(t) for t in hand)
        if action == DRAW:
            return f"draw {tile_name(self.supply[0])}" if seat == actor else DRAW
        return action

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "to_move": None if self.over or not self.dealt else self.mover,
            "hand": sorted(tile_name(t) for t in self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "supply_size": len(self.supply),
            "tiles": [[f"{left}{right}", x, y] for left, right, x, y in self.tiles],
            "finished": list(self.finished),
            "passes": self.passes,
        }

    # ---- queries ------------------------------------------------------------------------

    def holders(self) -> list[int]:
        """Seats still holding tiles, in seat order."""
        return [s for s in range(self.num_seats) if self.hands[s]]

    def placements(self, seat: int) -> set[str]:
        """Every legal placement of the seat's tiles (both orientations)."""
        if not self.tiles:
            return self._start_actions(seat)
        spots = self._spots()
        found: set[str] = set()
        for a, b in set(self.hands[seat]):
            for left, right in ((a, b), (b, a)):
                for x, y in spots:
                    if self._fits(left, right, x, y):
                        found.add(f"{left}{right}@{x},{y}")
        return found

    def extra_turn(self, x: int, y: int) -> bool:
        """Clauses c and d for a tile on (x, y)-(x+1, y): both halves rest on tiles,
        or a tile lies directly above either half."""
        cells = self.cells
        rests = (x, y - 1) in cells and (x + 1, y - 1) in cells
        covered = (x, y + 1) in cells or (x + 1, y + 1) in cells
        return rests or covered

    # ---- rules --------------------------------------------------------------------------

    def _deal(self, action: str) -> None:
        deal = parse_deal(action)
        if deal is None:
            raise IllegalAction(action[:40], "a deal lists the 36 tiles once each, comma-separated")
        for seat in range(self.num_seats):
            self.hands[seat] = deal[seat * HAND:(seat + 1) * HAND]
        self.supply = deal[self.num_seats * HAND:]
        self.dealt = True
        self.mover = self._starter()

    def _starter(self) -> int:
        """The holder of the lowest double, else of the lowest tile."""
        def key(tile: tuple[int, int]) -> tuple[int, int, int]:
            return (0 if tile[0] == tile[1] else 1, tile[0], tile[1])

        owner = {tile: seat for seat in range(self.num_seats) for tile in self.hands[seat]}
        return owner[min(owner, key=key)]

    def _start_tile(self, seat: int) -> tuple[int, int]:
        hand = self.hands[seat]
        doubles = [t for t in hand if t[0] == t[1]]
        return min(doubles) if doubles else min(hand)

    def _start_actions(self, seat: int) -> set[str]:
        a, b = self._start_tile(seat)
        return {f"{a}{b}@0,0", f"{b}{a}@0,0"}

    def _spots(self) -> set[tuple[int, int]]:
        """Positions (x, y) with y >= 1 and x = y (mod 2) that have a half above an
        occupied cell and are free."""
        cells = self.cells
        spots = set()
        for cx, cy in cells:
            y = cy + 1
            for x in (cx - 1, cx):
                if (x - y) % 2 == 0 and (x, y) not in cells and (x + 1, y) not in cells:
                    spots.add((x, y))
        return spots

    def _fits(self, left: int, right: int, x: int, y: int) -> bool:
        cells = self.cells
        for symbol, cx in ((left, x), (right, x + 1)):
            below = cells.get((cx, y - 1))
            if below is not None and not fits_above(symbol, below):
                return False
            above = cells.get((cx, y + 1))
            if above is not None and not fits_above(above, symbol):
                return False
        return True

    def _place(self, seat: int, action: str) -> bool:
        """Put the tile down; whether it earns an extra turn."""
        parsed = parse_placement(action)
        assert parsed is not None
        left, right, x, y = parsed
        self.hands[seat].remove((min(left, right), max(left, right)))
        first = not self.tiles
        self.cells[(x, y)] = left
        self.cells[(x + 1, y)] = right
        self.tiles.append((left, right, x, y))
        return not first and self.extra_turn(x, y)

    def _next_seat(self) -> None:
        """The next seat in seat order that still holds tiles."""
        for step in range(1, self.num_seats + 1):
            seat = (self.mover + step) % self.num_seats
            if self.hands[seat]:
                self.mover = seat
                return

    def _end_blocked(self) -> None:
        self.blocked = self.holders()
        self.over = True

    def _why_illegal(self, action: str) -> str:
        if action in (DRAW, PASS):
            return "only when no placement is legal (draw with tiles in the supply, pass without)"
        parsed = parse_placement(action)
        if parsed is None:
            return "not a placement <l><r>@<x>,<y>, draw or pass"
        left, right, _, _ = parsed
        if (min(left, right), max(left, right)) not in self.hands[self.mover]:
            return "the tile is not in the mover's hand"
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

    def _initial_state(self, seats: int, options: dict[str, str]) -> TheTreeState:
        return TheTreeState(seats, options)
