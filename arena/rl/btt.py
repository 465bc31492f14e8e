"""Branches and Twigs and Thorns for RL code: numbering and observation
(docs/games/btt.md, section "For RL code").

Squares are taken in the engine's documented order (`square_names`: 16 s + 4 i + j on
the wedge boards, rank by rank on rect boards); a pyramid action is (size, square,
adjacent target), which is every pyramid the rules can ever allow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.games import State
from arena.games.btt import BTTState
from arena.games.btt_board import EMPTY, NULL, ROOT, adjacency, geometry, square_names
from arena.rl.spec import Codec, Path, Pieces, Tensor, rotate

SIZES = (1, 2, 3)
PHASES = ("setup", "play", "over")


class BTTCodec(Codec):
    """Ids: N<sq> for every square, then R<sq>, then <size><sq>><target> by size,
    square and target (squares in `square_names` order), then `pass`."""

    game_id = "btt"

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        super().__init__(seats, options)
        board = self.options.get("board", "wedge")
        self.squares = square_names(seats, board)
        self.square_index = {name: i for i, name in enumerate(self.squares)}
        adjacent = adjacency(seats, board)
        for name in self.squares:
            self._add(f"N{name}")
        for name in self.squares:
            self._add(f"R{name}")
        for size in SIZES:
            for name in self.squares:
                for target in sorted(adjacent[name], key=self.square_index.__getitem__):
                    self._add(f"{size}{name}>{target}")
        self._pass = self._add("pass")
        self._geo = geometry(seats, board)
        self._move_ids = [[self.index[name] for name in row] for row in self._geo.move_strings]
        """Per size - 1, the engine's (square, target) pair index -> the pyramid's id."""
        n, count = seats, len(self.squares)
        self.pieces = Pieces([
            ("board", (3 + 3 * n, count)),
            ("pyramids_left", (n, 3)),
            ("scores", (n,)),
            ("to_move", (n,)),
            ("phase", (len(PHASES),)),
            ("progress", (1,)),
        ])
        self._board_size = (3 + 3 * n) * count
        self._row_of = [[2, 1, 0, *(3 + 3 * rotate(s, me, n) for s in range(n))] for me in range(n)]
        """Per observer: the board row of an owner code ROOT, NULL, EMPTY, then each seat
        (a pyramid's row, less its size)."""
        assert (ROOT, NULL, EMPTY) == (-3, -2, -1)
        self._geo = geometry(seats, board)
        panels = self._geo.panels
        rows = max(len(panel.rows) for panel in panels)
        widths = [max(len(row) for row in panel.rows) for panel in panels]
        self.cell_of = np.zeros(count, np.intp)
        """Each square's cell in a plane (row * W + column): panels side by side."""
        left = 0
        for panel, width in zip(panels, widths):
            for r, row in enumerate(panel.rows):
                for c, sq in enumerate(row):
                    if sq is not None:
                        self.cell_of[self.square_index[self._geo.names[sq]]] = r * sum(widths) + left + c
            left += width
        self.planes_shape = (3 + 3 * n, rows, sum(widths))
        self.plane_names = ("empty", "null", "root", *(f"seat+{k} size {size}" for k in range(n) for size in SIZES))

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        n = self.seats
        me = int(observation["seat"])
        board = views["board"]
        board[0, :] = 1.0
        for name, what in observation["squares"].items():
            sq = self.square_index[name]
            board[0, sq] = 0.0
            kind = what["kind"]
            if kind == "null":
                board[1, sq] = 1.0
            elif kind == "root":
                board[2, sq] = 1.0
            else:
                seat = rotate(int(what["seat"]), me, n)
                board[3 + 3 * seat + int(what["size"]) - 1, sq] = 1.0
        for seat in range(n):
            views["pyramids_left"][rotate(seat, me, n)] = observation["pyramids_left"][seat]
            views["scores"][rotate(seat, me, n)] = observation["scores"][seat]
        if observation["to_move"] is not None:
            views["to_move"][rotate(int(observation["to_move"]), me, n)] = 1.0
        views["phase"][PHASES.index(observation["phase"])] = 1.0
        views["progress"][0] = observation["ply"] / (16 * n)

    def legal_ids(self, state: State) -> list[int] | None:
        """In play, the engine's valid (square, target) pairs and the sizes left straight
        to ids (setup's few decisions number the strings)."""
        if not isinstance(state, BTTState) or state.geo is not self._geo or state.ply < self.seats:
            return None
        if state.over:
            return []
        base = 3 * (state.ply % self.seats)
        rows = [self._move_ids[k] for k in range(3) if state.left[base + k]]
        if not rows or not state.valid:
            return [self._pass]
        pairs = state.valid
        ids = [row[p] for row in rows for p in pairs]
        ids.sort()
        return ids

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        if not isinstance(state, BTTState) or state.geo is not self._geo:
            return super().fast_tensor(state, seat, pending)
        n, count = self.seats, len(self.squares)
        row_of = self._row_of[seat]
        size = state.size
        hot = [(row_of[who + 3] + (size[sq] - 1 if who >= 0 else 0)) * count + sq for sq, who in enumerate(state.owner)]
        tail = [0.0] * (self.pieces.size - self._board_size)
        left, scores = state.left, state.scores
        for s in range(n):
            k = (s - seat) % n
            tail[3 * k:3 * k + 3] = left[3 * s:3 * s + 3]
            tail[3 * n + k] = scores[s]
        if not state.over:
            tail[4 * n + (state.ply - seat) % n] = 1.0
        tail[5 * n + PHASES.index(state.phase())] = 1.0
        tail[-1] = state.ply / (16 * n)
        flat = np.zeros(self.pieces.size, np.float32)
        flat[hot] = 1.0
        flat[self._board_size:] = tail
        return flat

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """Channels: empty, null, root, then a pyramid of seat+k (k = 0 the observer,
        1 the next seat...) of size 1, 2, 3 for each k; H x W: the board's panels
        (boards.md) side by side, top row first; cells outside the board are 0."""
        assert self.planes_shape is not None
        count = len(self.squares)
        board = self.fast_tensor(state, seat, pending)[:(3 + 3 * self.seats) * count].reshape(-1, count)
        channels, rows, width = self.planes_shape
        out = np.zeros((channels, rows * width), np.float32)
        out[:, self.cell_of] = board
        return out.reshape(self.planes_shape)

    def max_decisions(self) -> int:
        return 17 * self.seats


CODEC = BTTCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
