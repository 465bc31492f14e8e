"""Planes observations (`Position.planes`, `Codec.planes_shape`, `Codec.plane_names`):
float32 (C, H, W) for every board game, a name per channel, changing with the moves,
and holding what the flat vector's board piece holds, cell for cell."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.games import CHANCE
from arena.rl import RLError
from arena.rl.bridge import Bridge, Position

SETTINGS = [
    ("btt", 2, {}), ("btt", 3, {}), ("btt", 5, {"board": "rect"}),
    ("treeblox", 2, {}),
    ("the-tree", 3, {}),
    ("roots", 2, {"radius": "3"}),
    ("blox", 2, {"width": "8", "height": "8"}), ("blox", 4, {"width": "8", "height": "8"}),
]
BOARD_PIECE = {"btt": "board", "treeblox": "cubes", "the-tree": "tree", "roots": "regions", "blox": "bricks"}


def played(bridge: Bridge, seed: int, decisions: int) -> Position:
    rng = random.Random(seed)
    position = bridge.new_position()
    done = 0
    while done < decisions and not position.is_terminal():
        if position.current() == CHANCE:
            position.sample_chance(rng)
            continue
        position.apply(rng.choice(position.legal()))
        done += 1
    return position


@pytest.mark.parametrize(("game", "seats", "options"), SETTINGS,
                         ids=[f"{g}-{n}-{'-'.join(o.values()) or 'default'}" for g, n, o in SETTINGS])
def test_planes_shape_names_and_moves(game: str, seats: int, options: dict[str, str]) -> None:
    bridge = Bridge(game, seats, options)
    codec = bridge.codec
    assert codec.planes_shape is not None
    channels = codec.planes_shape[0]
    assert len(codec.plane_names) == channels == len(set(codec.plane_names))
    start = bridge.new_position()
    start.sample_chance(random.Random(0))
    later = played(bridge, 0, 12)
    for seat in range(seats):
        planes = later.planes(seat)
        assert planes.dtype == np.float32 and planes.shape == codec.planes_shape
        assert set(np.unique(planes)) <= {0.0, 1.0}
    assert not np.array_equal(start.planes(0), later.planes(0))


@pytest.mark.parametrize(("game", "seats", "options"), SETTINGS,
                         ids=[f"{g}-{n}-{'-'.join(o.values()) or 'default'}" for g, n, o in SETTINGS])
def test_planes_hold_the_board_piece(game: str, seats: int, options: dict[str, str]) -> None:
    """Every 1 of the flat vector's board piece is a 1 of the planes and the planes
    hold no other piece of the board (the same count of ones, channel by channel)."""
    bridge = Bridge(game, seats, options)
    position = played(bridge, 3, 25)
    board = bridge.codec.pieces.split(position.tensor(1 % seats))[BOARD_PIECE[game]]
    planes = position.planes(1 % seats)
    if game == "roots":  # 78 features per region in its rows, then the region mask
        assert np.array_equal(planes[:78].reshape(78, -1).sum(axis=1), board.sum(axis=0))
        assert planes[78].sum() == board.shape[0]
        return
    if game == "blox":
        assert np.array_equal(planes.reshape(-1), board.reshape(-1))
        return
    rows = board.reshape(board.shape[0], -1)
    if game == "treeblox":  # a kind's 17 levels are consecutive channels
        assert np.array_equal(planes.reshape(4, -1).sum(axis=1), rows.sum(axis=1))
    else:
        assert np.array_equal(planes.reshape(planes.shape[0], -1).sum(axis=1), rows.sum(axis=1))
    assert planes.sum() == board.sum() > 0


def test_btt_planes_put_a_square_where_the_board_shows_it() -> None:
    """A pyramid of the observer is in the 'seat+0 size k' channel at its square's cell."""
    bridge = Bridge("btt", 2)
    position = played(bridge, 1, 6)
    codec = bridge.codec
    state = position.state
    seat = 0
    for sq, who in enumerate(state.owner):  # type: ignore[attr-defined]
        if who == seat:
            channel = codec.plane_names.index(f"seat+0 size {state.size[sq]}")  # type: ignore[attr-defined]
            cell = int(codec.cell_of[sq])  # type: ignore[attr-defined]
            assert position.planes(seat).reshape(codec.planes_shape[0], -1)[channel, cell] == 1.0  # type: ignore[index]


def test_a_game_without_planes_says_so() -> None:
    from arena.rl.spec import Codec

    class Plain(Codec):
        game_id = "btt"

        def _fill(self, views: object, observation: object, pending: object) -> None:
            return None

    codec = Plain(2, {})
    assert codec.planes_shape is None
    with pytest.raises(RLError, match="no planes"):
        codec.planes(Bridge("btt").new_position().state, 0)
