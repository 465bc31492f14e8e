"""Blox (rules/blox.md): 2x4 bricks built into a 3D construction by 2 to 4 players;
a chain of one player's bricks touching all four board edges at level 0 wins (in the
`bridge` variant: a chain joining the player's two starting bricks). Pure rules.

Hundreds of placements are legal per turn, so every per-level question is answered
with Python ints used as bitsets over the bounded volume's studs (`occupied[z]`) and
over each orientation's brick positions (arena.games.blox_geometry), with one shared
row stride so that a brick's footprint is a handful of shifts. What a placement
changes is kept up to date (the positions blocked per level, each seat's bricks for
the exact-cover rule); the access rule is a flood fill of those bitsets (sideways by
shifts, between levels by AND) from open space; the legal positions become sorted
action strings through precomputed ranks, and `apply` checks a parsed action against
the legal bitsets, so that a random game is several times cheaper than listing and
sorting strings and searching the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import excerpt
from arena.games.base import TERMINAL, Game, GameError, IllegalAction, Option, Result, State
from arena.games.blox_geometry import LEVELS, ORIENTATIONS, SIZE, TOP_LEVEL, Geometry, geometry, spread
from arena.games.numbers import canonical_int

__all__ = ["BRIDGE", "LEVELS", "ORIENTATIONS", "PASS", "SIZE", "STANDARD", "TOP_LEVEL", "Blox", "BloxState", "Brick",
           "Geometry", "geometry"]

PASS = "pass"
STANDARD, BRIDGE = "standard", "bridge"
SLOTS = 2 * LEVELS
"""Bitsets kept per level and orientation: slot 2 z + o (o = 0 for H, 1 for V)."""


@dataclass(frozen=True)
class Brick:
    owner: int
    orientation: str
    position: int
    level: int
    mask: int
    """Studs covered at its level."""


class BloxState(State):
    """A position: the bricks, each level's occupied studs, bricks left per seat, the
    turn count, consecutive passes, and each seat's chains (union-find over its bricks
    with the edges their level-0 bricks touch). Kept up to date by each placement, per
    slot (level and orientation): the positions whose footprint meets a brick
    (`blocked`) and each seat's bricks' positions (`covered`, for the exact-cover rule).
    The mover's legal positions are computed once per position and shared by
    `legal_actions`, `is_legal` and `apply`."""

    game_id = "blox"
    copied = {name: list.copy for name in ("bricks", "occupied", "blocked", "covered", "left", "parent", "edges")}

    def __init__(self, num_seats: int, options: Mapping[str, str]) -> None:
        super().__init__(num_seats, options)
        self.geo = geometry(int(options.get("width", "16")), int(options.get("height", "16")))
        self.geo.names()  # built now, at the game's start, rather than in the first timed decision
        self.max_turns = int(options.get("max_turns", "100"))
        self.bricks: list[Brick] = []
        self.occupied: list[int] = [0] * LEVELS
        self.blocked: list[int] = [0] * SLOTS
        """Slot 2 z + o: positions of orientation o whose footprint meets occupied[z]."""
        self.covered: list[int] = [0] * (SLOTS * num_seats)
        """SLOTS * seat + slot: the positions of that seat's bricks of the slot."""
        self.left = [int(options.get("bricks", "48"))] * num_seats
        self.mover = 0
        self.turns = 0
        self.passes = 0
        self.winner: int | None = None
        self.over = False
        self.parent: list[int] = []
        self.edges: list[int] = []
        """Per brick (valid at chain roots): bit k set when the chain touches edge k."""
        self.starts: tuple[tuple[int, int], ...] = ()
        """Bridge variant: each seat's two starting bricks (indices), to be joined."""
        self._placements: list[int] | None = None
        """Per slot up to the highest level a brick may go: the mover's legal positions."""
        self._legal: list[str] | None = None
        if options.get("variant") == BRIDGE:
            self._place_bridge_starts()

    def _place_bridge_starts(self) -> None:
        """The bridge variant's four starting bricks around the empty central square;
        each comes out of its owner's bricks, as it would from a player's pile."""
        w, h = self.geo.width // 2, self.geo.height // 2
        starts = (("V", w - 1, h + 3), ("V", w - 1, h - 7)), (("H", w - 7, h - 1), ("H", w + 3, h - 1))
        for seat, pair in enumerate(starts):
            for o, x, y in pair:
                self._add(seat, o, self.geo.index(x, y), 0)
        self.starts = ((0, 1), (2, 3))

    # ---- the interface ------------------------------------------------------------------

    def current(self) -> int:
        return TERMINAL if self.over else self.mover

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def is_legal(self, action: str) -> bool:
        if self.over:
            return False
        if action == PASS:
            return self._must_pass()
        parsed = self.geo.parse(action)
        return parsed is not None and self._placement_legal(*parsed)

    def apply(self, action: str) -> None:
        if self.over:
            raise IllegalAction(action, "the game is over")
        if action == PASS:
            if not self._must_pass():
                raise IllegalAction(action, "pass only when no placement is legal or no brick is left")
            self.passes += 1
        else:
            parsed = self.geo.parse(action)
            if parsed is None or not self._placement_legal(*parsed):
                raise IllegalAction(action, self._why_illegal(action))
            self.passes = 0
            self._add(self.mover, *parsed)
            if self._wins(len(self.bricks) - 1):
                self.winner = self.mover
                self.over = True
                return
        self._placements = None
        self._legal = None
        self.turns += 1
        if self.passes >= self.num_seats or self.turns >= self.max_turns * self.num_seats:
            self.over = True
            return
        self.mover = (self.mover + 1) % self.num_seats

    def result(self) -> Result:
        if self.winner is None:
            return Result(tuple(1 for _ in range(self.num_seats)), tuple(0.0 for _ in range(self.num_seats)))
        ranks = tuple(1 if s == self.winner else 2 for s in range(self.num_seats))
        return Result(ranks, tuple(1.0 if s == self.winner else 0.0 for s in range(self.num_seats)))

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "to_move": None if self.over else self.mover,
            "width": self.geo.width,
            "height": self.geo.height,
            "bricks": [[b.owner, self.brick_name(b)] for b in self.bricks],
            "bricks_left": list(self.left),
            "turns": self.turns,
            "max_turns": self.max_turns,
            "passes": self.passes,
            "variant": BRIDGE if self.starts else STANDARD,
        }

    # ---- queries ------------------------------------------------------------------------

    def brick_name(self, brick: Brick) -> str:
        x, y = self.geo.coords(brick.position)
        return f"{brick.orientation}{x},{y},{brick.level}"

    def top_level(self) -> int:
        """The highest level holding a brick (-1 on an empty board)."""
        for z in range(TOP_LEVEL, -1, -1):
            if self.occupied[z]:
                return z
        return -1

    def chain_edges(self, seat: int) -> list[tuple[list[int], int]]:
        """Each chain of `seat`: its brick indices and the edges it touches (bits 0-3:
        x = 0, x = W - 1, y = 0, y = H - 1)."""
        chains: dict[int, list[int]] = {}
        for i, brick in enumerate(self.bricks):
            if brick.owner == seat:
                chains.setdefault(self._find(i), []).append(i)
        return [(members, self.edges[root]) for root, members in chains.items()]

    def joined(self, seat: int) -> bool:
        """Bridge variant: whether one chain of `seat` holds both its starting bricks."""
        first, second = self.starts[seat]
        return self._find(first) == self._find(second)

    # ---- rules --------------------------------------------------------------------------

    def _blocked(self, o: str, studs: int) -> int:
        """Positions of orientation `o` whose footprint meets `studs`."""
        return self.geo.touching(o, studs)

    def _must_pass(self) -> bool:
        return not self.left[self.mover] or not any(self._legal_positions())

    def _placement_legal(self, o: str, position: int, z: int) -> bool:
        if not self.left[self.mover]:
            return False
        placements = self._legal_positions()
        slot = 2 * z + (o == "V")
        return slot < len(placements) and bool(placements[slot] >> position & 1)

    def _legal_positions(self) -> list[int]:
        if self._placements is None:
            self._placements = self._compute_placements()
        return self._placements

    def _compute_legal(self) -> list[str]:
        if self.over:
            return []
        if not self.left[self.mover]:
            return [PASS]
        return self.geo.sorted_names(self._legal_positions()) or [PASS]

    def _reachable(self, o: str, free: list[int], top: int) -> list[int]:
        """Per level 0..top+1: positions a brick of orientation `o` can slide to from
        open space (above the highest brick, or off the bounded volume)."""
        geo = self.geo
        valid = geo.valid[o]
        reach = [free[z] & geo.open_edge[o] for z in range(top + 2)]
        reach[top + 1] = free[top + 1]  # everything above the highest brick is open
        changed = True
        while changed:
            changed = False
            for z in range(top, -1, -1):
                current = reach[z] | (reach[z + 1] & free[z])
                if z > 0:
                    current |= reach[z - 1] & free[z]
                while True:
                    grown = spread(current, geo.stride, valid) & free[z]
                    grown |= current
                    if grown == current:
                        break
                    current = grown
                if current != reach[z]:
                    reach[z] = current
                    changed = True
        return reach

    def _compute_placements(self) -> list[int]:
        """Per slot 2 z + o for z up to the highest level a brick may go: the positions
        of every legal placement of the mover."""
        geo = self.geo
        top = self.top_level()
        highest = min(top + 1, TOP_LEVEL)
        found = [0] * (2 * (highest + 1))
        others = [seat * SLOTS for seat in range(self.num_seats) if seat != self.mover]
        covered = self.covered
        for o_index, o in enumerate(ORIENTATIONS):
            valid = geo.valid[o]
            blocked = [self.blocked[2 * z + o_index] if z < LEVELS else 0 for z in range(top + 2)] + [0]
            free = [valid & ~b for b in blocked]
            reach = self._reachable(o, free, top)
            exact = [0] * (highest + 2)
            for z in range(min(top + 1, LEVELS)):
                for base in others:
                    exact[z] |= covered[base + 2 * z + o_index]
            for z in range(highest + 1):
                above = blocked[z + 1] if z + 1 <= top + 1 else 0
                if z == 0:
                    down = geo.on_board[o] & ~above
                    up = 0
                else:
                    below = blocked[z - 1]
                    down = below & ~above
                    up = above & ~below & reach[z - 1]
                down &= reach[z + 1] if z + 1 <= top + 1 else free[z]
                candidates = (down | up) & free[z]
                candidates &= ~((exact[z - 1] if z else 0) | exact[z + 1])
                found[2 * z + o_index] = candidates
        return found

    def _add(self, owner: int, o: str, position: int, z: int) -> None:
        """Put a brick down (legal or not: tests and the bridge's starting bricks) and
        update every bitset kept per slot and the chains."""
        geo = self.geo
        mask = geo.footprint(o, position)
        brick = Brick(owner, o, position, z, mask)
        index = len(self.bricks)
        self.bricks.append(brick)
        self.occupied[z] |= mask
        self.blocked[2 * z] |= geo.touching("H", mask)
        self.blocked[2 * z + 1] |= geo.touching("V", mask)
        self.covered[SLOTS * owner + 2 * z + (o == "V")] |= 1 << position
        self.left[owner] -= 1
        self.parent.append(index)
        touched = 0
        if z == 0:
            for side, studs in enumerate(geo.edge_studs):
                if mask & studs:
                    touched |= 1 << side
        self.edges.append(touched)
        for other in range(index):
            b = self.bricks[other]
            if b.owner == owner and (b.level == z - 1 or b.level == z + 1) and b.mask & mask:
                self._union(index, other)
        self._placements = None
        self._legal = None

    def _find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def _union(self, a: int, b: int) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[rb] = ra
            self.edges[ra] |= self.edges[rb]

    def _wins(self, brick: int) -> bool:
        if self.starts:
            return self.joined(self.bricks[brick].owner)
        return self.edges[self._find(brick)] == 0b1111

    def _why_illegal(self, action: str) -> str:
        if action[:1] not in ORIENTATIONS:
            return "not a brick H<x>,<y>,<z> or V<x>,<y>,<z>, nor pass"
        if not self.left[self.mover]:
            return "no brick left: pass"
        return "not a legal placement (overlap, connection, two spaces, access or exact cover)"


