"""What Blox's rules engine (arena.games.blox) knows of a board size, shared by every
state: the bounded volume's studs and each orientation's brick positions as bits of
Python ints with one row stride, so a footprint is a handful of shifts; and the action
names, numbered in plain ASCII order, so that the legal placements (bitsets, one per
level and orientation) become the sorted list of action strings with a few numpy
operations instead of a Python loop over hundreds of bits and a string sort."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from arena.games.numbers import canonical_int

MARGIN = 8
"""Bricks may reach this far past the board's edges (the bounded volume)."""
TOP_LEVEL = 15
"""The highest level a brick may occupy."""
LEVELS = TOP_LEVEL + 1
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
    _names: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.object_]]] = field(
        default_factory=list, compare=False, repr=False)

    @property
    def bits(self) -> int:
        """Bits of one level's bitset (studs or positions)."""
        return self.stride * self.rows

    def index(self, x: int, y: int) -> int:
        return (x + MARGIN) + (y + MARGIN) * self.stride

    def coords(self, index: int) -> tuple[int, int]:
        return index % self.stride - MARGIN, index // self.stride - MARGIN

    def footprint(self, orientation: str, position: int) -> int:
        mask = 0
        for offset in self.offsets[orientation]:
            mask |= 1 << (position + offset)
        return mask

    def touching(self, orientation: str, studs: int) -> int:
        """Positions of `orientation` whose footprint meets `studs`."""
        touched = 0
        for offset in self.offsets[orientation]:
            touched |= studs >> offset
        return touched & self.valid[orientation]

    def parse(self, action: str) -> tuple[str, int, int] | None:
        """(orientation, position, level) of a canonical placement inside the volume;
        None for any other string."""
        orientation = action[:1]
        parts = action[1:].split(",")
        if orientation not in SIZE or len(parts) != 3:
            return None
        x = canonical_int(parts[0], -MARGIN, self.width + MARGIN - 1)
        y = canonical_int(parts[1], -MARGIN, self.height + MARGIN - 1)
        z = canonical_int(parts[2], 0, TOP_LEVEL)
        if x is None or y is None or z is None:
            return None
        position = self.index(x, y)
        if not self.valid[orientation] >> position & 1:
            return None
        return orientation, position, z

    def names(self) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.object_]]:
        """`rank`: for bit (2 z + o) * bits + position of the bitsets `sorted_names`
        takes, the action's place in plain ASCII order; `by_rank`: the action strings
        in that order. Built once per board size (tens of thousands of strings, a few
        milliseconds), when its first state is made."""
        if not self._names:
            self._names.append(_name_tables(self))
        return self._names[0]

    def sorted_names(self, placements: list[int]) -> list[str]:
        """The action strings of `placements` (per level z and orientation o, at index
        2 z + o, the positions' bitset) in plain ASCII order."""
        rank, by_rank = self.names()
        bits = self.bits
        combined = 0
        for slot, positions in enumerate(placements):
            if positions:
                combined |= positions << (slot * bits)
        if not combined:
            return []
        raw = np.frombuffer(combined.to_bytes((combined.bit_length() + 7) // 8, "little"), dtype=np.uint8)
        found = rank[np.flatnonzero(np.unpackbits(raw, bitorder="little").view(np.bool_))]
        found.sort()
        names: list[str] = by_rank[found].tolist()
        return names


def _name_tables(geo: Geometry) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.object_]]:
    """Plain ASCII order of "<o><x>,<y>,<z>" is the order of (o, str(x), str(y), str(z))
    compared as strings, since ',' sorts before '-' and every digit; so each part's rank
    among its values composes into the action's rank."""
    xs = [px - MARGIN for px in range(geo.stride)]
    ys = [py - MARGIN for py in range(geo.rows)]
    x_rank = {x: i for i, x in enumerate(sorted(xs, key=str))}
    y_rank = {y: i for i, y in enumerate(sorted(ys, key=str))}
    z_rank = {z: i for i, z in enumerate(sorted(range(LEVELS), key=str))}
    nx, ny = len(xs), len(ys)
    positions = np.arange(geo.bits)
    px_rank = np.array([x_rank[x] for x in xs])[positions % geo.stride]
    py_rank = np.array([y_rank[y] for y in ys])[positions // geo.stride]
    rank = np.empty(2 * LEVELS * geo.bits, dtype=np.int32)
    by_rank = np.empty(2 * LEVELS * geo.bits, dtype=object)
    for z in range(LEVELS):
        for o, letter in enumerate(ORIENTATIONS):
            slot = 2 * z + o
            ranks = ((o * nx + px_rank) * ny + py_rank) * LEVELS + z_rank[z]
            rank[slot * geo.bits:(slot + 1) * geo.bits] = ranks
            by_rank[ranks] = [f"{letter}{x},{y},{z}" for y in ys for x in xs]
    return rank, by_rank


@lru_cache(maxsize=8)
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


def spread(mask: int, stride: int, valid: int) -> int:
    """`mask` grown by one step in x and y, kept within `valid`. A bit shifted past a
    row's end lands on a column no brick position uses (bricks are at least two studs
    wide), so `valid` also stops wrapping from one row to the next."""
    return (mask | (mask << 1) | (mask >> 1) | (mask << stride) | (mask >> stride)) & valid
