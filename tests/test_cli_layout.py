"""The command line at 80 columns and its usage errors: every command's help readable in
a terminal of 80 columns (descriptions not squeezed, nothing cut), usage errors one
`error:` line with exit code 2, and shell completion switched on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

NARROW = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}

COMMANDS = [["games"], ["legal"], ["perft"], ["play"], ["replay"], ["verify"], ["demo"], ["bench"], ["doctor"],
            ["league"], ["league", "run"], ["league", "table"], ["league", "serve"], ["serve"], ["match"],
            ["check"], ["rerun"], []]

OPTION_ROW = re.compile(r"^│ (?:\*\s+)?(--[a-z-]+|[A-Z][A-Z.]*)")


def help_text(*command: str) -> str:
    result = run_cli(*command, "--help", env=NARROW)
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
    result = run_cli(*args, env=NARROW)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and "╭" not in result.output
    for word in words:
        assert word in lines[0]
    assert "--help" in lines[0]  # where to read more


def test_shell_completion_is_switched_on() -> None:
    assert "--install-completion" in help_text()
    result = run_cli(env={"_ARENA_COMPLETE": "complete_bash", "COMP_WORDS": "arena pl", "COMP_CWORD": "1"},
                     prog_name="arena")
    assert result.output.split() == ["play"]
    result = run_cli(env={"_ARENA_COMPLETE": "complete_bash", "COMP_WORDS": "arena play btt --gam",
                          "COMP_CWORD": "3"}, prog_name="arena")
    assert result.output.split() == ["--games"]


def rendered(*tables: object, width: int = 80) -> str:
    from rich.console import Console

    from arena.cli.common import ArenaConsole

    console = ArenaConsole(width=width, record=True, file=__import__("io").StringIO())
    for table in tables:
        console.print(table)
    text = console.export_text()
    assert isinstance(console, Console)
    return text


def test_a_league_table_at_80_columns_cuts_no_header_and_no_fault() -> None:
    from arena.league.standings import compute_standings, rich_tables
    from arena.league.store import StoredFault, StoredGame

    names = ["greedy", "random", "a-bot-with-a-rather-long-name-indeed", "slowpoke"]
    games = [StoredGame(k, 0, (k % 4, (k + 1) % 4, (k + 2) % 4), k, (1, 2, 3), (9.0, 4.0, 1.0),
                        tuple(StoredFault(2, (k + 2) % 4, "time-out", "late", 3) for _ in range(1) if k % 2),
                        "time-out" if k % 2 else "normal", 30) for k in range(12)]
    board, cross = rich_tables(compute_standings(names, 3, games), "night")
    text = rendered(board, cross)
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    for word in ("OpenSkill", "time-out", "place", "score", "faults"):
        assert word in text
    assert "a-bot-with-a-rather-long-name-indeed" in "".join(text.split())  # folded, not cut


def test_a_wide_table_keeps_every_header_word_whole() -> None:
    from rich.table import Table

    table = Table(title="Decisions per second")
    for header in ("bot", "games at once", "decisions", "decisions/s", "referee CPU/decision", "bare loop RTT",
                   "bare decisions/s (1 pipe)"):
        table.add_column(header, justify="right")
    table.add_row("random (python)", "32", "4096", "4,180", "70 us", "61 us", "16,453")
    text = rendered(table)
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())
    for word in ("decisions/s", "CPU/decision", "decisions/s"):
        assert word in text


def test_doctor_at_80_columns_cuts_no_path(tmp_path: Path) -> None:
    data = tmp_path / "a-data-folder-with-a-long-name" / "deeper"
    result = run_cli("doctor", env={**NARROW, "XDG_DATA_HOME": str(data), "ARENA_SECRET": ""})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    squeezed = "".join(result.output.replace("│", " ").split())
    assert str(data / "arena" / "secret") in squeezed
