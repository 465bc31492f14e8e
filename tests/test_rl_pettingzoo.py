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


def an_illegal_id(e: Any) -> int:
    """An id the agent to move may not choose now."""
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])


def test_an_illegal_id_raises_by_default_and_leaves_the_env_as_it_was() -> None:
    from arena.rl.spec import RLError

    e = env("btt", players=2)
    e.reset(seed=3)
    before = (e.agent_selection, e.position.describe(), e.position.log, dict(e._cumulative_rewards))
    with pytest.raises(RLError, match="illegal_action='loss'"):
        e.step(an_illegal_id(e))
    assert (e.agent_selection, e.position.describe(), e.position.log, dict(e._cumulative_rewards)) == before
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))  # it plays on
    assert e.position.log != before[2]


@pytest.mark.parametrize("game,players", [("btt", 3), ("the-tree", 2), ("roots", 2)])
def test_an_illegal_id_ends_the_game_as_the_offenders_loss_with_loss(game: str, players: int) -> None:
    options: dict[str, Any] = {"radius": 3} if game == "roots" else {}
    e = env(game, players=players, illegal_action="loss", **options)
    e.reset(seed=5)
    offender = e.agent_selection
    e.step(an_illegal_id(e))
    others = [a for a in e.possible_agents if a != offender]
    assert e._cumulative_rewards[offender] == -1.0
    assert all(e._cumulative_rewards[a] == pytest.approx(1 / (players - 1)) for a in others)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    for agent in e.possible_agents:
        why = e.infos[agent]["illegal_action"]
        assert why["agent"] == offender and why["action"] >= 0 and why["reason"]
        assert not e.observe(agent)["action_mask"].any()
    seen = {}
    for agent in e.agent_iter():  # each agent hears its reward once, then leaves
        _, reward, terminated, truncated, _ = e.last()
        assert terminated and not truncated
        seen[agent] = reward
        e.step(None)
    assert seen == {offender: -1.0, **{a: pytest.approx(1 / (players - 1)) for a in others}}
    assert "lost by an illegal action" in str(env_render(e))


def env_render(e: Any) -> str | None:
    e.render_mode = "ansi"
    return e.render()  # type: ignore[no-any-return]


def test_a_solo_game_lost_by_an_illegal_id_gives_minus_one_and_a_new_game_forgets_it() -> None:
    e = env("the-tree", players=1, illegal_action="loss")
    e.reset(seed=1)
    e.step(an_illegal_id(e))
    assert e._cumulative_rewards == {"player_0": -1.0}
    e.reset(seed=1)
    assert e.forfeited is None and e.observe("player_0")["action_mask"].any()


def test_an_unknown_illegal_action_or_render_seat_is_refused() -> None:
    from arena.rl.spec import RLError

    with pytest.raises(RLError, match="illegal_action"):
        env("btt", illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(RLError, match="render_seat"):
        env("btt", players=2, render_seat=2)


def test_the_tree_render_shows_only_what_one_seat_may_see() -> None:
    """The text depends on the seat's observation alone: a deal that differs only in
    what seat 0 cannot see draws the same for seat 0; seat 1's own text differs."""
    import random

    e = env("the-tree", players=2, render_mode="ansi")
    e.reset(seed=2)
    for _ in range(3):  # a few tiles on the tree
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    state = e.position.state
    mover = e.agent_selection
    seat = int(mover.split("_")[1])
    other = 1 - seat
    text = str(e.render())
    assert text.startswith(f"seat {seat}'s view")
    own = " ".join(sorted(state.observation(seat)["hand"]))
    assert own in text
    other_line = next(line for line in text.split("\n") if f"seat {other} [" in line)
    assert "(hidden)" in other_line and "supply" in text and "face down" in text
    assert "top first" not in text
    twin = e.position.resample(seat, random.Random(9))
    assert twin.state.observation(seat) == state.observation(seat)
    assert twin.state.observation(other) != state.observation(other)  # another deal of the unseen tiles
    e.position, original = twin, e.position
    assert e.render() == text
    e.position = original
    e.render_seat = other
    assert e.render() != text and str(e.render()).startswith(f"seat {other}'s view")


def test_render_follows_the_agent_to_move_and_human_mode_prints(capsys: pytest.CaptureFixture[str]) -> None:
    e = env("btt", players=2, render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert capsys.readouterr().out.startswith("seat 0's view")
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))  # human mode renders each step
    assert capsys.readouterr().out.startswith("seat 1's view")
