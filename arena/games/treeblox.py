"""Treeblox (rules/treeblox.md): two trees of cubes compete for sunlight. Pure rules.

A cell (x, y, z) is packed into one int (`pack`) so that the six neighbours are fixed
offsets and sets of cells are sets of ints. Everything the rules ask per decision is
kept up to date by `apply` instead of recomputed: each seat's available holes, the top
cube of every column (a leaf is active exactly when it is the top of its column), the
active-leaf counts, the stocks. Action strings are made once per cell and cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import excerpt
from arena.games.base import TERMINAL, Game, GameError, IllegalAction, Result, State, competition_ranks
from arena.games.copying import copy_lists, copy_sets
from arena.games.numbers import canonical_int

DARK, LIGHT = 0, 1
SEAT_NAMES = ("Dark", "Light")
LEAF, BRANCH = 0, 1
KIND_LETTERS = "LB"
STOCK = 16
"""Leaves and branches each player starts with (32 cubes)."""
BOARD = 4
"""The board is 4 x 4 holes: cells (x, y, 0) with 0 <= x, y < 4."""
PASS = "pass"

# ---- cells as ints ----------------------------------------------------------------------

_BIAS = 64
"""Added to x and y so that they pack as non-negative 7-bit fields; 32 cubes never
reach 64 cells from the board."""
DX, DY, DZ = 1 << 14, 1 << 7, 1


def pack(x: int, y: int, z: int) -> int:
    return ((x + _BIAS) << 14) | ((y + _BIAS) << 7) | z


def unpack(cell: int) -> tuple[int, int, int]:
    return (cell >> 14) - _BIAS, ((cell >> 7) & 127) - _BIAS, cell & 127


def column_of(cell: int) -> int:
    """The column (x, y) of a cell, as the cell's packed value without z."""
    return cell >> 7


BOARD_HOLES = frozenset(pack(x, y, 0) for x in range(BOARD) for y in range(BOARD))

_NAMES: dict[int, tuple[str, str]] = {}


def action_names(cell: int) -> tuple[str, str]:
    """The leaf and branch actions for a cell: ('L1,2,0', 'B1,2,0')."""
    names = _NAMES.get(cell)
    if names is None:
        x, y, z = unpack(cell)
        names = _NAMES[cell] = (f"L{x},{y},{z}", f"B{x},{y},{z}")
    return names


def parse_action(action: str) -> tuple[int, int] | None:
    """(kind, cell) of a canonical placement string, None for anything else (any
    string: a bot's action is parsed here)."""
    kind = KIND_LETTERS.find(action[:1]) if action else -1
    parts = action[1:].split(",")
    if kind < 0 or len(parts) != 3:
        return None
    x = canonical_int(parts[0], 1 - _BIAS, _BIAS - 1)
    y = canonical_int(parts[1], 1 - _BIAS, _BIAS - 1)
    z = canonical_int(parts[2], 0, 127)
    if x is None or y is None or z is None:
        return None
    return kind, pack(x, y, z)


# ---- phases -----------------------------------------------------------------------------

OPENING, MAIN, FINAL, OVER = "opening", "main", "final", "over"


