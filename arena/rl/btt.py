"""Branches and Twigs and Thorns for RL code: numbering and observation
(docs/games/btt.md, section "For RL code").

Squares are taken in the engine's documented order (`square_names`: 16 s + 4 i + j on
the wedge boards, rank by rank on rect boards); a pyramid action is (size, square,
adjacent target), which is every pyramid the rules can ever allow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.btt_board import adjacency, square_names
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
        self._add("pass")
        n, count = seats, len(self.squares)
        self.pieces = Pieces([
            ("board", (3 + 3 * n, count)),
            ("pyramids_left", (n, 3)),
            ("scores", (n,)),
            ("to_move", (n,)),
            ("phase", (len(PHASES),)),
            ("progress", (1,)),
        ])

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

    def max_decisions(self) -> int:
        return 17 * self.seats


CODEC = BTTCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
