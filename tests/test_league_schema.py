"""The league database's schema version: a database made before versions existed (as
the arena wrote it until now) upgrades in place in one transaction and says so; one
made by a newer arena is refused with the fix, exit 2, its file untouched."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import Result

from arena.league import schema
from arena.league.config import load_league
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli_cleanly as cli

LEAGUE = """
name = "old"
game = "btt"
seed = 3
concurrency = 1
games_per_pairing = 2
bots = [
  { name = "a", command = "random" },
  { name = "b", command = "greedy" },
  { name = "c", command = "random" },
]
[time]
per_move = "2s"
"""

SCHEMA_1 = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE schedule (
        idx INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, seats TEXT NOT NULL,
        seed INTEGER NOT NULL, round TEXT NOT NULL)""",
    """CREATE TABLE games (
        idx INTEGER PRIMARY KEY REFERENCES schedule(idx), ranks TEXT NOT NULL, scores TEXT,
        faults TEXT NOT NULL, termination TEXT NOT NULL, plies INTEGER NOT NULL,
        record TEXT NOT NULL, finished TEXT NOT NULL)""",
]
"""The tables arenas wrote before databases had versions (git history of store.py),
void aside (the oldest had none; the upgrade adds it)."""


def text(result: Result) -> str:
    return " ".join(result.output.split())


def as_schema_1(db_path: Path) -> None:
    """Rewrite a played league's database exactly as an unversioned arena would have
    written it: the old tables, its identity holding the bots and games_per_pairing, the
    seats numbered by the file's bot order, user_version 0."""
    db = sqlite3.connect(db_path)
    with db:
        identity = json.loads(db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()[0])
        identity.update(bots=[n for (n,) in db.execute("SELECT name FROM bots ORDER BY id")], games_per_pairing=2)
        schedule = db.execute("SELECT idx, tbl, seats, seed, round FROM schedule").fetchall()
        games = db.execute("SELECT * FROM games").fetchall()
        meta = [(k, v) for k, v in db.execute("SELECT key, value FROM meta") if k not in ("identity", "kind")]
        for table in ("games", "void", "schedule", "bots", "meta"):
            db.execute(f"DROP TABLE {table}")
        for statement in SCHEMA_1:
            db.execute(statement)
        db.executemany("INSERT INTO meta VALUES (?, ?)", [*meta, ("identity", json.dumps(identity, sort_keys=True))])
        db.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?)", schedule)
        db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)", games)
    db.execute("PRAGMA user_version = 0")
    db.execute("VACUUM")
    db.close()


def played(tmp_path: Path, body: str = LEAGUE) -> Path:
    path = tmp_path / "old.toml"
    path.write_text(body)
    assert cli("league", "run", str(path), "-q").exit_code == 0
    return path


def version_of(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_a_database_of_an_unversioned_arena_upgrades_in_place_and_says_so(tmp_path: Path) -> None:
    path = played(tmp_path)
    league = load_league(path)
    records = league.records.read_bytes()
    as_schema_1(league.database)
    assert version_of(league.database) == 0
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    assert ("was made by an older arena (schema 1); it was upgraded in place to schema 2, every game kept"
            in text(result))
    assert "all 6 games are already played" in text(result)  # nothing lost, nothing replayed
    assert version_of(league.database) == schema.SCHEMA_VERSION == 2
    with sqlite3.connect(league.database) as db:
        assert [n for (n,) in db.execute("SELECT name FROM bots ORDER BY id")] == ["a", "b", "c"]
        places = db.execute("SELECT tbl, place FROM schedule ORDER BY idx").fetchall()
        assert places == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
        assert {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == set(schema.TABLES)
    assert league.records.read_bytes() == records
    again = cli("league", "run", str(path), "-q")
    assert again.exit_code == 0 and "upgraded" not in text(again)  # once


def test_an_upgraded_league_grows_like_a_new_one(tmp_path: Path) -> None:
    path = played(tmp_path)
    league = load_league(path)
    as_schema_1(league.database)
    path.write_text(LEAGUE.replace("games_per_pairing = 2", "games_per_pairing = 4"))
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    assert "6 new game(s) scheduled" in text(result)
    rounds = sorted(r.tags["Round"] for r in read_record_file(league.records))
    assert rounds == sorted(f"{t}.{g}" for t in (1, 2, 3) for g in (1, 2, 3, 4))


def test_an_upgrade_that_fails_leaves_the_old_database_as_it_was(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = played(tmp_path)
    league = load_league(path)
    as_schema_1(league.database)

    def half_done(db: sqlite3.Connection) -> None:
        db.execute(schema.TABLES["bots"])
        raise sqlite3.OperationalError("disk I/O error")  # the power went mid-upgrade

    monkeypatch.setitem(schema.STEPS, 1, half_done)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 2 and "is damaged (disk I/O error)" in text(result)
    assert version_of(league.database) == 0
    with sqlite3.connect(league.database) as db:
        assert "bots" not in {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.mark.parametrize("command", [["league", "run"], ["league", "table"]])
def test_a_database_of_a_newer_arena_is_refused_and_left_as_it_is(tmp_path: Path, command: list[str]) -> None:
    path = played(tmp_path)
    league = load_league(path)
    with sqlite3.connect(league.database) as db:
        db.execute("CREATE TABLE crowns (bot TEXT)")  # whatever a newer schema holds
        db.execute("PRAGMA user_version = 7")
    before = hashlib.sha256(league.database.read_bytes()).hexdigest()
    result = cli(*command, str(path))
    assert result.exit_code == 2
    assert (f"{league.database} was made by a newer arena (schema 7; this arena reads up to 2): upgrade with "
            "`pip install -U arena` and run the command again. The database was left as it is") in text(result)
    assert "not a league's" not in text(result)
    assert hashlib.sha256(league.database.read_bytes()).hexdigest() == before
    assert version_of(league.database) == 7
