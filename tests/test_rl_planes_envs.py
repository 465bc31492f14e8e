"""The planes (C, H, W) reach PettingZoo (`observation="planes"`) and OpenSpiel (an
observer with params {"shape": "planes"}) as the bridge gives them (#38)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")
pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

from arena.rl import openspiel  # noqa: E402
from arena.rl.pettingzoo import env  # noqa: E402
from arena.rl.spec import RLError  # noqa: E402

GRID_GAMES = ["btt", "treeblox", "roots", "blox"]


@pytest.mark.parametrize("game", GRID_GAMES)
def test_a_pettingzoo_agent_observes_the_planes_of_its_seat(game: str) -> None:
    e = env(game, observation="planes")
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(6):
        agent = e.agent_selection
        observation, _, terminated, truncated, _ = e.last()
        planes = observation["observation"]
        assert planes.shape == e._observation_spaces[agent]["observation"].shape
        assert planes.dtype == np.float32 and planes.ndim == 3
        assert np.array_equal(planes, e.position.planes(e._seat[agent]))
        if terminated or truncated:
            break
        e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_the_flat_vector_stays_the_default_and_a_bad_shape_is_refused() -> None:
    e = env("btt")
    e.reset(seed=1)
    assert e.last()[0]["observation"].ndim == 1
    with pytest.raises(RLError, match="observation='cube' is not one of flat, planes"):
        env("btt", observation="cube")  # type: ignore[arg-type]


@pytest.mark.parametrize("game", GRID_GAMES)
def test_an_openspiel_planes_observer_shapes_the_board(game: str) -> None:
    loaded = openspiel.load(game)
    observer = loaded.make_py_observer(None, {"shape": "planes"})
    state = loaded.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(4):
        if state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=odds)))
            continue
        player = state.current_player()
        observer.set_from(state, player)
        assert observer.dict["planes"].shape == loaded.bridge.codec.planes_shape
        assert np.array_equal(observer.dict["planes"], state.position.planes(player))
        assert observer.tensor.size == int(np.prod(loaded.bridge.codec.planes_shape))
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_the_openspiel_observation_tensor_is_the_read_only_vector() -> None:
    loaded = openspiel.load("treeblox")
    state = loaded.new_initial_state()
    tensor = state.observation_tensor(0)
    assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32 and not tensor.flags.writeable
    assert np.array_equal(tensor, state.position.tensor(0))
    assert loaded.observation_tensor_shape() == [tensor.size]
    with pytest.raises(RLError, match="player 5 is not a seat"):
        state.observation_tensor(5)
