"""What the arena prints of others' text (a bot's lines, a bot's name, a record's tags)
is printed as it is: "[/x]" is not Rich markup, so it never ends a command in a
MarkupError traceback, and "arena[rl]" keeps its brackets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.cli.common import fail
from tests.helpers.cli import run_cli


def test_a_bot_name_that_looks_like_markup_is_named_as_it_is() -> None:
    result = run_cli("play", "btt", "gredy[/x]", "random")
    assert result.exit_code == 2, result.output
    assert "'gredy[/x]' does not exist" in " ".join(result.output.split())


def test_a_bots_lines_that_look_like_markup_are_quoted_by_check(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("import sys\nprint('[/oops] hello [bold]', flush=True)\nsys.stdin.read()\n")
    result = run_cli("check", f"{sys.executable} {bot}", "--no-sandbox")
    assert result.exit_code == 1, result.output
    assert "[/oops] hello [bold]" in result.output and "Traceback" not in result.output


def test_an_error_keeps_its_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_cli("replay", "no[such]/file[/x].pgn")
    assert result.exit_code == 2, result.output
    assert "no[such]/file[/x].pgn" in " ".join(result.output.split())
    capsys.readouterr()
    assert fail("the mcts bot needs the rl extra: pip install 'arena[rl]'").exit_code == 2
    assert "pip install 'arena[rl]'" in capsys.readouterr().err
