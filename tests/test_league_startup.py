"""A league whose bot never starts stops before its first game with the message
`arena play` gives ("NAME never started ...; check its command"), exit 2, and no game
stored (#39): not a league played out on that bot's forfeits."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

import arena.league
from arena.session.setup import SetupError
from tests.helpers.cli import run_cli_cleanly

LEAGUE = """
name = "broken"
game = "btt"
games_per_pairing = 2
bots = [
  {{ name = "fine", command = "random" }},
  {{ name = "dead", command = "{python} -c 'import sys; print(\\"no such model\\", file=sys.stderr); sys.exit(3)'" }},
]
[time]
per_move = "1s"
"""


def write(tmp_path: Path) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.format(python=sys.executable))
    return path


def stored(tmp_path: Path) -> int:
    database = tmp_path / "league" / "league.sqlite"
    with sqlite3.connect(database) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


def test_the_command_stops_before_the_first_game_naming_the_bot(tmp_path: Path) -> None:
    result = run_cli_cleanly("league", "run", str(write(tmp_path)), "-q", env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "dead never started" in text and "check its command" in text and "no game was played" in text
    assert "fine never started" not in text
    log = tmp_path / "league" / "logs" / "startup" / "dead.log"
    assert str(log) in text and "no such model" in log.read_text()
    assert stored(tmp_path) == 0


def test_the_library_raises_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="dead never started"):
        arena.league.run(write(tmp_path))
    assert stored(tmp_path) == 0
