"""The Tree for RL code: numbering, observation and the deal as chance (docs/games/
the-tree.md, section "For RL code").

Every tile after the start rests on the row below, shifted one cell left or right of a
tile there, so a tile of row y starts at an x with |x| <= y and x = y (mod 2); with 36
tiles no row above 35 can be reached. The deal (36! orders) is factored: one chance
node per dealt tile, uniform over the tiles not dealt yet, which gives every order the
probability 1/36! as the arena's shuffle does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.games import State
from arena.games.the_tree import TheTreeState
from arena.rl.spec import ChanceModel, Codec, Path, Pieces, RLError, Tensor, rotate

SYMBOLS = 8
TILES = tuple(f"{a}{b}" for a in range(SYMBOLS) for b in range(a, SYMBOLS))
"""The 36 tiles in the rules' order: 00, 01, ..., 07, 11, ..., 77."""
TILE_ID = {name: i for i, name in enumerate(TILES)}
TOP = len(TILES) - 1
"""The highest row a tile can ever reach."""
POSITIONS: tuple[tuple[int, int], ...] = ((0, 0),) + tuple(
    (x, y) for y in range(1, TOP + 1) for x in range(-y, y + 1, 2)
)
"""Where a tile's left half can ever go: the start, then row by row, left to right."""


def cell_index(x: int, y: int) -> int:
    """Row y holds cells x = -y .. y + 1 (2y + 2 of them), rows one after the other."""
    return y * (y + 1) + x + y


CELLS = cell_index(TOP + 1, TOP) + 1
TILE_OF_PAIR = {(a, b): TILE_ID[f"{min(a, b)}{max(a, b)}"] for a in range(SYMBOLS) for b in range(SYMBOLS)}
"""A tile's id from its two symbols, either way round (and from the engine's (low, high))."""
ROWS, COLUMNS = TOP + 1, 2 * TOP + 2
"""Planes: row y from the start (0) up to 35, column x + 35 for x from -35 to 36."""
PLANE_CELL = np.array([y * COLUMNS + x + TOP for y in range(ROWS) for x in range(-y, y + 2)], np.intp)
"""Each cell (cell_index order) in a ROWS x COLUMNS plane."""


class DealChance(ChanceModel):
    """The deal as 36 chance nodes, one tile each (its id in TILES order)."""

    max_outcomes = len(TILES)
    max_nodes = len(TILES)
    explicit = True

    def outcomes(self, state: State, partial: Path) -> list[tuple[int, float]]:
        left = [t for t in range(len(TILES)) if t not in partial]
        return [(t, 1.0 / len(left)) for t in left]

    def complete(self, state: State, partial: Path) -> str | None:
        last = partial[-1]
        if not 0 <= last < len(TILES) or last in partial[:-1]:
            raise RLError(f"the-tree: tile id {last} is not one left to deal")
        if len(partial) < len(TILES):
            return None
        return ",".join(TILES[t] for t in partial)

    def encode(self, state: State, action: str) -> Path:
        try:
            return tuple(TILE_ID[name] for name in action.split(","))
        except KeyError:
            raise RLError(f"the-tree: {action[:40]!r} is not a deal") from None

    def label(self, outcome: int) -> str:
        return f"deal {TILES[outcome]}" if 0 <= outcome < len(TILES) else f"tile id {outcome}"


