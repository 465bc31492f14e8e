"""The league's results in SQLite: the schedule and every finished game.

Each finished game (result, ranks, scores, faults, termination, its full record) is
written in one transaction with synchronous=FULL, so a game is either stored whole or
not at all, whatever stops the process (Ctrl-C, kill -9, a power cut). A league resumes
by playing the scheduled games that have no row yet. The PGN-like file beside the
database is a copy for people and tools; it is rebuilt from the database whenever the
two differ.

Nothing stored is ever overwritten: a database is created whole (under a temporary
name, then renamed), an existing file that is empty, foreign or damaged stops the run
with the fix, and a records file that holds anything the database does not is kept
under another name before the copy is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.files import FolderError, writable_folder
from arena.league.schedule import ScheduledGame
from arena.records.record import GameRecord
from arena.records.writer import write_record
from arena.referee.seeds import secret_from_environment

TABLES = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "schedule": """CREATE TABLE schedule (
        idx INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, seats TEXT NOT NULL,
        seed INTEGER NOT NULL, round TEXT NOT NULL)""",
    "games": """CREATE TABLE games (
        idx INTEGER PRIMARY KEY REFERENCES schedule(idx), ranks TEXT NOT NULL, scores TEXT,
        faults TEXT NOT NULL, termination TEXT NOT NULL, plies INTEGER NOT NULL,
        record TEXT NOT NULL, finished TEXT NOT NULL)""",
    "void": """CREATE TABLE void (
        idx INTEGER PRIMARY KEY REFERENCES schedule(idx), attempts INTEGER NOT NULL,
        error TEXT NOT NULL, last TEXT NOT NULL)""",
}
"""The league's tables; `void` counts the attempts at games stopped by the arena's own
errors (they are never scored)."""

SQLITE_HEADER = b"SQLite format 3\x00"


class LeagueStoreError(ArenaError, RuntimeError):
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


@dataclass(frozen=True)
class VoidGame:
    """A scheduled game stopped by the arena's own error: how often, and the last error."""

    index: int
    attempts: int
    error: str


def _leave_it(path: Path) -> str:
    return (f"it was left as it is. Restore the league's database from a backup, or move {path.name} "
            "away (or set another output folder) to start the league afresh")


