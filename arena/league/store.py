"""The games of a league (or of a resumable match) in SQLite: the roster, the schedule
and every finished game.

Each finished game (result, ranks, scores, faults, termination, its full record) is
written in one transaction with synchronous=FULL, so a game is either stored whole or
not at all, whatever stops the process (Ctrl-C, kill -9, a power cut). A run resumes
by playing the scheduled games that have no row yet. The PGN-like records file is a
copy for people and tools; it is rebuilt from the database whenever the two differ.

Nothing stored is ever overwritten: a database is created whole (under a temporary
name, then renamed; arena.league.database), an existing file that is empty, foreign,
damaged or newer than this arena stops the run with the fix, the schedule only ever
grows (new bots and games are appended, a game keeps its number), and a records file
that holds anything the database does not is kept under another name before the copy
is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena import records
from arena.league.database import (
    LeagueStoreError,
    NewerDatabaseError,
    check_folder,
    connect_existing,
    create,
    failure,
    has_content,
    leave_it,
    now,
    transaction,
)
from arena.league.run_lock import RunLock
from arena.league.schedule import ScheduledGame
from arena.process.secret import secret_from_environment
from arena.records.record import GameRecord

__all__ = ["IdentityChanged", "LeagueStore", "LeagueStoreError", "NewerDatabaseError", "RecordsPrefix",
           "StoredFault", "StoredGame", "VoidGame", "new_league_secret"]


class IdentityChanged(LeagueStoreError):
    """What fixes the stored games (a key of the identity) differs from what was asked."""

    def __init__(self, key: str, stored: object, given: object, message: str) -> None:
        super().__init__(message)
        self.key, self.stored, self.given = key, stored, given


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


@dataclass(frozen=True)
class RecordsPrefix:
    """What a records file held before a match's games were first appended to it (a
    match may share its file with earlier ones): its length and SHA-256, so the copy
    can be rebuilt after it without ever touching what came before."""

    size: int
    sha256: str

    @classmethod
    def of(cls, path: Path) -> RecordsPrefix:
        data = path.read_bytes() if path.is_file() else b""
        return cls(len(data), hashlib.sha256(data).hexdigest())


class LeagueStore:
    """One database of games (a league's, or a resumable match's: its `kind`), opened
    with `open` (which checks, upgrades or creates it)."""

    def __init__(self, db: sqlite3.Connection, path: Path, kind: str = "league") -> None:
        self.db = db
        self.path = path
        self.kind = kind
        self.kept_records: Path | None = None
        """Where a records file that differed from the database was kept, if it was."""
        self.notes: list[str] = []
        """What opening it did that a person should hear of (an upgrade, a league that grew)."""
        self.run_lock: RunLock | None = None
        """The lock of the run that opened it to play (released on close)."""

    # ---- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, identity: dict[str, object], records: Path | None = None, kind: str = "league",
             meta: dict[str, str] | None = None, defaults: Mapping[str, object] | None = None) -> LeagueStore:
        """The database at `path`: checked against the identity when it exists (an
        IdentityChanged names the first key that differs; `defaults`: see
        check_identity), created empty (with `meta`) when it does not, which a league
        refuses when `records` holds games without a database beside them.
        LeagueStoreError names any problem."""
        check_folder(path.parent)
        if path.exists() or path.is_symlink():
            store = cls.existing(path, kind)
            try:
                store.check_identity(identity, defaults)
            except BaseException:
                store.close()
                raise
            return store
        if kind == "league" and records is not None and has_content(records):
            raise LeagueStoreError(
                f"{records} holds games but {path} does not exist: the database was moved or deleted. Restore it, "
                f"or move {records.name} away to start the league afresh")
        extra = {"kind": kind, **(meta or {})}
        if kind == "league":
            extra["secret"] = new_league_secret().hex()
        create(path, identity, extra)
        return cls.existing(path, kind)

    @classmethod
    def existing(cls, path: Path, kind: str = "league") -> LeagueStore:
        """An existing database of games of this `kind`, checked and upgraded, without
        comparing its identity (to read what it was made with first)."""
        db, upgraded = connect_existing(path, kind)
        store = cls(db, path, kind)
        if upgraded is not None:
            store.notes.append(upgraded)
        try:
            stored_kind = store.meta("kind") or "league"
            if stored_kind != kind:
                raise LeagueStoreError(f"{path} holds a {stored_kind}'s games, not a {kind}'s; {leave_it(path)}")
            if store.meta("identity") is None:
                raise LeagueStoreError(f"{path} holds no {kind} (its identity is missing); {leave_it(path)}")
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        self.db.close()
        if self.run_lock is not None:
            self.run_lock.release()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with transaction(self.db, self.path) as db:
            yield db

    def meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def identity(self) -> dict[str, Any]:
        """What the stored games were made with (the identity given at creation)."""
        value = json.loads(self.meta("identity") or "{}")
        return value if isinstance(value, dict) else {}

    def check_identity(self, identity: dict[str, object], defaults: Mapping[str, object] | None = None) -> None:
        """IdentityChanged for the first key of `identity` whose stored value differs
        (keys the stored identity has and `identity` lacks are not compared: they no
        longer fix anything). `defaults`: keys an identity holds only when they differ
        from the default value given here (so that stores made before the key existed
        resume): a missing one, stored or given, is compared as its default."""
        defaults = defaults or {}
        stored = self.identity()
        given = {**identity, **{key: value for key, value in defaults.items() if key not in identity}}
        for key, value in given.items():
            old = stored.get(key, defaults.get(key))
            if json.dumps(old, sort_keys=True) != json.dumps(value, sort_keys=True):
                raise IdentityChanged(
                    key, old, value,
                    f"the league file's {key!r} changed since this league started ({_short(old)} -> "
                    f"{_short(value)}); a resumed league must keep it: restore the old value, or set another output "
                    "folder to start a new league")

    @property
    def secret(self) -> bytes:
        """The league's own secret key: hashed into every game's chance seed and every
        bot's seed, made at random with the database (bots never see the database), so
        a resumed league deals the same and no bot can compute a deal."""
        value = self.meta("secret")
        if value is not None:
            return bytes.fromhex(value)
        key = secrets.token_hex(32)  # a league made before leagues had keys
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (key,))
        return self.secret

    # ---- the roster and the schedule ----------------------------------------------------------

    def roster(self) -> list[str]:
        """Every bot that ever took part, by its number (the seats' numbers)."""
        return [str(name) for (name,) in self._read("SELECT name FROM bots ORDER BY id")]

    def scheduled(self) -> list[ScheduledGame]:
        rows = self._read("SELECT idx, tbl, seats, seed, round, place FROM schedule ORDER BY idx")
        return [ScheduledGame(i, t, tuple(json.loads(s)), seed, r, place=p) for i, t, s, seed, r, p in rows]

    def extend(self, bots: list[str], games: list[ScheduledGame]) -> None:
        """Add bots to the roster (numbered after the others) and games to the
        schedule, in one transaction; nothing stored changes."""
        if not bots and not games:
            return
        first = len(self.roster())
        with self._transaction() as db:
            db.executemany("INSERT INTO bots (id, name) VALUES (?, ?)",
                           [(first + k, name) for k, name in enumerate(bots)])
            db.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?)", [
                (g.index, g.table, json.dumps(list(g.seats)), g.seed, g.round, g.place) for g in games])

    def finished_indices(self) -> set[int]:
        return {i for (i,) in self._read("SELECT idx FROM games")}

    def _read(self, query: str, parameters: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(query, parameters).fetchall()
        except sqlite3.Error as exc:
            raise failure(self.path, exc) from None

    # ---- finished games -----------------------------------------------------------------

    def save_game(self, game: ScheduledGame, ranks: tuple[int, ...], scores: tuple[float, ...] | None,
                  faults: list[StoredFault], termination: str, record: GameRecord) -> bool:
        """Store one finished game in one transaction; False if it was already stored
        (it is then left as it was: a finished game is never replaced)."""
        text = records.write(record)
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game.index, json.dumps(list(ranks)), None if scores is None else json.dumps(list(scores)),
                 json.dumps([f.__dict__ for f in faults]), termination, len(record.plies), text, now()))
            return cursor.rowcount == 1

    def save_void(self, game: ScheduledGame, error: str) -> int:
        """Count one more attempt at a game the arena's own error voided; the count."""
        with self._transaction() as db:
            db.execute("INSERT INTO void VALUES (?, 1, ?, ?) ON CONFLICT(idx) DO UPDATE SET "
                       "attempts = attempts + 1, error = excluded.error, last = excluded.last",
                       (game.index, error, now()))
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

    def finish_order(self) -> list[int]:
        """The numbers of the finished games in the order they finished (a burst of
        time-outs is a burst in time, not in the schedule)."""
        return [int(i) for (i,) in self._read("SELECT idx FROM games ORDER BY finished, idx")]

    def record_texts(self) -> list[str]:
        """The record of every finished game, in the order the games finished."""
        return [str(text) for (text,) in self._read("SELECT record FROM games ORDER BY finished, idx")]

    def records_by_index(self) -> dict[int, str]:
        """The record of every finished game by its number."""
        return {int(i): str(text) for i, text in self._read("SELECT idx, record FROM games")}

    def sync_record_file(self, path: Path, prefix: RecordsPrefix | None = None) -> Path | None:
        """Make the records file hold exactly the stored games, byte for byte (after
        `prefix`, what it held before they were first appended, when that is intact). A
        file that is a cut-short copy (a crash tore or missed its last games) is
        rebuilt; one that holds anything else is first kept as `<name>.orig-<time>`,
        whose path is returned so the caller can say so."""
        games = "\n".join(self.record_texts()).encode("utf-8")
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise LeagueStoreError(f"{path} is not a regular file; the records go there: move it away")
        current = path.read_bytes() if path.exists() else b""
        before = b""
        if prefix is not None and prefix.size and len(current) >= prefix.size:
            head = current[:prefix.size]
            if hashlib.sha256(head).hexdigest() == prefix.sha256:
                before = head
        expected = before + (_separator(before) if games else b"") + games
        if current == expected:
            return None
        kept: Path | None = None
        if path.exists() and (not expected.startswith(current) or (prefix is not None and prefix.size and not before)):
            kept = path.with_name(f"{path.name}.orig-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}")
            os.replace(path, kept)
        temporary = path.with_name(path.name + ".tmp")
        with temporary.open("wb") as handle:
            handle.write(expected)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        return kept


def _separator(before: bytes) -> bytes:
    """What append writes between a file's last game and the next one."""
    if not before:
        return b""
    return b"\n" if before.endswith(b"\n") else b"\n\n"


def new_league_secret() -> bytes:
    """A new league's secret key: random, unless $ARENA_SECRET gives one (hex), so that
    the same league file and seeds deal the same games in a new database (to compare
    two runs, or to replay a league on another machine)."""
    return secret_from_environment() or secrets.token_bytes(32)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."
