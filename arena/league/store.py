"""The league's results in SQLite: the schedule and every finished game.

Each finished game (result, ranks, scores, faults, termination, its full record) is
written in one transaction with synchronous=FULL, so a game is either stored whole or
not at all, whatever stops the process (Ctrl-C, kill -9, a power cut). A league resumes
by playing the scheduled games that have no row yet. The PGN-like file beside the
database is a copy for people and tools; it is rebuilt from the database whenever the
two disagree.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.league.schedule import ScheduledGame
from arena.record import GameRecord, read_records, write_record

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    idx INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, seats TEXT NOT NULL,
    seed INTEGER NOT NULL, round TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    idx INTEGER PRIMARY KEY REFERENCES schedule(idx), ranks TEXT NOT NULL, scores TEXT,
    faults TEXT NOT NULL, termination TEXT NOT NULL, plies INTEGER NOT NULL,
    record TEXT NOT NULL, finished TEXT NOT NULL);
"""


class LeagueStoreError(RuntimeError):
    """The output folder holds another league, or its database cannot be used."""


@dataclass(frozen=True)
class StoredFault:
    seat: int
    bot: int
    reason: str
    detail: str
    ply: int


@dataclass(frozen=True)
class StoredGame:
    """A finished game as the standings need it."""

    index: int
    table: int
    seats: tuple[int, ...]
    seed: int
    ranks: tuple[int, ...]
    scores: tuple[float, ...] | None
    faults: tuple[StoredFault, ...]
    termination: str
    plies: int


class LeagueStore:
    """One league's database; opened on its output folder."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LeagueStoreError(f"{path} is not a usable league database ({exc}); "
                                   "move it away or choose another output folder") from None
        self.path = path

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---- the schedule -------------------------------------------------------------------

    def prepare(self, identity: dict[str, object], schedule: list[ScheduledGame]) -> None:
        """Store the identity and schedule of a new league, or check that a stored
        league is the same one (else LeagueStoreError naming what changed)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        if row is None:
            with self._transaction() as db:
                db.execute("INSERT INTO meta VALUES ('identity', ?)", (json.dumps(identity, sort_keys=True),))
                db.execute("INSERT INTO meta VALUES ('created', ?)", (_now(),))
                db.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?)", [
                    (g.index, g.table, json.dumps(g.seats), g.seed, g.round) for g in schedule])
            return
        stored = json.loads(row[0])
        for key, value in identity.items():
            if json.dumps(stored.get(key), sort_keys=True) != json.dumps(value, sort_keys=True):
                raise LeagueStoreError(
                    f"the league file's {key!r} changed since this league started ({stored.get(key)!r} -> "
                    f"{value!r}); a resumed league must keep its schedule: restore the old value, or set "
                    f"another output folder to start a new league")
        if self.scheduled() != schedule:
            raise LeagueStoreError("the stored schedule differs from the league file's; "
                                   "set another output folder to start a new league")

    def scheduled(self) -> list[ScheduledGame]:
        rows = self.db.execute("SELECT idx, tbl, seats, seed, round FROM schedule ORDER BY idx").fetchall()
        return [ScheduledGame(i, t, tuple(json.loads(s)), seed, r) for i, t, s, seed, r in rows]

    def finished_indices(self) -> set[int]:
        return {i for (i,) in self.db.execute("SELECT idx FROM games")}

    # ---- finished games -----------------------------------------------------------------

    def save_game(self, game: ScheduledGame, ranks: tuple[int, ...], scores: tuple[float, ...] | None,
                  faults: list[StoredFault], termination: str, record: GameRecord) -> bool:
        """Store one finished game in one transaction; False if it was already stored
        (it is then left as it was: a finished game is never replaced)."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game.index, json.dumps(list(ranks)), None if scores is None else json.dumps(list(scores)),
                 json.dumps([f.__dict__ for f in faults]), termination, len(record.plies),
                 write_record(record), _now()))
            return cursor.rowcount == 1

    def games(self) -> list[StoredGame]:
        """Every finished game, in schedule order."""
        rows = self.db.execute(
            "SELECT g.idx, s.tbl, s.seats, s.seed, g.ranks, g.scores, g.faults, g.termination, g.plies "
            "FROM games g JOIN schedule s ON s.idx = g.idx ORDER BY g.idx").fetchall()
        result = []
        for idx, table, seats, seed, ranks, scores, faults, termination, plies in rows:
            result.append(StoredGame(
                idx, table, tuple(json.loads(seats)), seed, tuple(json.loads(ranks)),
                None if scores is None else tuple(float(s) for s in json.loads(scores)),
                tuple(StoredFault(**f) for f in json.loads(faults)), termination, plies))
        return result

    def record_texts(self) -> list[str]:
        """The record of every finished game, in the order the games finished."""
        return [text for (text,) in self.db.execute("SELECT record FROM games ORDER BY finished, idx")]

    def sync_record_file(self, path: Path) -> bool:
        """Make the PGN-like file hold exactly the stored games; True if it was rebuilt."""
        texts = self.record_texts()
        if path.exists():
            try:
                count = len(read_records(path.read_text(encoding="utf-8")))
            except (ValueError, OSError):
                count = -1
            if count == len(texts):
                return False
        elif not texts:
            return False
        temporary = path.with_suffix(".pgn.tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write("\n".join(texts))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        return True


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
