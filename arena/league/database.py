"""The SQLite file that holds a league's (or a resumable match's) games: checked before
use (whole, SQLite, ours, not newer than this arena), upgraded in place when an older
arena made it, created whole, and written one transaction at a time.

Every database carries its schema version in SQLite's `user_version`. An arena opens
a database of its own version, upgrades an older one in place in one transaction (and
says so), and refuses a newer one with the fix (upgrade the arena), changing nothing.
Databases made before versions existed have `user_version` 0: they hold schema 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.files import FolderError, writable_folder
from arena.league.schema import SCHEMA_VERSION, TABLES, known_tables, migrate, required_tables

SQLITE_HEADER = b"SQLite format 3\x00"

UPGRADE_HINT = "pip install -U arena"
"""How a person gets a newer arena (said when a database is newer than this one)."""


class LeagueStoreError(ArenaError, RuntimeError):
    """The output folder holds another league, or its database cannot be used."""


class NewerDatabaseError(LeagueStoreError):
    """The database was made by a newer arena, with a schema this one cannot read."""


def leave_it(path: Path) -> str:
    return (f"it was left as it is. Restore the database from a backup, or move {path.name} "
            "away (or set another output folder) to start afresh")


def check_folder(folder: Path) -> None:
    try:
        writable_folder(folder)
    except FolderError as exc:
        raise LeagueStoreError(f"the output folder {folder} {exc}; set another output folder") from None


def has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def create(path: Path, identity: dict[str, object], meta: dict[str, str]) -> None:
    """Build a new database (this arena's schema, the identity and `meta` rows) under a
    temporary name and rename it into place, so `path` is either absent or complete."""
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
            db.execute("INSERT INTO meta VALUES ('created', ?)", (now(),))
            db.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
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


def connect_existing(path: Path, kind: str = "league") -> tuple[sqlite3.Connection, str | None]:
    """Open a database after checking it is one, whole, ours and not newer than this
    arena, upgrading an older one in place; the connection and, after an upgrade, a
    sentence saying so."""
    if not path.is_file():
        raise LeagueStoreError(f"{path} is not a file; move it away or set another output folder")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise LeagueStoreError(f"cannot read {path} ({exc.strerror})") from None
    if not header:
        raise LeagueStoreError(f"{path} is empty (0 bytes), not a {kind} database; {leave_it(path)}")
    if header != SQLITE_HEADER:
        raise LeagueStoreError(f"{path} is not an SQLite database; {leave_it(path)}")
    try:
        # Games are stored from a worker thread (an fsync must not hold the event loop),
        # one write at a time under the caller's lock.
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise LeagueStoreError(f"cannot open {path} ({exc}); {leave_it(path)}") from None
    try:
        version = _check_database(db, path, kind)
        note = _upgrade(db, path, version)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
    except sqlite3.Error as exc:
        db.close()
        raise LeagueStoreError(f"{path} is damaged ({exc}); {leave_it(path)}") from None
    except BaseException:
        db.close()
        raise
    return db, note


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _check_database(db: sqlite3.Connection, path: Path, kind: str) -> int:
    """The schema version of a whole database of ours this arena can read."""
    check = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
    if check != ["ok"]:
        raise LeagueStoreError(f"{path} is damaged (SQLite's check says: {'; '.join(check)[:200]}); "
                               f"{leave_it(path)}; `sqlite3 {path.name} .recover` may save what it holds")
    version = int(db.execute("PRAGMA user_version").fetchone()[0]) or 1
    if version > SCHEMA_VERSION:
        raise NewerDatabaseError(
            f"{path} was made by a newer arena (schema {version}; this arena reads up to {SCHEMA_VERSION}): upgrade "
            f"with `{UPGRADE_HINT}` and run the command again. The database was left as it is")
    tables = _tables(db)
    if not required_tables(version) <= tables or tables - known_tables(version):
        listed = ", ".join(sorted(tables)) or "none"
        raise LeagueStoreError(f"{path} is an SQLite database but not a {kind}'s (its tables: {listed[:200]}); "
                               f"{leave_it(path)}")
    return version


def _upgrade(db: sqlite3.Connection, path: Path, version: int) -> str | None:
    """Bring a database of an older schema to this arena's, in one transaction (all
    of it or nothing, whatever stops the process)."""
    if version == SCHEMA_VERSION:
        return None
    db.execute("BEGIN IMMEDIATE")
    try:
        migrate(db, version)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return (f"{path} was made by an older arena (schema {version}); it was upgraded in place to schema "
            f"{SCHEMA_VERSION}, every game kept (arenas older than this one cannot open it any more)")


@contextmanager
def transaction(db: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """One write transaction; a refusal of SQLite's becomes a LeagueStoreError."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:  # SQLite rolls back by itself on a full disk
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise failure(path, exc) from None


def failure(path: Path, exc: sqlite3.Error) -> LeagueStoreError:
    """A clear error for a write or read that SQLite refused mid-run."""
    text = str(exc)
    if "full" in text:
        return LeagueStoreError(
            f"the disk holding {path} is full: every game finished so far is stored; free some space "
            "and run the same command again to resume")
    return LeagueStoreError(f"{path} failed ({text}); the games stored so far are kept. "
                            "Check the disk, then run the same command again to resume")
