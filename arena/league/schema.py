"""The database's schema, version by version, and the steps from each to the next.

Schema 1 is what arenas before versioned databases wrote (`user_version` 0): meta,
schedule, games and, in all but the oldest, void. Schema 2 lets a league grow: a
roster (`bots`: every bot that ever took part, numbered in the order it joined, so a
stored game's seats keep naming the same bots when the league file adds or removes
some) and each scheduled game's place in its table (`schedule.place`: which game of
the table it is, which fixes its seats and seed).

To change the schema: raise SCHEMA_VERSION, give TABLES the new layout, add a step
from the previous version to STEPS, and a test that a database of the previous
version upgrades.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

SCHEMA_VERSION = 2
"""The schema this arena writes, and the newest it reads."""

TABLES = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "bots": "CREATE TABLE bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    "schedule": """CREATE TABLE schedule (
        idx INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, seats TEXT NOT NULL,
        seed INTEGER NOT NULL, round TEXT NOT NULL, place INTEGER NOT NULL)""",
    "games": """CREATE TABLE games (
        idx INTEGER PRIMARY KEY REFERENCES schedule(idx), ranks TEXT NOT NULL, scores TEXT,
        faults TEXT NOT NULL, termination TEXT NOT NULL, plies INTEGER NOT NULL,
        record TEXT NOT NULL, finished TEXT NOT NULL)""",
    "void": """CREATE TABLE void (
        idx INTEGER PRIMARY KEY REFERENCES schedule(idx), attempts INTEGER NOT NULL,
        error TEXT NOT NULL, last TEXT NOT NULL)""",
}
"""This arena's tables. `bots` is the roster (schedule.seats holds its ids); `void`
counts the attempts at games stopped by the arena's own errors (never scored)."""

_VERSION_1 = {"meta", "schedule", "games", "void"}


def required_tables(version: int) -> set[str]:
    """The tables a database of `version` must hold."""
    return {"meta", "schedule", "games"} if version == 1 else set(TABLES)


def known_tables(version: int) -> set[str]:
    """The tables a database of `version` may hold (any other makes it not ours)."""
    return set(_VERSION_1) if version == 1 else set(TABLES)


def _one_to_two(db: sqlite3.Connection) -> None:
    """The roster from the stored identity's bot names (their order numbered the seats),
    and each game's place in its table from the schedule's order (a table's games were
    scheduled one after the other)."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "void" not in tables:  # a league started before void games were counted
        db.execute(TABLES["void"])
    db.execute(TABLES["bots"])
    db.execute("ALTER TABLE schedule ADD COLUMN place INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE schedule SET place = (SELECT COUNT(*) FROM schedule AS earlier "
               "WHERE earlier.tbl = schedule.tbl AND earlier.idx < schedule.idx)")
    row = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
    names = json.loads(row[0]).get("bots", []) if row is not None else []
    db.executemany("INSERT INTO bots (id, name) VALUES (?, ?)", list(enumerate(names)))


STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _one_to_two}
"""The step from each schema version to the next."""


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Every step from `version` to SCHEMA_VERSION, inside the caller's transaction."""
    while version < SCHEMA_VERSION:
        STEPS[version](db)
        version += 1
