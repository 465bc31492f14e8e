"""Treeblox for RL code: numbering and observation (docs/games/treeblox.md, section
"For RL code").

A cube can only be placed in a board hole or next to one of the placer's own branches,
and a player has 16 branches, so no cube is ever more than 16 steps (|dx| + |dy| + z)
from the 4 x 4 board: those 5,168 cells are all the cells the numbering needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.games import State
from arena.games.treeblox import TreebloxState, pack
from arena.rl.spec import Codec, Path, Pieces, Tensor, rotate, soft_lead

BOARD = 4
REACH = 16
"""Branches per player: the farthest a cube can ever be from the board."""
PHASES = ("opening", "main", "final", "over")


def distance(x: int, y: int, z: int) -> int:
    """Steps from the nearest board hole."""
    return max(0, -x, x - (BOARD - 1)) + max(0, -y, y - (BOARD - 1)) + z


CELLS: tuple[tuple[int, int, int], ...] = tuple(
    (x, y, z)
    for z in range(REACH + 1)
    for y in range(-REACH, BOARD + REACH)
    for x in range(-REACH, BOARD + REACH)
    if distance(x, y, z) <= REACH
)
"""Every cell a cube can ever occupy, by z, then y, then x."""
PACKED = {pack(x, y, z): i for i, (x, y, z) in enumerate(CELLS)}
"""The engine's packed cell -> its index in CELLS."""
SIDE = BOARD + 2 * REACH
"""Planes: x and y run from -REACH to BOARD + REACH - 1 (36 each)."""
LEVELS = REACH + 1
PLANE_CELL = np.array([(z * SIDE + y + REACH) * SIDE + x + REACH for x, y, z in CELLS], np.intp)
"""Each cell of CELLS in a (LEVELS, SIDE, SIDE) block of planes."""


class TreebloxCodec(Codec):
    """Ids: L<cell> for every cell of CELLS, then B<cell>, then `pass`."""

    game_id = "treeblox"

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        super().__init__(seats, options)
        self.cell_index = {cell: i for i, cell in enumerate(CELLS)}
        for kind in "LB":
            for x, y, z in CELLS:
                self._add(f"{kind}{x},{y},{z}")
        self._add("pass")
        self.pieces = Pieces([
            ("cubes", (4, len(CELLS))),
            ("phase", (len(PHASES),)),
            ("to_move", (2,)),
            ("turn", (3,)),
            ("active_leaves", (2,)),
            ("leaves_left", (2,)),
            ("branches_left", (2,)),
        ])
        self._cubes_size = 4 * len(CELLS)
        self.planes_shape = (4 * LEVELS, SIDE, SIDE)
        self.plane_names = tuple(f"{who} {kind} z={z}" for who in ("own", "other") for kind in ("leaf", "branch")
                                 for z in range(LEVELS))

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        me = int(observation["seat"])
        cubes = views["cubes"]
        for x, y, z, owner, kind in observation["cubes"]:
            plane = 2 * rotate(int(owner), me, 2) + (0 if kind == "L" else 1)
            cubes[plane, self.cell_index[(x, y, z)]] = 1.0
        views["phase"][PHASES.index(observation["phase"])] = 1.0
        if observation["to_move"] is not None:
            views["to_move"][rotate(int(observation["to_move"]), me, 2)] = 1.0
        views["turn"][:] = (observation["rate"], observation["placed_this_turn"], observation["empty_turns"])
        for seat in range(2):
            k = rotate(seat, me, 2)
            views["active_leaves"][k] = observation["active_leaves"][seat]
            views["leaves_left"][k] = observation["leaves_left"][seat]
            views["branches_left"][k] = observation["branches_left"][seat]

    def legal_ids(self, state: State) -> list[int] | None:
        """The engine's available cells and stock straight to ids (no action strings)."""
        if not isinstance(state, TreebloxState):
            return None
        if state.phase == "over":
            return []
        cells = [PACKED.get(cell, -1) for cell in state.available[state.mover]]
        if -1 in cells:
            return None  # a cell outside the numbering: the strings path names it
        cells.sort()
        if state.phase == "opening":
            return cells
        leaves, branches = state.stock[state.mover]
        count = len(CELLS)
        ids = (cells if leaves else []) + ([count + i for i in cells] if branches else [])
        if state.phase == "main":
            ids.append(2 * count)
        return ids

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        if not isinstance(state, TreebloxState):
            return super().fast_tensor(state, seat, pending)
        count, flip = len(CELLS), 2 * seat
        hot = [((code ^ flip) * count) + PACKED[cell] for cell, code in state.cubes.items()]
        other = 1 - seat
        tail = [0.0] * (self.pieces.size - self._cubes_size)
        tail[PHASES.index(state.phase)] = 1.0
        if state.phase != "over":
            tail[4 + (state.mover ^ seat)] = 1.0
        active, stock = state.active, state.stock
        tail[6:] = (state.rate, state.placed, state.empty_turns, active[seat], active[other],
                    stock[seat][0], stock[other][0], stock[seat][1], stock[other][1])
        flat = np.zeros(self.pieces.size, np.float32)
        flat[hot] = 1.0
        flat[self._cubes_size:] = tail
        return flat

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """Channels: the observer's leaves at each level z = 0..16, its branches, the
        other seat's leaves, its branches (68); H x W: y and x from -16 to 19 (the
        board's holes at 0..3), so a cell (x, y, z) is plane z of its kind at row
        y + 16, column x + 16."""
        cubes = self.fast_tensor(state, seat, pending)[:self._cubes_size].reshape(4, len(CELLS))
        out = np.zeros((4, LEVELS * SIDE * SIDE), np.float32)
        out[:, PLANE_CELL] = cubes
        return out.reshape(4 * LEVELS, SIDE, SIDE)

    playout_cutoff = 30

    def evaluate(self, observation: Mapping[str, Any]) -> list[float] | None:
        """Active leaves, the game's score."""
        return soft_lead([float(v) for v in observation["active_leaves"]], 2.0)

    def max_decisions(self) -> int:
        # at most 64 placements, a pass after each, and an empty turn between each two
        return 64 + 64 + 65


CODEC = TreebloxCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
