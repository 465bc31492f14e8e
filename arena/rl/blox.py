"""Blox for RL code: numbering and observation (docs/games/blox.md, section "For RL
code").

The rules bound the volume: every stud of a brick lies in -8 <= x <= W + 7,
-8 <= y <= H + 7 and 0 <= z <= 15, so a brick is one of the lowest studs that keep
its 4 x 2 (H) or 2 x 4 (V) footprint inside, on one of 16 levels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.rl.spec import Codec, Path, Pieces, Tensor, rotate

MARGIN = 8
LEVELS = 16
FOOTPRINT = {"H": (4, 2), "V": (2, 4)}


class BloxCodec(Codec):
    """Ids: every H brick by level, then y, then x (lowest stud), then every V brick
    the same way, then `pass`."""

    game_id = "blox"

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        super().__init__(seats, options)
        self.width = int(self.options.get("width", "16"))
        self.height = int(self.options.get("height", "16"))
        self.max_turns = int(self.options.get("max_turns", "100"))
        self.bricks = int(self.options.get("bricks", "48"))
        for orientation, (dx, dy) in FOOTPRINT.items():
            for z in range(LEVELS):
                for y in range(-MARGIN, self.height + MARGIN - dy + 1):
                    for x in range(-MARGIN, self.width + MARGIN - dx + 1):
                        self._add(f"{orientation}{x},{y},{z}")
        self._add("pass")
        n = seats
        self.pieces = Pieces([
            ("bricks", (2 * n, LEVELS, self.height + 2 * MARGIN, self.width + 2 * MARGIN)),
            ("bricks_left", (n,)),
            ("to_move", (n,)),
            ("turns", (1,)),
            ("passes", (1,)),
        ])

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        n = self.seats
        me = int(observation["seat"])
        planes = views["bricks"]
        for owner, name in observation["bricks"]:
            x, y, z = (int(v) for v in name[1:].split(","))
            plane = 2 * rotate(int(owner), me, n) + (0 if name[0] == "H" else 1)
            planes[plane, z, y + MARGIN, x + MARGIN] = 1.0
        for seat in range(n):
            views["bricks_left"][rotate(seat, me, n)] = observation["bricks_left"][seat] / self.bricks
        if observation["to_move"] is not None:
            views["to_move"][rotate(int(observation["to_move"]), me, n)] = 1.0
        views["turns"][0] = observation["turns"] / (self.max_turns * n)
        views["passes"][0] = observation["passes"]

    def max_decisions(self) -> int:
        return self.max_turns * self.seats


CODEC = BloxCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
