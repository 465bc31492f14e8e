"""The tiny settings (arena/rl/tiny.py): one per game, made of options the game
declares, and each plays a random game to its end through the environments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import arena.rl.tiny as tiny_module
from arena import games
from arena.rl import TINY, RLError, tiny_setting

pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")

from arena.rl.pettingzoo import env  # noqa: E402


def test_every_game_has_a_tiny_setting_made_of_its_own_options() -> None:
    assert set(TINY) == set(games.GAME_IDS)
    for game_id, setting in TINY.items():
        game = games.get(game_id)
        assert setting.game == game_id and setting.why
        assert set(setting.options) <= {option.name for option in game.options}
        assert game.min_seats <= setting.seats <= game.max_seats
        assert tiny_setting(game_id) == setting


def test_a_tiny_setting_is_smaller_than_the_default() -> None:
    from arena.rl import codec

    for game_id, setting in TINY.items():
        small = codec(game_id, setting.seats, setting.options)
        default = codec(game_id, setting.seats, {})
        assert small.num_actions <= default.num_actions
        assert small.pieces.size <= default.pieces.size
    assert codec("blox", 2, TINY["blox"].options).pieces.size < codec("blox", 2, {}).pieces.size


@pytest.mark.parametrize("game_id", sorted(TINY))
def test_each_tiny_setting_plays_a_random_game_to_the_end(game_id: str) -> None:
    setting = tiny_setting(game_id)
    options: dict[str, Any] = dict(setting.options)
    e = env(game_id, players=setting.seats, **options)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    decisions = 0
    rewards: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            rewards[agent] = float(reward)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
        assert decisions <= e.bridge.codec.max_decisions()
    assert e.position.is_terminal()
    assert set(rewards) == set(e.possible_agents)
    assert sum(rewards.values()) == pytest.approx(0.0)


def test_a_game_without_an_entry_gets_its_quick_options_and_fewest_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiny_module, "TINY", {})
    roots = games.get("roots")
    setting = tiny_setting("roots")
    assert (setting.seats, dict(setting.options)) == (roots.min_seats, dict(roots.quick_options))


def test_an_entry_the_game_no_longer_accepts_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiny_module, "TINY", {"btt": tiny_module.Tiny("btt", 2, {"size": "3"})})
    with pytest.raises(RLError, match="no longer fits"):
        tiny_setting("btt")
    with pytest.raises(RLError, match="unknown game"):
        tiny_setting("chess")