class TheTreeCodec(Codec):
    """Ids: for each position of POSITIONS, the 64 (left, right) symbol pairs (left * 8
    + right; a double has one), then `draw`, then `pass`."""

    game_id = "the-tree"

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        super().__init__(seats, options)
        for x, y in POSITIONS:
            for left in range(SYMBOLS):
                for right in range(SYMBOLS):
                    self._add(f"{left}{right}@{x},{y}")
        self._first_id = {position: SYMBOLS * SYMBOLS * i for i, position in enumerate(POSITIONS)}
        """A position (x, y) -> the id of its first symbol pair (left * 8 + right after it)."""
        self._draw = self._add("draw")
        self._add("pass")
        self.chance = DealChance()
        n = seats
        self.pieces = Pieces([
            ("tree", (SYMBOLS, CELLS)),
            ("hand", (len(TILES),)),
            ("placed", (len(TILES),)),
            ("hand_sizes", (n,)),
            ("supply_size", (1,)),
            ("finished", (n, n)),
            ("to_move", (n,)),
            ("passes", (1,)),
        ])
        self._tree_size = SYMBOLS * CELLS
        self._at = {name: self.pieces.at(name) - self._tree_size for name, _ in self.pieces.pieces}
        self.planes_shape = (SYMBOLS, ROWS, COLUMNS)
        self.plane_names = tuple(f"symbol {symbol}" for symbol in range(SYMBOLS))

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        n = self.seats
        me = int(observation["seat"])
        tree = views["tree"]
        for text in observation["tiles"]:
            symbols, _, where = text.partition("@")
            xs, _, ys = where.partition(",")
            x, y = int(xs), int(ys)
            left, right = int(symbols[0]), int(symbols[1])
            tree[left, cell_index(x, y)] = 1.0
            tree[right, cell_index(x + 1, y)] = 1.0
            views["placed"][TILE_ID[min(symbols, symbols[::-1])]] = 1.0
        for name in observation["hand"]:
            views["hand"][TILE_ID[name]] = 1.0
        for seat in range(n):
            views["hand_sizes"][rotate(seat, me, n)] = observation["hand_sizes"][seat]
        views["supply_size"][0] = observation["supply_size"]
        for place, seat in enumerate(observation["finished"]):
            views["finished"][rotate(int(seat), me, n), place] = 1.0
        if observation["to_move"] is not None:
            views["to_move"][rotate(int(observation["to_move"]), me, n)] = 1.0
        views["passes"][0] = observation["passes"]

    def legal_ids(self, state: State) -> list[int] | None:
        """The engine's legal placements (moves, found once per position) straight to
        ids, without sorting their names."""
        if not isinstance(state, TheTreeState):
            return None
        if state.over or not state.dealt:
            return []
        moves = state._legal_moves()
        if not moves:
            return [self._draw if state.supply else self._draw + 1]
        first = self._first_id
        try:
            ids = [first[x, y] + 8 * left + right for left, right, x, y in moves.values()]
        except KeyError:
            return None  # a placement outside the numbering: the strings path names it
        ids.sort()
        return ids

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """Reads the tree, the sizes and only the seat's own hand (never another's)."""
        if not isinstance(state, TheTreeState):
            return super().fast_tensor(state, seat, pending)
        n, at = self.seats, self._at
        hot = []
        tail = [0.0] * (self.pieces.size - self._tree_size)
        placed = at["placed"]
        for left, right, x, y in state.tiles:
            cell = y * (y + 1) + x + y
            hot.append(left * CELLS + cell)
            hot.append(right * CELLS + cell + 1)
            tail[placed + TILE_OF_PAIR[left, right]] = 1.0
        hand = at["hand"]
        for tile in state.hands[seat]:
            tail[hand + TILE_OF_PAIR[tile]] = 1.0
        sizes, finished = at["hand_sizes"], at["finished"]
        for other, tiles in enumerate(state.hands):
            tail[sizes + (other - seat) % n] = len(tiles)
        tail[at["supply_size"]] = len(state.supply)
        for place, other in enumerate(state.finished):
            tail[finished + ((other - seat) % n) * n + place] = 1.0
        if state.dealt and not state.over:
            tail[at["to_move"] + (state.mover - seat) % n] = 1.0
        tail[at["passes"]] = state.passes
        flat = np.zeros(self.pieces.size, np.float32)
        flat[hot] = 1.0
        flat[self._tree_size:] = tail
        return flat

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """Channels: symbols 0..7; H x W: the tree's rows y = 0..35 (the start's row
        first) by columns x + 35 (x from -35 to 36), a cell 1 in the plane of the
        symbol on it. Hands, sizes and turn are in the flat vector only."""
        tree = self.fast_tensor(state, seat, pending)[:self._tree_size].reshape(SYMBOLS, CELLS)
        out = np.zeros((SYMBOLS, ROWS * COLUMNS), np.float32)
        out[:, PLANE_CELL] = tree
        return out.reshape(SYMBOLS, ROWS, COLUMNS)

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        return self.determinize(state.observation(seat), rng)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> State:
        """The engine's own determinisation: the tiles the seat has not seen shuffled
        into the other hands and the supply, with the sizes it was told."""
        return TheTreeState.from_observation(observation, rng)

    def max_decisions(self) -> int:
        # 36 placements and 27 draws, each run of passes shorter than the seats
        return (len(TILES) + 27 + 1) * self.seats


CODEC = TheTreeCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