class TreebloxState(State):
    """A position. `cubes` maps a cell to its cube (owner * 2 + kind); `top` maps a
    column to its highest cell; `available[p]` holds the empty cells where p may place
    now; `active[p]` counts p's active leaves."""

    game_id = "treeblox"
    copied = {"cubes": dict.copy, "top": dict.copy, "available": copy_sets, "active": list.copy, "stock": copy_lists}

    def __init__(self, num_seats: int = 2, options: Mapping[str, str] | None = None) -> None:
        super().__init__(num_seats, options or {})
        self.cubes: dict[int, int] = {}
        self.top: dict[int, int] = {}
        self.available: list[set[int]] = [set(BOARD_HOLES), set(BOARD_HOLES)]
        self.active = [0, 0]
        self.stock = [[STOCK, STOCK], [STOCK, STOCK]]
        """stock[p][kind]: cubes of that kind p still holds."""
        self.phase = OPENING
        self.mover = DARK
        self.rate = 0
        """Cubes the mover may place this turn (main phase)."""
        self.placed = 0
        """Cubes the mover has placed this turn."""
        self.empty_turns = 0
        """Consecutive finished turns without a placement (two end the game)."""
        self._legal: list[str] | None = None

    # ---- the interface ------------------------------------------------------------------

    def current(self) -> int:
        return TERMINAL if self.phase == OVER else self.mover

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def is_legal(self, action: str) -> bool:
        if self.phase == OVER:
            return False
        if action == PASS:
            return self.phase == MAIN
        parsed = parse_action(action)
        return parsed is not None and self._placement_legal(*parsed)

    def apply(self, action: str) -> None:
        if self.phase == OVER:
            raise IllegalAction(action, "the game is over")
        if action == PASS:
            if self.phase != MAIN:
                raise IllegalAction(action, f"no pass in the {self.phase}")
            self._end_turn()
            return
        parsed = parse_action(action)
        if parsed is None:
            raise IllegalAction(action, "not a canonical placement (L or B then x,y,z) or pass")
        kind, cell = parsed
        if not self._placement_legal(kind, cell):
            raise IllegalAction(action, self._why_illegal(kind, cell))
        self._place(kind, cell)

    def result(self) -> Result:
        scores = (float(self.active[0]), float(self.active[1]))
        return Result(competition_ranks(scores), scores)

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "to_move": None if self.phase == OVER else self.mover,
            "phase": self.phase,
            "rate": self.rate,
            "placed_this_turn": self.placed,
            "empty_turns": self.empty_turns,
            "cubes": [[*unpack(cell), code >> 1, KIND_LETTERS[code & 1]] for cell, code in sorted(self.cubes.items())],
            "active_leaves": list(self.active),
            "leaves_left": [self.stock[0][LEAF], self.stock[1][LEAF]],
            "branches_left": [self.stock[0][BRANCH], self.stock[1][BRANCH]],
        }

    # ---- queries ------------------------------------------------------------------------

    def cubes_left(self, seat: int) -> int:
        return self.stock[seat][LEAF] + self.stock[seat][BRANCH]

    def cube_at(self, x: int, y: int, z: int) -> tuple[int, str] | None:
        """(owner, 'L' or 'B') of the cube in a cell, None if empty."""
        code = self.cubes.get(pack(x, y, z))
        return None if code is None else (code >> 1, KIND_LETTERS[code & 1])

    def active_leaf_cells(self, seat: int) -> list[tuple[int, int, int]]:
        wanted = seat * 2 + LEAF
        return sorted(unpack(cell) for cell in self.top.values() if self.cubes[cell] == wanted)

    def growth_rate(self, seat: int) -> int:
        """The rate `seat` would have if its turn started now."""
        return 1 if self.active[seat] < 3 else 2

    # ---- rules --------------------------------------------------------------------------

    def _compute_legal(self) -> list[str]:
        if self.phase == OVER:
            return []
        mover = self.mover
        if self.phase == OPENING:
            return sorted(action_names(cell)[LEAF] for cell in self.available[mover])
        leaves, branches = self.stock[mover]
        legal: list[str] = []
        for cell in self.available[mover]:
            leaf, branch = action_names(cell)
            if leaves:
                legal.append(leaf)
            if branches:
                legal.append(branch)
        if self.phase == MAIN:
            legal.append(PASS)
        legal.sort()
        return legal

    def _placement_legal(self, kind: int, cell: int) -> bool:
        if cell not in self.available[self.mover] or not self.stock[self.mover][kind]:
            return False
        return self.phase != OPENING or kind == LEAF

    def _why_illegal(self, kind: int, cell: int) -> str:
        if self.phase == OPENING and kind == BRANCH:
            return "the opening places a leaf"
        if not self.stock[self.mover][kind]:
            return f"no {'leaf' if kind == LEAF else 'branch'} left"
        if cell in self.cubes:
            return "the cell is taken"
        return "not an available hole: an empty board hole or a cell next to an own branch"

    def _place(self, kind: int, cell: int) -> None:
        mover = self.mover
        self._legal = None
        self.stock[mover][kind] -= 1
        self._put(mover, kind, cell)
        if self.phase == OPENING:
            self._next_opening()
            return
        if not self.active[DARK] or not self.active[LIGHT]:
            self.phase = OVER
            return
        if self.phase == FINAL:
            if not self.cubes_left(mover) or not self.available[mover]:
                self.phase = OVER
            return
        if not self.cubes_left(mover):
            self._start_final(1 - mover)
            return
        self.placed += 1
        if self.placed == self.rate:
            self._end_turn()

    def _put(self, owner: int, kind: int, cell: int) -> None:
        """Put a cube in a cell: update both seats' available holes, the column tops
        and the active-leaf counts (the stock is the caller's business)."""
        self.cubes[cell] = owner * 2 + kind
        self.available[0].discard(cell)
        self.available[1].discard(cell)
        if kind == BRANCH:
            own = self.available[owner]
            cubes = self.cubes
            for neighbour in (cell + DX, cell - DX, cell + DY, cell - DY, cell + DZ):
                if neighbour not in cubes:
                    own.add(neighbour)
            if cell & 127 and cell - DZ not in cubes:
                own.add(cell - DZ)
        column = column_of(cell)
        previous = self.top.get(column)
        if previous is None or previous < cell:
            if previous is not None and self.cubes[previous] & 1 == LEAF:
                self.active[self.cubes[previous] >> 1] -= 1
            self.top[column] = cell
            if kind == LEAF:
                self.active[owner] += 1

    @classmethod
    def position(cls, cubes: list[str], mover: int = DARK,
                 cubes_left: tuple[tuple[int, int], tuple[int, int]] | None = None) -> TreebloxState:
        """A main-phase position at the start of `mover`'s turn, for tests, puzzles and
        bots: `cubes` like ["L0,0,0", "b1,0,0"] (upper case Dark, lower case Light),
        `cubes_left` as ((Dark leaves, Dark branches), (Light leaves, Light branches));
        by default the stocks are what the cubes on the board leave. Its `history` is
        None: it was not played from the start."""
        state = cls()
        used = [[0, 0], [0, 0]]
        for text in cubes:
            owner = DARK if text[:1].isupper() else LIGHT
            parsed = parse_action(text[:1].upper() + text[1:])
            if parsed is None or parsed[1] in state.cubes:
                raise GameError(f"bad or repeated cube {excerpt(text)}")
            kind, cell = parsed
            used[owner][kind] += 1
            state._put(owner, kind, cell)
        if cubes_left is None:
            state.stock = [[STOCK - used[p][LEAF], STOCK - used[p][BRANCH]] for p in (DARK, LIGHT)]
        else:
            state.stock = [list(cubes_left[DARK]), list(cubes_left[LIGHT])]
        state.phase = MAIN
        state._start_turn(mover)
        state.set_history(None)
        return state

    def _next_opening(self) -> None:
        if self.mover == DARK:
            self.mover = LIGHT
            return
        self.phase = MAIN
        self._start_turn(DARK)

    def _start_turn(self, seat: int) -> None:
        self.mover = seat
        self.rate = self.growth_rate(seat)
        self.placed = 0

    def _end_turn(self) -> None:
        self._legal = None
        self.empty_turns = self.empty_turns + 1 if self.placed == 0 else 0
        if self.empty_turns == 2:
            self.phase = OVER
            return
        self._start_turn(1 - self.mover)

    def _start_final(self, seat: int) -> None:
        """The opponent of a player out of cubes grows without limit until its stock
        or its holes run out; with no hole at all the game ends at once."""
        self.mover = seat
        self.rate = 0
        self.placed = 0
        self.phase = FINAL if self.available[seat] and self.cubes_left(seat) else OVER


class Treeblox(Game):
    """Treeblox: Dark (seat 0) and Light (seat 1) grow trees of cubes; active leaves score."""

    id = "treeblox"
    name = "Treeblox"
    min_seats = 2
    max_seats = 2
    score_name = "active leaves"
    midgame_ply = 30

    def _initial_state(self, seats: int, options: dict[str, str]) -> TreebloxState:
        return TreebloxState(seats, options)
