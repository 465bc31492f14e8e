"""Blox (rules/blox.md): 2x4 bricks built into a 3D construction by 2 to 4 players;
a chain of one player's bricks touching all four board edges at level 0 wins (in the
`bridge` variant: a chain joining the player's two starting bricks). Pure rules.

Hundreds of placements are legal per turn, so every per-level question is answered
with Python ints used as bitsets over the bounded volume's studs (`occupied[z]`) and
over each orientation's brick positions, with one shared row stride so that a
brick's footprint is a handful of shifts: the positions blocked at a level are the
occupied studs shifted by each stud offset of the brick. The access rule is a flood
fill of those bitsets (sideways by shifts, between levels by AND) from open space.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena.errors import excerpt
from arena.games.base import TERMINAL, Game, GameError, IllegalAction, Option, Result, State
from arena.games.numbers import canonical_int

MARGIN = 8
"""Bricks may reach this far past the board's edges (the bounded volume)."""
TOP_LEVEL = 15
"""The highest level a brick may occupy."""
PASS = "pass"
STANDARD, BRIDGE = "standard", "bridge"
ORIENTATIONS = ("H", "V")
SIZE = {"H": (4, 2), "V": (2, 4)}
"""Footprint (width in x, depth in y) per orientation."""


@dataclass(frozen=True)
class Geometry:
    """Everything that depends on the board size only, shared by all states."""

    width: int
    height: int
    stride: int
    """Studs per row of the bounded volume (and positions per row, same stride)."""
    rows: int
    valid: dict[str, int]
    """Per orientation: the positions whose footprint lies inside the volume."""
    on_board: dict[str, int]
    """Per orientation: positions covering at least one board stud."""
    edge_studs: tuple[int, int, int, int]
    """Board studs on the edges x = 0, x = W - 1, y = 0, y = H - 1 (level-0 bitsets)."""
    offsets: dict[str, tuple[int, ...]]
    """Per orientation: the stud offsets of a footprint from its lowest stud."""
    open_edge: dict[str, int]
    """Per orientation: valid positions one step from leaving the volume (open space)."""

    def index(self, x: int, y: int) -> int:
        return (x + MARGIN) + (y + MARGIN) * self.stride

    def coords(self, index: int) -> tuple[int, int]:
        return index % self.stride - MARGIN, index // self.stride - MARGIN

    def footprint(self, orientation: str, position: int) -> int:
        mask = 0
        for offset in self.offsets[orientation]:
            mask |= 1 << (position + offset)
        return mask


@lru_cache(maxsize=16)
def geometry(width: int, height: int) -> Geometry:
    stride = width + 2 * MARGIN
    rows = height + 2 * MARGIN
    valid: dict[str, int] = {}
    on_board: dict[str, int] = {}
    offsets: dict[str, tuple[int, ...]] = {}
    open_edge: dict[str, int] = {}
    for o, (w, d) in SIZE.items():
        offsets[o] = tuple(dx + dy * stride for dy in range(d) for dx in range(w))
        v = b = edge = 0
        for py in range(rows - d + 1):
            for px in range(stride - w + 1):
                bit = 1 << (px + py * stride)
                v |= bit
                x, y = px - MARGIN, py - MARGIN
                if x + w > 0 and x < width and y + d > 0 and y < height:
                    b |= bit
                if px == 0 or py == 0 or px == stride - w or py == rows - d:
                    edge |= bit
        valid[o], on_board[o], open_edge[o] = v, b, edge
    geo_edges = []
    for side in range(4):
        mask = 0
        for x in range(width):
            for y in range(height):
                if (side == 0 and x == 0) or (side == 1 and x == width - 1) or (side == 2 and y == 0) or (
                        side == 3 and y == height - 1):
                    mask |= 1 << ((x + MARGIN) + (y + MARGIN) * stride)
        geo_edges.append(mask)
    return Geometry(width, height, stride, rows, valid, on_board,
                    (geo_edges[0], geo_edges[1], geo_edges[2], geo_edges[3]), offsets, open_edge)


@dataclass(frozen=True)
class Brick:
    owner: int
    orientation: str
    position: int
    level: int
    mask: int
    """Studs covered at its level."""


def spread(mask: int, stride: int, valid: int) -> int:
    """`mask` grown by one step in x and y, kept within `valid`. A bit shifted past a
    row's end lands on a column no brick position uses (bricks are at least two studs
    wide), so `valid` also stops wrapping from one row to the next."""
    return (mask | (mask << 1) | (mask >> 1) | (mask << stride) | (mask >> stride)) & valid


