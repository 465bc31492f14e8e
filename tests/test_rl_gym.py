"""The Gymnasium single-agent environment (arena/rl/gym.py): Gymnasium's own checker,
rewards and seats, the opponents, illegal ids, the seat-safe render and the vector
environments."""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="needs the rl extra: pip install -e '.[rl]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from arena.rl import RLError, tiny_setting  # noqa: E402
from arena.rl.gym import env  # noqa: E402


def tiny_env(game: str, **kwargs: Any) -> Any:
    setting = tiny_setting(game)
    return env(game, seats=setting.seats, options=setting.options, **kwargs)


def play_out(e: Any, seed: int) -> tuple[float, dict[str, Any], int]:
    """A random learner's game: its reward, last info and number of steps."""
    obs, info = e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        assert obs["action_mask"].any()
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if terminated or truncated:
            assert terminated and not truncated and not obs["action_mask"].any()
            return float(reward), info, steps
        assert reward == 0.0


@pytest.mark.parametrize("game", ["btt", "the-tree", "roots"])
def test_gymnasiums_checker_passes(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbounded Box, no registered spec: warnings only
        check_env(tiny_env(game, opponents="greedy" if game == "btt" else "random"))


@pytest.mark.parametrize("seat", [0, 1])
def test_the_learner_gets_its_rank_utility_at_the_end(seat: int) -> None:
    e = env("btt", seat=seat, seats=2)
    reward, info, steps = play_out(e, seed=3)
    ranks = info["ranks"]
    assert reward == (ranks[1 - seat] > ranks[seat]) - (ranks[1 - seat] < ranks[seat])
    assert steps == 16
    with pytest.raises(RLError, match="reset"):
        e.step(0)


def test_the_learner_is_to_move_after_every_reset_and_step() -> None:
    e = env("btt", seat=2, seats=3, opponents=["random", "greedy"])
    obs, _ = e.reset(seed=1)
    assert e.position.current() == 2 and obs["action_mask"].any()
    mask = obs["action_mask"]
    assert set(np.flatnonzero(mask)) == set(e.position.legal())


def test_the_same_seed_plays_the_same_game_and_the_first_seed_is_the_constructors() -> None:
    first = [play_out(env("the-tree", seats=2, opponents="greedy"), seed=4) for _ in range(2)]
    assert first[0] == first[1]
    a, b = env("btt", seed=9), env("btt", seed=9)
    assert np.array_equal(a.reset()[0]["observation"], b.reset()[0]["observation"])
    rng = np.random.default_rng(0)
    for _ in range(6):
        action = int(rng.choice(np.flatnonzero(a.position.mask(0))))
        assert np.array_equal(a.step(action)[0]["observation"], b.step(action)[0]["observation"])


def test_greedy_takes_a_win_whenever_its_last_move_offers_one() -> None:
    import random

    from arena.rl.bridge import Bridge
    from arena.rl.gym import GreedyOpponent

    bridge = Bridge("btt", 2)
    chose_a_win = 0
    for seed in range(40):
        rng = random.Random(seed)
        position = bridge.new_position()
        for _ in range(31):  # to the last decision (16 a seat)
            position.apply(rng.choice(position.legal()))
        outcomes = {}
        for index in position.legal():
            child = position.clone()
            child.apply(index)
            outcomes[index] = child.utilities()[1]
        if 1.0 in outcomes.values() and min(outcomes.values()) < 1.0:
            (choice,) = GreedyOpponent().choose(position, 1, rng)
            assert outcomes[choice] == 1.0
            chose_a_win += 1
    assert chose_a_win >= 3  # the check met positions where it mattered


def test_a_python_policy_plays_the_other_seats_and_must_keep_to_its_mask() -> None:
    seen: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append((observation.shape, mask.shape))
        return int(np.flatnonzero(mask)[0])

    e = env("btt", seats=3, opponents=first_legal)
    play_out(e, seed=2)
    size, actions = e.position.codec.pieces.size, e.position.codec.num_actions
    assert seen and set(seen) == {((size,), (actions,))}
    cheat = env("btt", seats=2, seat=1, opponents=lambda observation, mask: int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(RLError, match="mask"):
        cheat.reset(seed=1)


def test_only_in_process_opponents_are_offered() -> None:
    with pytest.raises(RLError, match="subprocess"):
        env("btt", opponents="mcts")
    with pytest.raises(RLError, match="one for each"):
        env("btt", seats=3, opponents=["random"])
    with pytest.raises(RLError, match="seat 2"):
        env("btt", seat=2, seats=2)


def test_an_illegal_id_is_a_loss_by_default_or_raises_and_changes_nothing() -> None:
    e = env("btt", seats=3)
    obs, _ = e.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = e.step(bad)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"]["action"] == bad and not obs["action_mask"].any()
    strict = env("btt", seats=2, illegal_action="raise")
    obs, _ = strict.reset(seed=1)
    before = strict.position.describe()
    with pytest.raises(RLError, match="not legal"):
        strict.step(bad)
    assert strict.position.describe() == before
    strict.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_the_tree_render_shows_the_learners_hand_only() -> None:
    e = env("the-tree", seats=3, seat=1, render_mode="ansi")
    e.reset(seed=5)
    text = str(e.render())
    state = e.position.state
    assert text.startswith("seat 1's view")
    assert " ".join(sorted(state.observation(1)["hand"])) in text
    for other in (0, 2):
        assert "(hidden)" in next(line for line in text.split("\n") if f"seat {other} [" in line)


@pytest.mark.parametrize("vector", ["SyncVectorEnv", "AsyncVectorEnv"])
def test_two_envs_step_under_a_vector_env(vector: str) -> None:
    make = partial(env, "btt", seats=2, opponents="greedy")
    v = getattr(gymnasium.vector, vector)([make, make])
    try:
        obs, _ = v.reset(seed=7)
        assert obs["observation"].shape == (2, 302) and obs["action_mask"].shape == (2, 377)
        rng = np.random.default_rng(7)
        ended = 0
        for _ in range(20):  # past the end of a game (16 decisions): next-step autoreset
            actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]])
            obs, rewards, terminated, truncated, _ = v.step(actions)
            ended += int(terminated.sum())
            assert set(rewards[terminated]) <= {-1.0, 0.0, 1.0}
        assert ended == 2
    finally:
        v.close()
    assert v.closed
    if vector == "AsyncVectorEnv":
        assert not any(process.is_alive() for process in v.processes)