class LeagueStore:
    """One league's database, opened with `open` (which checks or creates it)."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        self.kept_records: Path | None = None
        """Where a records file that differed from the database was kept, if it was."""

    # ---- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, identity: dict[str, object], schedule: list[ScheduledGame],
             records: Path | None = None) -> LeagueStore:
        """The league's database at `path`: checked against the identity and schedule
        when it exists, created whole when it does not (refused when `records` holds
        games without a database beside them). LeagueStoreError names any problem."""
        _check_folder(path.parent)
        if path.exists() or path.is_symlink():
            store = cls(_connect_existing(path), path)
            try:
                store._check_same_league(identity, schedule)
            except BaseException:
                store.close()
                raise
            return store
        if records is not None and _has_content(records):
            raise LeagueStoreError(
                f"{records} holds games but {path} does not exist: the database was moved or deleted. Restore it, "
                f"or move {records.name} away to start the league afresh")
        _create(path, identity, schedule)
        return cls(_connect_existing(path), path)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:  # SQLite rolls back by itself on a full disk
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._failure(exc) from None

    def _failure(self, exc: sqlite3.Error) -> LeagueStoreError:
        """A clear error for a write or read that SQLite refused mid-league."""
        text = str(exc)
        if "full" in text:
            return LeagueStoreError(
                f"the disk holding {self.path} is full: every game finished so far is stored; free some space "
                "and run the same command again to resume")
        return LeagueStoreError(f"{self.path} failed ({text}); the games stored so far are kept. "
                                "Check the disk, then run the same command again to resume")

    def _check_same_league(self, identity: dict[str, object], schedule: list[ScheduledGame]) -> None:
        """LeagueStoreError naming what changed when the stored league is another one."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        if row is None:
            raise LeagueStoreError(f"{self.path} holds no league (its identity is missing); {_leave_it(self.path)}")
        stored = json.loads(row[0])
        for key, value in identity.items():
            if json.dumps(stored.get(key), sort_keys=True) != json.dumps(value, sort_keys=True):
                raise LeagueStoreError(
                    f"the league file's {key!r} changed since this league started ({_short(stored.get(key))} -> "
                    f"{_short(value)}); a resumed league must keep its schedule: restore the old value, or set "
                    f"another output folder to start a new league")
        if self.scheduled() != schedule:
            raise LeagueStoreError("the stored schedule differs from the league file's; "
                                   "set another output folder to start a new league")

    @property
    def secret(self) -> bytes:
        """The league's own secret key: hashed into every game's chance seed and every
        bot's seed, made at random with the database (bots never see the database), so
        a resumed league deals the same and no bot can compute a deal."""
        rows = self._read("SELECT value FROM meta WHERE key = 'secret'")
        if rows:
            return bytes.fromhex(str(rows[0][0]))
        key = secrets.token_hex(32)  # a league made before leagues had keys
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (key,))
        return self.secret

    # ---- the schedule -------------------------------------------------------------------

    def scheduled(self) -> list[ScheduledGame]:
        rows = self._read("SELECT idx, tbl, seats, seed, round FROM schedule ORDER BY idx")
        return [ScheduledGame(i, t, tuple(json.loads(s)), seed, r) for i, t, s, seed, r in rows]

    def finished_indices(self) -> set[int]:
        return {i for (i,) in self._read("SELECT idx FROM games")}

    def _read(self, query: str) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(query).fetchall()
        except sqlite3.Error as exc:
            raise self._failure(exc) from None

    # ---- finished games -----------------------------------------------------------------

    def save_game(self, game: ScheduledGame, ranks: tuple[int, ...], scores: tuple[float, ...] | None,
                  faults: list[StoredFault], termination: str, record: GameRecord) -> bool:
        """Store one finished game in one transaction; False if it was already stored
        (it is then left as it was: a finished game is never replaced)."""
        text = write_record(record)
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game.index, json.dumps(list(ranks)), None if scores is None else json.dumps(list(scores)),
                 json.dumps([f.__dict__ for f in faults]), termination, len(record.plies), text, _now()))
            return cursor.rowcount == 1

    def save_void(self, game: ScheduledGame, error: str) -> int:
        """Count one more attempt at a game the arena's own error voided; the count."""
        with self._transaction() as db:
            db.execute("INSERT INTO void VALUES (?, 1, ?, ?) ON CONFLICT(idx) DO UPDATE SET "
                       "attempts = attempts + 1, error = excluded.error, last = excluded.last",
                       (game.index, error, _now()))
            row = db.execute("SELECT attempts FROM void WHERE idx = ?", (game.index,)).fetchone()
        return int(row[0])

    def void_games(self) -> list[VoidGame]:
        """Games voided by the arena's own errors and not finished since, in schedule order."""
        rows = self._read("SELECT idx, attempts, error FROM void WHERE idx NOT IN (SELECT idx FROM games) "
                          "ORDER BY idx")
        return [VoidGame(int(i), int(n), str(e)) for i, n, e in rows]

    def void_seatings(self) -> list[tuple[tuple[int, ...], int]]:
        """(bots seated, attempts voided) of every game the arena's own errors ever
        voided, replayed since or not: the standings count them per bot."""
        rows = self._read("SELECT s.seats, v.attempts FROM void v JOIN schedule s ON s.idx = v.idx ORDER BY v.idx")
        return [(tuple(json.loads(seats)), int(attempts)) for seats, attempts in rows]

    def games(self) -> list[StoredGame]:
        """Every finished game, in schedule order."""
        rows = self._read(
            "SELECT g.idx, s.tbl, s.seats, s.seed, g.ranks, g.scores, g.faults, g.termination, g.plies "
            "FROM games g JOIN schedule s ON s.idx = g.idx ORDER BY g.idx")
        result = []
        for idx, table, seats, seed, ranks, scores, faults, termination, plies in rows:
            result.append(StoredGame(
                idx, table, tuple(json.loads(seats)), seed, tuple(json.loads(ranks)),
                None if scores is None else tuple(float(s) for s in json.loads(scores)),
                tuple(StoredFault(**f) for f in json.loads(faults)), termination, plies))
        return result

    def record_texts(self) -> list[str]:
        """The record of every finished game, in the order the games finished."""
        return [str(text) for (text,) in self._read("SELECT record FROM games ORDER BY finished, idx")]

    def sync_record_file(self, path: Path) -> Path | None:
        """Make the records file hold exactly the stored games, byte for byte. A file
        that is a cut-short copy (a crash tore or missed its last games) is rebuilt; one
        that holds anything else is first kept as `<name>.orig-<time>`, whose path is
        returned so the caller can say so."""
        expected = "\n".join(self.record_texts()).encode("utf-8")
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise LeagueStoreError(f"{path} is not a regular file; the league writes its records there: move it away")
        current = path.read_bytes() if path.exists() else b""
        if current == expected:
            return None
        kept: Path | None = None
        if not expected.startswith(current):
            kept = path.with_name(f"{path.name}.orig-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}")
            os.replace(path, kept)
        temporary = path.with_name(path.name + ".tmp")
        with temporary.open("wb") as handle:
            handle.write(expected)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        return kept