class BloxState(State):
    """A position: the bricks, each level's occupied studs, bricks left per seat, the
    turn count, consecutive passes, and each seat's chains (union-find over its bricks
    with the edges their level-0 bricks touch)."""

    def __init__(self, num_seats: int, options: Mapping[str, str]) -> None:
        super().__init__(num_seats, options)
        self.geo = geometry(int(options.get("width", "16")), int(options.get("height", "16")))
        self.max_turns = int(options.get("max_turns", "100"))
        self.bricks: list[Brick] = []
        self.occupied: list[int] = [0] * (TOP_LEVEL + 1)
        self.left = [int(options.get("bricks", "48"))] * num_seats
        self.mover = 0
        self.turns = 0
        self.passes = 0
        self.winner: int | None = None
        self.over = False
        self.parent: list[int] = []
        self.edges: list[int] = []
        """Per brick (valid at chain roots): bit k set when the chain touches edge k."""
        self._legal: list[str] | None = None
        self.starts: tuple[tuple[int, int], ...] = ()
        """Bridge variant: each seat's two starting bricks (indices), to be joined."""
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

    def apply(self, action: str) -> None:
        if self.over:
            raise IllegalAction(action, "the game is over")
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(action, self._why_illegal(action, legal))
        self._legal = None
        if action == PASS:
            self.passes += 1
        else:
            self.passes = 0
            o = action[0]
            x, y, z = (int(v) for v in action[1:].split(","))
            self._add(self.mover, o, self.geo.index(x, y), z)
            if self._wins(len(self.bricks) - 1):
                self.winner = self.mover
                self.over = True
                return
        self.turns += 1
        if self.passes >= self.num_seats or self.turns >= self.max_turns * self.num_seats:
            self.over = True
            return
        self.mover = (self.mover + 1) % self.num_seats

    def clone(self) -> BloxState:
        other = BloxState.__new__(BloxState)
        other.num_seats = self.num_seats
        other.options = self.options
        other.geo = self.geo
        other.max_turns = self.max_turns
        other.bricks = list(self.bricks)
        other.occupied = list(self.occupied)
        other.left = list(self.left)
        other.mover = self.mover
        other.turns = self.turns
        other.passes = self.passes
        other.winner = self.winner
        other.over = self.over
        other.parent = list(self.parent)
        other.edges = list(self.edges)
        other._legal = self._legal
        other.starts = self.starts
        return other

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

    # ---- rules --------------------------------------------------------------------------

    def _blocked(self, o: str, studs: int) -> int:
        """Positions of orientation `o` whose footprint meets `studs`."""
        geo = self.geo
        blocked = 0
        for offset in geo.offsets[o]:
            blocked |= studs >> offset
        return blocked & geo.valid[o]

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

    def _placements(self, o: str) -> list[tuple[int, int]]:
        """(position, level) of every legal placement of orientation `o`."""
        geo = self.geo
        top = self.top_level()
        highest = min(top + 1, TOP_LEVEL)
        occupied = self.occupied + [0]
        blocked = [self._blocked(o, occupied[z]) for z in range(top + 2)] + [0]
        free = [geo.valid[o] & ~b for b in blocked]
        reach = self._reachable(o, free, top)
        exact: dict[int, int] = {}
        for brick in self.bricks:
            if brick.orientation == o and brick.owner != self.mover:
                exact[brick.level] = exact.get(brick.level, 0) | (1 << brick.position)
        found = []
        for z in range(highest + 1):
            above = blocked[z + 1] if z + 1 <= top + 1 else 0
            below = blocked[z - 1] if z >= 1 else 0
            if z == 0:
                down = geo.on_board[o] & ~above
            else:
                down = below & ~above
            down &= reach[z + 1] if z + 1 <= top + 1 else free[z]
            up = (above & ~below & reach[z - 1]) if z >= 1 else 0
            candidates = (down | up) & free[z]
            candidates &= ~(exact.get(z - 1, 0) | exact.get(z + 1, 0))
            while candidates:
                low = candidates & -candidates
                found.append((low.bit_length() - 1, z))
                candidates ^= low
        return found

    def _compute_legal(self) -> list[str]:
        if self.over:
            return []
        if not self.left[self.mover]:
            return [PASS]
        geo = self.geo
        names = []
        for o in ORIENTATIONS:
            for position, z in self._placements(o):
                x, y = geo.coords(position)
                names.append(f"{o}{x},{y},{z}")
        if not names:
            return [PASS]
        names.sort()
        return names

    def _add(self, owner: int, o: str, position: int, z: int) -> None:
        geo = self.geo
        mask = geo.footprint(o, position)
        brick = Brick(owner, o, position, z, mask)
        index = len(self.bricks)
        self.bricks.append(brick)
        self.occupied[z] |= mask
        self.left[owner] -= 1
        self.parent.append(index)
        touched = 0
        if z == 0:
            for side, studs in enumerate(geo.edge_studs):
                if mask & studs:
                    touched |= 1 << side
        self.edges.append(touched)
        for other, b in enumerate(self.bricks[:-1]):
            if b.owner == owner and abs(b.level - z) == 1 and b.mask & mask:
                self._union(index, other)

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

    def joined(self, seat: int) -> bool:
        """Bridge variant: whether one chain of `seat` holds both its starting bricks."""
        first, second = self.starts[seat]
        return self._find(first) == self._find(second)

    def _wins(self, brick: int) -> bool:
        if self.starts:
            return self.joined(self.bricks[brick].owner)
        return self.edges[self._find(brick)] == 0b1111

    def _why_illegal(self, action: str, legal: list[str]) -> str:
        if action == PASS:
            return "pass only when no placement is legal or no brick is left"
        if action[:1] not in ORIENTATIONS:
            return "not a brick H<x>,<y>,<z> or V<x>,<y>,<z>, nor pass"
        return "not a legal placement (overlap, connection, two spaces, access or exact cover)"


class Blox(Game):
    """Blox: 2 to 4 seats build with 2x4 bricks; one chain touching all four edges wins."""

    id = "blox"
    name = "Blox"
    min_seats = 2
    max_seats = 4
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