class Blox(Game):
    """Blox: 2 to 4 seats build with 2x4 bricks; one chain touching all four edges wins."""

    id = "blox"
    name = "Blox"
    min_seats = 2
    max_seats = 4
    quick_options = {"width": "8", "height": "8"}
    midgame_ply = 60
    options = (
        Option("width", "16", "board width in studs (4 to 32)"),
        Option("height", "16", "board depth in studs (4 to 32)"),
        Option("bricks", "48", "bricks per player (1 to 200)"),
        Option("max_turns", "100", "turns per player before the game is a draw (1 to 1000)"),
        Option("variant", STANDARD, "standard: a chain touching the four edges wins; bridge (2 seats, "
               "even sides of 14 or more): a chain joining one's two starting bricks", (STANDARD, BRIDGE)),
    )

    def resolve_options(self, given: Mapping[str, str]) -> dict[str, str]:
        options = super().resolve_options(given)
        limits = {"width": (4, 32), "height": (4, 32), "bricks": (1, 200), "max_turns": (1, 1000)}
        for name, (low, high) in limits.items():
            text = options[name]
            if canonical_int(text, low, high) is None:
                raise GameError(f"option {name}={excerpt(text)} must be a whole number from {low} to {high}")
        if options["variant"] == BRIDGE:
            for name in ("width", "height"):
                size = int(options[name])
                if size < 14 or size % 2:
                    hint = max(14, size + size % 2)
                    raise GameError(f"option {name}={size}: the bridge variant needs an even {name} of 14 or "
                                    f"more (the starting bricks surround a 6 x 6 centre); try {hint}")
            if int(options["bricks"]) < 3:
                raise GameError(f"option bricks={options['bricks']}: the bridge variant's two starting bricks come "
                                "out of each player's bricks, so give at least 3")
        return options

    def check_seats(self, seats: int, options: Mapping[str, str] | None = None) -> None:
        super().check_seats(seats, options)
        if options and options.get("variant") == BRIDGE and seats != 2:
            raise GameError(f"the bridge variant of blox is played by 2 seats, not {seats}; use 2 seats "
                            "or drop variant=bridge")

    def _initial_state(self, seats: int, options: dict[str, str]) -> BloxState:
        return BloxState(seats, options)