# ---- creating and checking the file -----------------------------------------------------------


def _check_folder(folder: Path) -> None:
    try:
        writable_folder(folder)
    except FolderError as exc:
        raise LeagueStoreError(f"the output folder {folder} {exc}; set another output folder") from None


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def new_league_secret() -> bytes:
    """A new league's secret key: random, unless $ARENA_SECRET gives one (hex), so that
    the same league file and seeds deal the same games in a new database (to compare
    two runs, or to replay a league on another machine)."""
    return secret_from_environment() or secrets.token_bytes(32)


def _create(path: Path, identity: dict[str, object], schedule: list[ScheduledGame]) -> None:
    """Build a new league's database under a temporary name and rename it into place, so
    `path` is either absent or complete."""
    temporary = path.with_name(path.name + ".new")
    for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm"), Path(f"{temporary}-journal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    try:
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            for statement in TABLES.values():
                db.execute(statement)
            db.execute("INSERT INTO meta VALUES ('identity', ?)", (json.dumps(identity, sort_keys=True),))
            db.execute("INSERT INTO meta VALUES ('created', ?)", (_now(),))
            db.execute("INSERT INTO meta VALUES ('secret', ?)", (new_league_secret().hex(),))
            db.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?)", [
                (g.index, g.table, json.dumps(g.seats), g.seed, g.round) for g in schedule])
            db.execute("COMMIT")
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except sqlite3.Error as exc:
        raise LeagueStoreError(f"cannot create {path} ({exc}); check the disk and the output folder") from None
    except OSError as exc:
        raise LeagueStoreError(f"cannot create {path} ({exc.strerror}); check the disk and the output folder") from None


def _connect_existing(path: Path) -> sqlite3.Connection:
    """Open a league database after checking it is one, whole, and ours."""
    if not path.is_file():
        raise LeagueStoreError(f"{path} is not a file; move it away or set another output folder")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise LeagueStoreError(f"cannot read {path} ({exc.strerror})") from None
    if not header:
        raise LeagueStoreError(f"{path} is empty (0 bytes), not a league database; {_leave_it(path)}")
    if header != SQLITE_HEADER:
        raise LeagueStoreError(f"{path} is not an SQLite database; {_leave_it(path)}")
    try:
        # The runner writes from a worker thread (an fsync must not hold the event loop),
        # one write at a time under its lock.
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise LeagueStoreError(f"cannot open {path} ({exc}); {_leave_it(path)}") from None
    try:
        _check_database(db, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        if "void" not in _tables(db):  # a league started before void games were counted
            db.execute(TABLES["void"])
    except sqlite3.Error as exc:
        db.close()
        raise LeagueStoreError(f"{path} is damaged ({exc}); {_leave_it(path)}") from None
    except BaseException:
        db.close()
        raise
    return db


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _check_database(db: sqlite3.Connection, path: Path) -> None:
    check = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
    if check != ["ok"]:
        raise LeagueStoreError(f"{path} is damaged (SQLite's check says: {'; '.join(check)[:200]}); "
                               f"{_leave_it(path)}; `sqlite3 {path.name} .recover` may save what it holds")
    tables = _tables(db)
    if not {"meta", "schedule", "games"} <= tables or tables - set(TABLES):
        listed = ", ".join(sorted(tables)) or "none"
        raise LeagueStoreError(f"{path} is an SQLite database but not a league's (its tables: {listed[:200]}); "
                               f"{_leave_it(path)}")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
