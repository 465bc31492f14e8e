"""Leagues: the file's checks, balanced schedules, the store, runs and their tables."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from arena.league.config import LeagueFileError, load_league
from arena.league.runner import open_league
from arena.league.schedule import build_schedule, work_units
from arena.records.files import read_record_file
from arena.records.replay import verify
from tests.helpers.cli import run_cli


def write_league(tmp_path: Path, body: str, name: str = "league.toml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


BASIC = """
name = "test league"
game = "btt"
seed = 3
concurrency = 2
games_per_pairing = {games}
bots = [
  {{ name = "random", command = "random" }},
  {{ name = "greedy", command = "greedy" }},
  {{ name = "random-b", command = "random" }},
]
[time]
per_move = "2s"
"""


# ---- the league file --------------------------------------------------------------------


@pytest.mark.parametrize(("body", "expected"), [
    ('name = "x"\ngame = "btt"\nbots = []\ncolour = 1', ["colour", "unknown key"]),
    ('game = "btt"\nbots = []', ["missing required key", "name"]),
    ('name = "x"\ngame = "btt"\nbots = [{ name = "a", command = 3 }]', ["bots[0].command", "expected"]),
    ('name = "x"\ngame = "chess"\nbots = []', ["game:", "unknown game", "btt"]),
    ('name = "x"\ngame = "btt"\ngames_per_pairing = 3\nbots = [{name="a", command="random"},'
     '{name="b", command="random"}]', ["games_per_pairing", "even", "try 2"]),
    ('name = "x"\ngame = "btt"\nbots = [{name="a", command="random"}, {name="a", command="greedy"}]',
     ["bots[1].name", "twice"]),
    ('name = "x"\ngame = "btt"\nbots = [{name="a", command="random"}, {name="b", command="./nothere.py"}]',
     ["bots[1].command", "does not exist"]),
    ('name = "x"\ngame = "btt"\nbots = [{name="a", command="random"}, {name="b", command="no-such-program-x"}]',
     ["bots[1].command", "not a shipped bot", "PATH"]),
    ('name = "x"\ngame = "btt"\nschedule = "gauntlet"\ngauntlet = "c"\nbots = [{name="a", command="random"},'
     '{name="b", command="random"}]', ["gauntlet", "'c' is not a bot"]),
    ('name = "x"\ngame = "btt"\nseats = 7\nbots = [{name="a", command="random"}]', ["seats", "2 to 6"]),
    ('name = "x"\ngame = "btt"\noptions = { board = "round" }\nbots = [{name="a", command="random"}]',
     ["options", "board"]),
    ('name = "x"\ngame = "btt"\nbots = [{name="a", command="random"}, {name="b", command="random"}]\n'
     '[time]\nper_move = "fast"', ["time", "not a time"]),
    ('name = "x" y', ["not valid TOML", "line 1"]),
    ('name = "x"\ngame = "btt"\nseats = 3\nbots = [{name="a", command="random"}, {name="b", command="random"}]',
     ["3-seat league needs at least 3 bots"]),
])
def test_bad_league_files_name_the_key_and_the_fix(tmp_path: Path, body: str, expected: list[str]) -> None:
    path = write_league(tmp_path, body)
    with pytest.raises(LeagueFileError) as info:
        load_league(path)
    for fragment in expected:
        assert fragment in str(info.value)
    result = run_cli("league", "run", str(path))
    assert result.exit_code == 2
    assert "error:" in result.output


def test_a_missing_league_file_is_named(tmp_path: Path) -> None:
    result = run_cli("league", "run", str(tmp_path / "nope.toml"))
    assert result.exit_code == 2
    assert "no such league file" in result.output


def test_league_defaults(tmp_path: Path) -> None:
    league = load_league(write_league(tmp_path, 'name = "x"\ngame = "btt"\nbots = [{name="a", command="random"},'
                                                '{name="b", command="greedy", env={DEPTH="2"}}]'))
    assert league.seats == 2 and league.games_per_pairing == 2
    assert league.output == tmp_path / "league"
    assert league.bots[1].env == {"DEPTH": "2"}
    # A shipped bot runs in its own folder (its sandbox never shows the league's).
    assert league.bots[1].cwd is not None and Path(league.bots[1].cwd, "btt_greedy.py").is_file()
    assert league.time_control.per_move_s == 5.0


# ---- schedules --------------------------------------------------------------------------


def league_with(tmp_path: Path, bots: int, seats: int, games: int, schedule: str = "round-robin") -> Path:
    entries = ",\n".join(f'{{ name = "b{i}", command = "random" }}' for i in range(bots))
    return write_league(tmp_path, f'name = "s"\ngame = "btt"\nseats = {seats}\nschedule = "{schedule}"\n'
                                  f"games_per_pairing = {games}\nbots = [\n{entries}\n]\n")


@pytest.mark.parametrize(("bots", "seats", "games"), [(4, 2, 4), (5, 3, 3), (5, 4, 8), (6, 2, 2), (4, 4, 4)])
def test_round_robin_is_balanced(tmp_path: Path, bots: int, seats: int, games: int) -> None:
    schedule = build_schedule(load_league(league_with(tmp_path, bots, seats, games)))
    meetings: Counter[tuple[int, int]] = Counter()
    seat_counts: Counter[tuple[int, int]] = Counter()
    for game in schedule:
        assert len(set(game.seats)) == seats
        for a, b in combinations(sorted(game.seats), 2):
            meetings[a, b] += 1
        for seat, bot in enumerate(game.seats):
            seat_counts[bot, seat] += 1
    assert set(meetings) == set(combinations(range(bots), 2))  # every bot meets every other
    assert len(set(meetings.values())) == 1  # equally often
    assert len(set(seat_counts.values())) == 1 and len(seat_counts) == bots * seats  # every seat equally
    assert [g.index for g in schedule] == list(range(len(schedule)))


def test_cycles_share_a_seed_and_rotate_seats(tmp_path: Path) -> None:
    schedule = build_schedule(load_league(league_with(tmp_path, 3, 3, 6)))
    assert [g.seats for g in schedule] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)] * 2
    assert len({g.seed for g in schedule[:3]}) == 1 and schedule[0].seed != schedule[3].seed


def test_gauntlet_puts_its_bot_in_every_game(tmp_path: Path) -> None:
    path = league_with(tmp_path, 4, 2, 2, schedule="gauntlet")
    path.write_text(path.read_text().replace('schedule = "gauntlet"', 'schedule = "gauntlet"\ngauntlet = "b2"'))
    schedule = build_schedule(load_league(path))
    assert len(schedule) == 3 * 2
    assert all(2 in g.seats for g in schedule)
    assert Counter(g.seats.index(2) for g in schedule) == {0: 3, 1: 3}


def test_work_units_are_rotation_cycles_of_one_table(tmp_path: Path) -> None:
    schedule = build_schedule(load_league(league_with(tmp_path, 2, 2, 20)))
    units = work_units(schedule, seats=2, concurrency=4)
    assert len(units) == 10 and all(len(unit) == 2 and len({g.cycle for g in unit}) == 1 for unit in units)
    assert sorted(g.index for unit in units for g in unit) == list(range(20))


@pytest.mark.parametrize(("bots", "seats", "games"), [(5, 2, 12), (6, 2, 8), (5, 3, 6), (4, 2, 10)])
def test_a_league_stopped_anywhere_has_given_every_bot_about_as_many_games(tmp_path: Path, bots: int, seats: int,
                                                                           games: int) -> None:
    """Round by round across the tables: at any point of the playing order every bot
    has played within one table's cycle of every other (5 bots at 34 of 120 games: none
    at 0, as table-by-table play left one)."""
    league = load_league(league_with(tmp_path, bots, seats, games))
    order = [g for unit in work_units(build_schedule(league), seats, 2) for g in unit]
    assert sorted(g.index for g in order) == list(range(len(order)))
    counts = dict.fromkeys(range(bots), 0)
    for done, game in enumerate(order, 1):
        for bot in game.seats:
            counts[bot] += 1
        if done % seats == 0:  # a whole unit's games
            assert max(counts.values()) - min(counts.values()) <= 2 * seats, (done, counts)


# ---- running, storing, tables -----------------------------------------------------------


def test_a_league_runs_stores_every_game_once_and_prints_its_tables(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The league's key, so the random bots' seeds, fixed: greedy can lose a game to a lucky random.
    monkeypatch.setenv("ARENA_SECRET", "5e" * 16)
    path = write_league(tmp_path, BASIC.format(games=4))
    result = run_cli("league", "run", str(path))
    assert result.exit_code == 0, result.output
    league = load_league(path)
    db = sqlite3.connect(league.database)
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games").fetchone() == (12, 12)
    records = read_record_file(league.records)
    assert len(records) == 12
    assert all(verify(r) == [] for r in records)
    assert {r.tags["Event"] for r in records} == {"test league"}
    assert "greedy" in result.output and "head to head" in result.output

    again = run_cli("league", "run", str(path))
    assert again.exit_code == 0 and "already played" in again.output
    assert len(read_record_file(league.records)) == 12

    table = run_cli("league", "table", str(path), "--format", "json")
    data = json.loads(table.output)
    assert data["games"] == 12
    assert data["standings"][0]["bot"] == "greedy" and data["standings"][0]["wins"] == 8
    assert sum(row["games"] for row in data["standings"]) == 24
    assert data["head_to_head"]["greedy"]["random"]["games"] == 4
    rows = list(csv.DictReader(io.StringIO(run_cli("league", "table", str(path), "-f", "csv").output)))
    assert [r["rank"] for r in rows] == ["1", "2", "3"] and rows[0]["rating_kind"] == "Elo"
    markdown = run_cli("league", "table", str(path), "-f", "markdown").output
    assert markdown.startswith("## test league") and "| 1 | greedy |" in markdown


def test_three_seat_league_uses_openskill_and_mean_placing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET", "5e" * 16)  # the league's key, so the random bots' seeds, fixed
    path = league_with(tmp_path, 3, 3, 3)
    path.write_text(path.read_text().replace('{ name = "b1", command = "random" }',
                                             '{ name = "b1", command = "greedy" }'))
    assert run_cli("league", "run", str(path), "-q").exit_code == 0
    data = json.loads(run_cli("league", "table", str(path), "-f", "json").output)
    assert data["rating"] == "OpenSkill"
    assert data["standings"][0]["bot"] == "b1" and data["standings"][0]["mean_place"] == 1.0


def test_a_changed_league_file_is_refused_with_the_key(tmp_path: Path) -> None:
    path = write_league(tmp_path, BASIC.format(games=2))
    league = load_league(path)
    store, _ = open_league(league)
    store.close()
    path.write_text(BASIC.format(games=2).replace("seed = 3", "seed = 4"))  # games_per_pairing may grow
    result = run_cli("league", "run", str(path))
    assert result.exit_code == 2
    assert "'seed' changed" in result.output and "another output folder" in result.output


def test_the_record_file_is_rebuilt_from_the_database(tmp_path: Path) -> None:
    path = write_league(tmp_path, BASIC.format(games=2))
    assert run_cli("league", "run", str(path), "-q").exit_code == 0
    league = load_league(path)
    text = league.records.read_text()
    league.records.write_text(text[: len(text) // 2])  # torn by a crash
    store, _ = open_league(league)
    store.close()
    assert league.records.read_text() == text


def test_a_finished_game_is_never_stored_twice(tmp_path: Path) -> None:
    path = write_league(tmp_path, BASIC.format(games=2))
    assert run_cli("league", "run", str(path), "-q").exit_code == 0
    league = load_league(path)
    store, schedule = open_league(league)
    before = store.games()[0]
    record = read_record_file(league.records)[0]
    flipped = tuple(3 - r for r in before.ranks)
    assert not store.save_game(schedule[0], flipped, (0.0, 0.0), [], "normal", record)
    assert store.games()[0] == before
    store.close()


def test_table_before_the_league_started(tmp_path: Path) -> None:
    path = write_league(tmp_path, BASIC.format(games=2))
    result = run_cli("league", "table", str(path))
    assert result.exit_code == 2 and "has not started" in result.output


def test_the_documented_example_league_loads_and_runs(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "leagues.md").read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    shutil.copytree(Path(__file__).resolve().parent.parent / "bots", tmp_path / "bots",
                    ignore=shutil.ignore_patterns("__pycache__", "zoo", "openings"))
    path = write_league(tmp_path, example.replace('games_per_pairing = 4', 'games_per_pairing = 2'), "night.toml")
    league = load_league(path)
    assert [b.name for b in league.bots] == ["random", "greedy", "greedy-script"]
    assert league.output == tmp_path / "night" and league.time_control.per_move_s == 0.2
    result = run_cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(league.records)
    assert len(records) == 6 and all(r.tags["Termination"] == "normal" for r in records)  # every bot started
