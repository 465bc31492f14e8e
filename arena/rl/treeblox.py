"""Treeblox for RL code: numbering and observation (docs/games/treeblox.md, section
"For RL code").

A cube can only be placed in a board hole or next to one of the placer's own branches,
and a player has 16 branches, so no cube is ever more than 16 steps (|dx| + |dy| + z)
from the 4 x 4 board: those 5,168 cells are all the cells the numbering needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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

    playout_cutoff = 30

    def evaluate(self, observation: Mapping[str, Any]) -> list[float] | None:
        """Active leaves, the game's score."""
        return soft_lead([float(v) for v in observation["active_leaves"]], 2.0)

    def max_decisions(self) -> int:
        # at most 64 placements, a pass after each, and an empty turn between each two
        return 64 + 64 + 65


CODEC = TreebloxCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
