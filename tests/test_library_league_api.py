"""`arena.league.run(path)` runs a league file from Python as `arena league run` does
(the same store: resumable, and a league that grows plays only its new games) and
returns its standings; `arena.league.table(path)` gives them without playing. Both live
in the session layer and are reached from arena.league lazily, so the league layer
imports nothing above it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import arena
import arena.league
from arena.league.config import load_league
from arena.league.standings import Standings
from arena.session.league import league_table, run_league

LEAGUE = """
name = "tiny"
game = "btt"
seed = 3
concurrency = 1
games_per_pairing = {games}
bots = [
  {{ name = "first", command = "random" }},
  {{ name = "second", command = "random" }},
]
[time]
per_move = "2s"
"""


def test_a_league_runs_from_python_and_resumes_where_it_stands(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(LEAGUE.format(games=2))
    with pytest.raises(arena.SetupError, match="tiny has not started"):
        arena.league.table(path)
    lines: list[str] = []
    standings = arena.league.run(path, on_progress=lines.append)
    assert isinstance(standings, Standings)
    assert standings.games == 2 and sorted(standings.names) == ["first", "second"]
    assert len(lines) == 2
    assert load_league(path).database.is_file()

    again: list[str] = []
    assert arena.league.run(path, on_progress=again.append).games == 2 and again == []  # nothing left to play

    path.write_text(LEAGUE.format(games=4))  # the league grows: only the new games are played
    with pytest.warns(RuntimeWarning, match="new game"):
        grown = arena.league.run(path, on_progress=again.append)
    assert grown.games == 4 and len(again) == 2
    assert arena.league.table(path).games == 4


def test_a_concurrency_above_the_cores_is_refused_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "wide.toml"
    path.write_text(LEAGUE.format(games=2).replace("concurrency = 1", "concurrency = 1000"))
    with pytest.raises(arena.SetupError, match="force_concurrency=True"):
        arena.league.run(path)


def test_the_league_names_are_the_session_layers_reached_lazily() -> None:
    assert arena.league.run is run_league and arena.league.table is league_table
    assert {"run", "table"} <= set(dir(arena.league))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = arena.league.nothing
    code = "import sys, arena.league.config; print('arena.session.league' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]
