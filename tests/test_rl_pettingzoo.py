"""The five games pass PettingZoo's own test suite: api_test, seed_test and
performance_benchmark on every game and seat count (a few hundred steps each here,
thousands under -m slow)."""

from __future__ import annotations

import importlib
import re
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")

from pettingzoo.test import api_test, performance_benchmark, seed_test  # noqa: E402

from arena.rl.pettingzoo import env  # noqa: E402

SMALL_BLOX = {"width": 8, "height": 8}
SETTINGS: list[tuple[str, int, dict[str, Any]]] = (
    [("btt", n, {}) for n in range(2, 7)] + [("btt", 3, {"board": "rect"})]
    + [("treeblox", 2, {})]
    + [("the-tree", n, {}) for n in range(1, 5)]
    + [("roots", 2, {"radius": 3}), ("roots", 2, {})]
    + [("blox", n, SMALL_BLOX) for n in range(2, 5)] + [("blox", 2, {})]
)
IDS = [f"{g}-{n}{''.join(f'-{k}={v}' for k, v in o.items())}" for g, n, o in SETTINGS]


def run_suites(game: str, players: int, options: dict[str, Any], cycles: int) -> None:
    """PettingZoo's api_test and seed_test, `cycles` steps each."""
    api_test(env(game, players=players, **options), num_cycles=cycles)
    seed_test(lambda: env(game, players=players, **options), num_cycles=cycles)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game,players,options", SETTINGS, ids=IDS)
def test_api_and_seed_tests_pass(game: str, players: int, options: dict[str, Any]) -> None:
    run_suites(game, players, options, 40 if game in ("blox", "roots") else 150)


class SteppedClock:
    """Stands in for `time` in the benchmark's module: each reading is a tick later,
    so its five-second loop runs a fixed number of cycles, not a fixed time."""

    def __init__(self, tick: float) -> None:
        self.now = 0.0
        self.tick = tick

    def time(self) -> float:
        self.now += self.tick
        return self.now


def assert_rates_agree(printed: str, players: int) -> None:
    """What performance_benchmark reports holds together: turns and cycles per second
    both measured (above zero), and a cycle (one pass over the seats present) took
    between one and `players` turns, over any length of run on any machine."""
    rates = {m.group(2): float(m.group(1)) for m in re.finditer(r"^(\S+) (turns|cycles) per second$", printed, re.M)}
    assert rates.keys() == {"turns", "cycles"}, printed
    assert rates["turns"] > 0 and rates["cycles"] > 0
    assert 1 - 1e-9 <= rates["turns"] / rates["cycles"] <= players + 1e-9, rates


@pytest.fixture
def short_benchmark(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = importlib.import_module("pettingzoo.test.performance_benchmark")
    monkeypatch.setattr(module, "time", types.SimpleNamespace(time=SteppedClock(5 / 200).time))
    yield


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game,players,options", SETTINGS, ids=IDS)
def test_performance_benchmark_runs(game: str, players: int, options: dict[str, Any], short_benchmark: None,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    performance_benchmark(env(game, players=players, **options))
    printed = capsys.readouterr().out
    assert "turns per second" in printed
    assert_rates_agree(printed, players)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game,players,options", SETTINGS, ids=IDS)
def test_the_suites_for_thousands_of_steps(game: str, players: int, options: dict[str, Any],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run_suites(game, players, options, 300 if game in ("blox", "roots") else 3000)
    capsys.readouterr()
    performance_benchmark(env(game, players=players, **options))  # five seconds on the real clock
    assert_rates_agree(capsys.readouterr().out, players)


def test_a_game_through_the_env_ends_with_rank_rewards_and_masks_only_for_the_mover() -> None:
    e = env("btt", players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    totals = {agent: 0.0 for agent in e.possible_agents}
    steps = 0
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        totals[agent] += float(reward)
        if terminated or truncated:
            e.step(None)
            continue
        mask = observation["action_mask"]
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps == 16 * 3
    ranks = e.position.state.result().ranks
    for seat, agent in enumerate(e.possible_agents):
        beaten = sum(ranks[seat] < r for r in ranks) - sum(ranks[seat] > r for r in ranks)
        assert totals[agent] == beaten / 2


def test_the_same_seed_deals_the_same_tree_and_another_seed_another() -> None:
    hands = []
    for seed in (1, 1, 2):
        e = env("the-tree", players=2)
        e.reset(seed=seed)
        hands.append(e.position.state.observation(0)["hand"])
    assert hands[0] == hands[1] != hands[2]


def test_a_bad_render_mode_and_a_move_for_the_wrong_time_are_refused() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        env("btt", render_mode="rgb_array")
    e = env("btt", render_mode="ansi")
    e.reset(seed=1)
    assert "seat 0" in str(e.render())
    with pytest.raises(ValueError, match="is to move"):
        e.step(None)
