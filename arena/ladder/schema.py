"""The ladder database's schema, version by version (SQLite's `user_version`), as the
league's is kept (arena.league.schema): to change it, raise SCHEMA_VERSION, give TABLES
the new layout, add a step from the previous version to STEPS, and a test that a
database of the previous version upgrades.

Schema 1: entrants (a token hash each), their bots, each bot's versions (submitted,
built, checked), the ratings of every version at every table, every finished game
with one row per seat (the rating after it: a bot's history), the void units and the
log of every organiser's and entrant's action.

Beside each version's rating at a table the store keeps running totals, written in the
transaction that stores each game, so the leaderboard reads a few rows per bot and
never counts the games: `ratings.games` and `ratings.wins` (games stored at the table,
rated or not, and those it ranked first in, alone or tied), `fault_totals` (faulted
games by the fault's reason) and, for 2-seat games, `pair_totals`: one row per pair of
versions that met, `a < b`, with the points `a` scored against `b` (a win 1, a tie 0.5)
and their games, what the Elo fit reads. A void unit adds to none of them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA_VERSION = 1

TABLES = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "entrants": """CREATE TABLE entrants (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL,
        created TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0)""",
    "bots": """CREATE TABLE bots (
        id INTEGER PRIMARY KEY, entrant INTEGER NOT NULL REFERENCES entrants(id), name TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL DEFAULT 'active', reason TEXT NOT NULL DEFAULT '',
        chosen INTEGER, fault_streak INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL)""",
    "versions": """CREATE TABLE versions (
        id INTEGER PRIMARY KEY, bot INTEGER NOT NULL REFERENCES bots(id), number INTEGER NOT NULL,
        language TEXT NOT NULL, state TEXT NOT NULL, log TEXT NOT NULL DEFAULT '', submitted TEXT NOT NULL,
        UNIQUE (bot, number))""",
    "ratings": """CREATE TABLE ratings (
        tbl TEXT NOT NULL, version INTEGER NOT NULL REFERENCES versions(id), mu REAL NOT NULL,
        sigma REAL NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tbl, version))""",
    "fault_totals": """CREATE TABLE fault_totals (
        tbl TEXT NOT NULL, version INTEGER NOT NULL REFERENCES versions(id), reason TEXT NOT NULL,
        count INTEGER NOT NULL, PRIMARY KEY (tbl, version, reason)) WITHOUT ROWID""",
    "pair_totals": """CREATE TABLE pair_totals (
        tbl TEXT NOT NULL, a INTEGER NOT NULL REFERENCES versions(id), b INTEGER NOT NULL REFERENCES versions(id),
        points REAL NOT NULL, games INTEGER NOT NULL, PRIMARY KEY (tbl, a, b), CHECK (a < b)) WITHOUT ROWID""",
    "games": """CREATE TABLE games (
        idx INTEGER PRIMARY KEY, tbl TEXT NOT NULL, unit INTEGER NOT NULL, seed INTEGER NOT NULL,
        termination TEXT NOT NULL, plies INTEGER NOT NULL, record TEXT NOT NULL, finished TEXT NOT NULL)""",
    "seats": """CREATE TABLE seats (
        game INTEGER NOT NULL REFERENCES games(idx), seat INTEGER NOT NULL, version INTEGER NOT NULL,
        bot INTEGER NOT NULL, rank INTEGER NOT NULL, score REAL, fault TEXT, fault_detail TEXT,
        mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (game, seat))""",
    "void": """CREATE TABLE void (
        id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, unit INTEGER NOT NULL, versions TEXT NOT NULL,
        error TEXT NOT NULL, at TEXT NOT NULL)""",
    "actions": """CREATE TABLE actions (
        id INTEGER PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
        subject TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '')""",
}

INDEXES = (
    "CREATE INDEX seats_by_bot ON seats (bot, game)",
    "CREATE INDEX seats_by_version ON seats (version, game)",
    "CREATE INDEX games_by_table ON games (tbl, idx)",
    "CREATE INDEX versions_by_bot ON versions (bot, number)",
)
"""What keeps a bot's page and the leaderboard fast with 100,000 games stored."""

STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {}


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Every step from `version` to SCHEMA_VERSION, inside the caller's transaction."""
    while version < SCHEMA_VERSION:
        STEPS[version](db)
        version += 1
