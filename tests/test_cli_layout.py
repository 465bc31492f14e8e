"""The command line at 80 columns and its usage errors: every command's help readable in
a terminal of 80 columns (descriptions not squeezed, nothing cut), usage errors one
`error:` line with exit code 2, and shell completion switched on."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()
NARROW = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}

COMMANDS = [["games"], ["legal"], ["perft"], ["play"], ["replay"], ["verify"], ["demo"], ["bench"], ["doctor"],
            ["league"], ["league", "run"], ["league", "table"], ["league", "serve"], ["serve"], ["match"],
            ["check"], []]

OPTION_ROW = re.compile(r"^│ (?:\*\s+)?(--[a-z-]+|[A-Z][A-Z.]*)")


def help_text(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env=NARROW)
    assert result.exit_code == 0, result.output
    return result.output


def description_columns(text: str) -> list[int]:
    """Where each option's description starts, in columns."""
    starts = []
    for line in text.splitlines():
        match = OPTION_ROW.match(line)
        if match is None:
            continue
        rest = line[1:].rstrip("│").rstrip()
        words = re.finditer(r"\S+", rest)
        tokens = [(m.start() + 1, m.group()) for m in words]
        # the description is the first word after the option's names and metavar
        for column, token in tokens[1:]:
            if token[0].isupper() and not token.isupper() or token[0] in "(\"'":
                starts.append(column)
                break
    return starts


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "arena")
def test_every_help_fits_80_columns_without_cutting_anything(command: list[str]) -> None:
    text = help_text(*command)
    for line in text.splitlines():
        assert len(line) <= 80, line
    assert "…" not in text  # rich's mark of a cut cell
    assert "<int" not in text and "<bool>" not in text and "<str>" not in text


def test_play_help_gives_descriptions_room_at_80_columns() -> None:
    text = help_text("play")
    starts = description_columns(text)
    assert len(starts) > 20
    # Each description starts left of column 40: at least 38 characters of text a line
    # (Typer's type column squeezed them into about 21).
    assert max(starts) < 40, (max(starts), text)
    for panel in ("Seeds", "Time", "Openings"):
        assert f"─ {panel} ─" in text


@pytest.mark.parametrize("args, words", [
    (["play", "btt", "random", "greedy", "--games", "0"], ["--games", "greater than or equal to 1"]),
    (["play"], ["missing argument GAME"]),
    (["play", "btt", "random", "--gams", "3"], ["no such option: --gams", "--games"]),
    (["match", "a", "b", "--game", "btt", "-n", "1"], ["--games", "2"]),
    (["play", "btt", "random", "--seed", "x"], ["--seed", "integer"]),
    (["league", "run"], ["missing argument LEAGUE.toml"]),
])
def test_usage_errors_are_one_error_line_and_exit_2(args: list[str], words: list[str]) -> None:
    result = runner.invoke(app, args, env=NARROW)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and "╭" not in result.output
    for word in words:
        assert word in lines[0]
    assert "--help" in lines[0]  # where to read more


def test_shell_completion_is_switched_on() -> None:
    assert "--install-completion" in help_text()
    result = runner.invoke(app, [], env={"_ARENA_COMPLETE": "complete_bash", "COMP_WORDS": "arena pl",
                                         "COMP_CWORD": "1"}, prog_name="arena")
    assert result.output.split() == ["play"]
    result = runner.invoke(app, [], env={"_ARENA_COMPLETE": "complete_bash", "COMP_WORDS": "arena play btt --gam",
                                         "COMP_CWORD": "3"}, prog_name="arena")
    assert result.output.split() == ["--games"]
