"""Void games in the standings: a game voided by an error of the arena is replayed and
never scored, so each bot's count of voided attempts is shown, and a bot at more than
a few of them is named under the league's table (its play may provoke the error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.league.standings import MANY_VOIDS, compute_standings, leaderboard_rows, to_csv, void_warnings
from arena.league.store import StoredGame
from arena.records.record import Ply
from tests.helpers.cli import run_cli

LEAGUE = """
name = "voids"
game = "btt"
seed = 3
concurrency = 1
games_per_pairing = 2
infrastructure_retries = 0
bots = [
  { name = "a", command = "random" },
  { name = "b", command = "random" },
  { name = "trouble", command = "greedy" },
]
[time]
per_move = "2s"
"""


def test_void_attempts_count_for_every_bot_seated_and_many_name_the_bot() -> None:
    games = [StoredGame(0, 0, (0, 1), 1, (1, 2), None, (), "normal", 3)]
    voids = [((0, 2), 2), ((1, 2), MANY_VOIDS - 1)]
    standings = compute_standings(["a", "b", "c"], 2, games, voids=voids)
    counts = {row.name: row.voids for row in standings.rows}
    assert counts == {"a": 2, "b": MANY_VOIDS - 1, "c": MANY_VOIDS + 1}
    assert [w.split(":")[0] for w in void_warnings(standings)] == ["c"]
    header, lines = leaderboard_rows(standings)
    assert header[-1] == "void" and {line[1]: line[-1] for line in lines} == {"a": "2", "b": "2", "c": "4"}
    assert to_csv(standings).splitlines()[0].endswith(",void")


def test_without_void_games_the_table_has_no_void_column() -> None:
    games = [StoredGame(0, 0, (0, 1), 1, (1, 2), None, (), "normal", 3)]
    standings = compute_standings(["a", "b"], 2, games)
    assert "void" not in leaderboard_rows(standings)[0] and void_warnings(standings) == []


def test_a_league_names_the_bot_whose_games_the_arena_keeps_voiding(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.referee import referee

    original = referee.Referee._record

    def fail_at_trouble(self: referee.Referee, ply: Ply) -> None:
        if len(self.plies) == 3 and any(p.name == "trouble" for p in self.players):
            raise RuntimeError("an error only this bot's games meet")
        original(self, ply)

    monkeypatch.setattr(referee.Referee, "_record", fail_at_trouble)
    path = tmp_path / "voids.toml"
    path.write_text(LEAGUE)
    result = run_cli("league", "run", str(path), "-q")
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert "trouble: 4 attempts at its games were voided by an error of the arena" in said
    assert "a: " not in said and "b: " not in said
    table = json.loads(run_cli("league", "table", str(path), "-f", "json").output)
    assert {row["bot"]: row["void"] for row in table["standings"]} == {"a": 2, "b": 2, "trouble": 4}
    assert table["games"] == 2 and len(table["warnings"]) == 1
    from arena.league.config import load_league
    from arena.web.live import LeagueResults

    live = LeagueResults(load_league(path)).summary()["standings"]  # the live page's table counts them too
    void = live["headers"].index("void")
    assert {row[1]: row[void] for row in live["rows"]} == {"a": "2", "b": "2", "trouble": "4"}
