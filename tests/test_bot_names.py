"""What a person who mistypes a bot's name is told: the near miss, and every shipped
name with the games it plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.process.botnames import BotNameError, names_help, resolve_bot
from tests.helpers.cli import run_cli


def test_a_typo_of_a_shipped_name_gets_did_you_mean_and_every_name() -> None:
    result = run_cli("play", "btt", "random", "gredy")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert text.startswith("error: 'gredy' is not a shipped bot nor a command found on PATH: did you mean greedy?")
    for name in ("random", "random-js", "mcts", "greedy", "zoo/NAME"):
        assert name in text
    # search has no btt version: it is named, with the games it plays
    assert "search has no btt version (it plays blox, roots, the-tree, treeblox)" in text


def test_every_shipped_name_is_listed_for_a_game_that_has_them_all() -> None:
    text = names_help("roots")
    assert text.startswith("Shipped bots for roots: random, random-js, mcts")
    assert "greedy, search;" in text and "has no" not in text


def test_no_suggestion_for_a_name_far_from_every_bot() -> None:
    with pytest.raises(BotNameError) as caught:
        resolve_bot("xylophone-engine-9", "btt")
    assert "did you mean" not in str(caught.value)
    assert "Shipped bots for btt" in str(caught.value)


def test_a_registry_name_is_suggested_too(tmp_path: Path) -> None:
    registry = tmp_path / "bots.toml"
    registry.write_text('[alphabot]\ncommand = "random"\n')
    result = run_cli("play", "btt", "random", "alphabott", "--bots", str(registry))
    assert result.exit_code == 2
    assert "did you mean alphabot?" in " ".join(result.output.split())


def test_a_per_game_name_without_a_version_for_the_game_says_where_it_plays() -> None:
    with pytest.raises(BotNameError, match="there is no search bot for btt.*it plays blox, roots"):
        resolve_bot("search", "btt")
