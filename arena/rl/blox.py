"""Blox for RL code: numbering and observation (docs/games/blox.md, section "For RL
code").

The rules bound the volume: every stud of a brick lies in -8 <= x <= W + 7,
-8 <= y <= H + 7 and 0 <= z <= 15, so a brick is one of the lowest studs that keep
its 4 x 2 (H) or 2 x 4 (V) footprint inside, on one of 16 levels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.games import State
from arena.games.blox import BloxState
from arena.rl.spec import Codec, Ids, Path, Pieces, Tensor, rotate

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
        stride, rows = self.width + 2 * MARGIN, self.height + 2 * MARGIN
        bits = stride * rows
        self._id_of_bit = np.full(2 * LEVELS * bits, -1, np.intp)
        """The engine's legal placements as bitsets (slot 2 z + o, then position
        (y + MARGIN) * stride + x + MARGIN, as one bit string) -> the brick's id."""
        for o, (orientation, (dx, dy)) in enumerate(FOOTPRINT.items()):
            for z in range(LEVELS):
                for y in range(-MARGIN, self.height + MARGIN - dy + 1):
                    for x in range(-MARGIN, self.width + MARGIN - dx + 1):
                        bit = (2 * z + o) * bits + (y + MARGIN) * stride + x + MARGIN
                        self._id_of_bit[bit] = self._add(f"{orientation}{x},{y},{z}")
        self._bits = bits
        self.pass_id = self._add("pass")
        n = seats
        self.pieces = Pieces([
            ("bricks", (2 * n, LEVELS, self.height + 2 * MARGIN, self.width + 2 * MARGIN)),
            ("bricks_left", (n,)),
            ("to_move", (n,)),
            ("turns", (1,)),
            ("passes", (1,)),
        ])
        self._area = (self.height + 2 * MARGIN) * (self.width + 2 * MARGIN)
        self._bricks_size = 2 * n * LEVELS * self._area
        self._plane_of = [[2 * rotate(owner, me, n) for owner in range(n)] for me in range(n)]
        self.planes_shape = (2 * n * LEVELS, self.height + 2 * MARGIN, self.width + 2 * MARGIN)
        self.plane_names = tuple(f"seat+{k} {o} z={z}" for k in range(n) for o in FOOTPRINT for z in range(LEVELS))

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

    def _reads(self, state: State) -> bool:
        """Whether the fast paths can read this state's fields (an engine of this size)."""
        return (isinstance(state, BloxState) and state.geo.width == self.width and state.geo.height == self.height
                and state.geo.stride == self.width + 2 * MARGIN)

    def legal_ids(self, state: State) -> Ids | None:
        """The engine's legal placements (bitsets per level and orientation, found once
        per position) straight to ids, a few numpy operations for a thousand bricks
        (an array: the action mask is set from it without a Python list)."""
        if not isinstance(state, BloxState) or not self._reads(state):
            return None
        if state.over:
            return []
        if not state.left[state.mover]:
            return [self.pass_id]
        bits, combined = self._bits, 0
        for slot, positions in enumerate(state._legal_positions()):
            if positions:
                combined |= positions << (slot * bits)
        if not combined:
            return [self.pass_id]
        raw = np.frombuffer(combined.to_bytes((combined.bit_length() + 7) // 8, "little"), np.uint8)
        found = self._id_of_bit[np.flatnonzero(np.unpackbits(raw, bitorder="little").view(np.bool_))]
        found.sort()
        return found

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        if not isinstance(state, BloxState) or not self._reads(state):
            return super().fast_tensor(state, seat, pending)
        n, area = self.seats, self._area
        plane_of = self._plane_of[seat]
        hot = [((plane_of[b.owner] + (b.orientation == "V")) * LEVELS + b.level) * area + b.position
               for b in state.bricks]
        tail = [0.0] * (2 * n + 2)
        for s, left in enumerate(state.left):
            tail[(s - seat) % n] = left / self.bricks
        if not state.over:
            tail[n + (state.mover - seat) % n] = 1.0
        tail[2 * n] = state.turns / (self.max_turns * n)
        tail[2 * n + 1] = state.passes
        flat = np.zeros(self.pieces.size, np.float32)
        flat[hot] = 1.0
        flat[self._bricks_size:] = tail
        return flat

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """Channels: for each seat+k (k = 0 the observer, 1 the next seat...), its H
        bricks at levels z = 0..15, then its V bricks; H x W: y and x from -8 to
        height + 7 and width + 7, a brick 1 at its lowest stud (row y + 8, column x + 8)."""
        assert self.planes_shape is not None
        return self.fast_tensor(state, seat, pending)[:self._bricks_size].reshape(self.planes_shape)

    def max_decisions(self) -> int:
        return self.max_turns * self.seats


CODEC = BloxCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
