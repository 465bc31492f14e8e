"""The ladder's database (DIR/ladder.sqlite): entrants, bots, versions, ratings, games
and the log of actions. One writer (the `arena ladder run` process, or an organiser's
command while it runs: SQLite's lock orders them); pages read with connections of their
own (arena.ladder.web.queries).

Each finished game is stored in one transaction with synchronous=FULL, together with
the rating it gives every version at its table, so a game is stored whole or not at
all whatever stops the process, and ratings never count a game twice or miss one.
Nothing stored is overwritten: a new database is created whole under a temporary name
and renamed into place; a file that is not a ladder's, or is newer than this arena,
stops with the fix."""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ladder.ratings import Skill, initial_skill
from arena.ladder.schema import INDEXES, SCHEMA_VERSION, TABLES, migrate

STATUSES = ("active", "paused", "retired", "disqualified")
"""A bot's standing: only an active bot plays. Paused: by the organiser, or by the
ladder after repeated faults (a new version makes it active again); retired: its owner
or the organiser took it off the ladder (kept on the board's history); disqualified:
the organiser's ruling, which only the organiser lifts."""

VERSION_STATES = ("building", "checking", "ready", "failed", "removed")


class LadderStoreError(ArenaError, RuntimeError):
    """The ladder's database cannot be used; the message names the fix."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Entrant:
    id: int
    name: str
    token_hash: str
    removed: bool


@dataclass(frozen=True)
class Bot:
    id: int
    entrant: int
    name: str
    status: str
    reason: str
    chosen: int | None
    """The version its owner rolled back to (None: the newest ready one plays)."""
    fault_streak: int


@dataclass(frozen=True)
class Version:
    id: int
    bot: int
    number: int
    language: str
    state: str
    log: str
    submitted: str


@dataclass(frozen=True)
class Playing:
    """A bot's version that plays now, with its owner and its rating at a table."""

    version: int
    bot: int
    bot_name: str
    entrant: int
    number: int
    language: str
    skill: Skill
    games: int


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished game as the store keeps it."""

    version: int
    rank: int
    score: float | None
    fault: str | None
    fault_detail: str | None


@dataclass(frozen=True)
class StoredOutcome:
    """What storing a game changed that someone should hear of."""

    game: int
    paused: list[tuple[str, str]]
    """(bot, why) for each bot the ladder paused after this game."""


class LadderStore:
    """The ladder's database, opened by `open` (which checks or creates it)."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        self._lock = threading.Lock()

    # ---- opening ----------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, name: str = "ladder", create: bool = True) -> LadderStore:
        if not path.exists():
            if not create:
                raise LadderStoreError(f"{path} does not exist; make the ladder with `arena ladder init`")
            _create(path, name)
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        except sqlite3.Error as exc:
            raise LadderStoreError(f"cannot open {path} ({exc}); check the file and its folder") from None
        try:
            _check_ladder(db, path)
            # Only now anything is written (WAL mode is kept in the file's header): a file
            # that is not a ladder's, or is newer, is left byte for byte as it was.
            try:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")
                db.execute("PRAGMA foreign_keys = ON")
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise LadderStoreError(f"cannot write {path} ({exc}); check the permissions of the file and its "
                                       "folder, and free space") from None
        except BaseException:
            db.close()
            raise
        store = cls(db, path)
        if version < SCHEMA_VERSION:
            with store.transaction() as tx:
                migrate(tx, version)
                tx.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return store

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise LadderStoreError(f"cannot write {self.path} ({exc}); free space or fix the folder, then run "
                                       "the same command again") from None
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise LadderStoreError(f"cannot write {self.path} ({exc}); nothing of this step was stored: free "
                                       "space or fix the folder, then run the same command again") from None

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """A read on the shared connection, one thread at a time (a game is stored from
        a worker thread while a command reads)."""
        with self._lock:
            return self.db.execute(sql, args).fetchall()

    def _one(self, sql: str, args: tuple[object, ...] = ()) -> tuple[Any, ...] | None:
        rows = self._read(sql, args)
        return rows[0] if rows else None

    def meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    @property
    def secret(self) -> bytes:
        return bytes.fromhex(self.meta("secret") or "")

    # ---- the organiser's log ----------------------------------------------------------

    def log_action(self, tx: sqlite3.Connection, actor: str, action: str, subject: str, detail: str = "") -> None:
        tx.execute("INSERT INTO actions (at, actor, action, subject, detail) VALUES (?, ?, ?, ?, ?)",
                   (now(), actor, action, subject, detail))

    def actions(self, limit: int = 100) -> list[tuple[str, str, str, str, str]]:
        rows = self._read("SELECT at, actor, action, subject, detail FROM actions ORDER BY id DESC LIMIT ?",
                               (limit,))
        return [tuple(row) for row in rows]

    # ---- entrants ---------------------------------------------------------------------

    def add_entrant(self, name: str, token_hash: str, actor: str = "organiser") -> int:
        with self.transaction() as tx:
            row = tx.execute("SELECT id, removed FROM entrants WHERE name = ?", (name,)).fetchone()
            if row is not None and not row[1]:
                raise LadderStoreError(f"an entrant named {name!r} exists; choose another name, or give them a new "
                                       f"token with `arena ladder token reset DIR {name}`")
            if row is not None:
                tx.execute("UPDATE entrants SET removed = 0, token_hash = ? WHERE id = ?", (token_hash, row[0]))
                entrant = int(row[0])
            else:
                entrant = int(tx.execute("INSERT INTO entrants (name, token_hash, created) VALUES (?, ?, ?)",
                                         (name, token_hash, now())).lastrowid or 0)
            self.log_action(tx, actor, "entrant add", name)
        return entrant

    def entrant(self, name: str) -> Entrant | None:
        row = self._one("SELECT id, name, token_hash, removed FROM entrants WHERE name = ?", (name,))
        return None if row is None else Entrant(int(row[0]), row[1], row[2], bool(row[3]))

    def entrant_by_id(self, entrant: int) -> Entrant | None:
        row = self._one("SELECT id, name, token_hash, removed FROM entrants WHERE id = ?",
                              (entrant,))
        return None if row is None else Entrant(int(row[0]), row[1], row[2], bool(row[3]))

    def entrants(self) -> list[Entrant]:
        rows = self._read("SELECT id, name, token_hash, removed FROM entrants ORDER BY id")
        return [Entrant(int(r[0]), r[1], r[2], bool(r[3])) for r in rows]

    def _named_entrant(self, name: str) -> Entrant:
        entrant = self.entrant(name)
        if entrant is None or entrant.removed:
            known = ", ".join(e.name for e in self.entrants() if not e.removed) or "none yet"
            raise LadderStoreError(f"no entrant named {name!r} (entrants: {known}); add one with "
                                   "`arena ladder entrant add DIR NAME`")
        return entrant

    def remove_entrant(self, name: str, actor: str = "organiser") -> None:
        """The entrant's token stops working and their bots are retired; their games
        and versions stay stored (the board's history keeps them)."""
        entrant = self._named_entrant(name)
        with self.transaction() as tx:
            tx.execute("UPDATE entrants SET removed = 1, token_hash = '' WHERE id = ?", (entrant.id,))
            tx.execute("UPDATE bots SET status = 'retired', reason = 'its entrant was removed' WHERE entrant = ?",
                       (entrant.id,))
            self.log_action(tx, actor, "entrant remove", name)

    def reset_token(self, name: str, token_hash: str, actor: str = "organiser") -> None:
        entrant = self._named_entrant(name)
        with self.transaction() as tx:
            tx.execute("UPDATE entrants SET token_hash = ? WHERE id = ?", (token_hash, entrant.id))
            self.log_action(tx, actor, "token reset", name)

    # ---- bots and versions ------------------------------------------------------------

    def bot(self, name: str) -> Bot | None:
        row = self._one("SELECT id, entrant, name, status, reason, chosen, fault_streak FROM bots "
                              "WHERE name = ?", (name,))
        return None if row is None else Bot(*row)

    def bot_by_id(self, bot: int) -> Bot | None:
        row = self._one("SELECT id, entrant, name, status, reason, chosen, fault_streak FROM bots "
                              "WHERE id = ?", (bot,))
        return None if row is None else Bot(*row)

    def bots(self) -> list[Bot]:
        rows = self._read("SELECT id, entrant, name, status, reason, chosen, fault_streak FROM bots "
                               "ORDER BY id")
        return [Bot(*row) for row in rows]

    def submissions_since(self, entrant: int, hours: float = 1.0) -> int:
        since = (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds")
        row = self._one("SELECT COUNT(*) FROM versions JOIN bots ON bots.id = versions.bot "
                        "WHERE bots.entrant = ? AND versions.submitted >= ?", (entrant, since))
        count = row[0] if row else 0
        return int(count)

    def add_version(self, entrant: int, bot_name: str, language: str) -> Version:
        """A new version of the entrant's bot `bot_name` (the bot is made on its first
        version), in state 'building'. LadderStoreError when another entrant owns the name."""
        with self.transaction() as tx:
            row = tx.execute("SELECT id, entrant FROM bots WHERE name = ?", (bot_name,)).fetchone()
            if row is not None and row[1] != entrant:
                raise LadderStoreError(f"the bot name {bot_name!r} belongs to another entrant; choose another name")
            if row is None:
                bot = int(tx.execute("INSERT INTO bots (entrant, name, created) VALUES (?, ?, ?)",
                                     (entrant, bot_name, now())).lastrowid or 0)
            else:
                bot = int(row[0])
            (number,) = tx.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE bot = ?",
                                   (bot,)).fetchone()
            submitted = now()
            version = int(tx.execute("INSERT INTO versions (bot, number, language, state, submitted) "
                                     "VALUES (?, ?, ?, 'building', ?)",
                                     (bot, number, language, submitted)).lastrowid or 0)
            owner = tx.execute("SELECT name FROM entrants WHERE id = ?", (entrant,)).fetchone()
            self.log_action(tx, str(owner[0]) if owner else "?", "submit", f"{bot_name} v{number}", language)
        return Version(version, bot, int(number), language, "building", "", submitted)

    def version(self, version: int) -> Version | None:
        row = self._one("SELECT id, bot, number, language, state, log, submitted FROM versions WHERE id = ?",
                              (version,))
        return None if row is None else Version(*row)

    def versions(self, bot: int) -> list[Version]:
        rows = self._read("SELECT id, bot, number, language, state, log, submitted FROM versions "
                               "WHERE bot = ? ORDER BY number", (bot,))
        return [Version(*row) for row in rows]

    def unfinished_versions(self) -> list[Version]:
        """Versions whose build or check an interruption cut short (run again on start)."""
        rows = self._read("SELECT id, bot, number, language, state, log, submitted FROM versions "
                               "WHERE state IN ('building', 'checking') ORDER BY id")
        return [Version(*row) for row in rows]

    def set_version_state(self, version: int, state: str, log: str | None = None) -> None:
        """A version's build or check moved on; a version that became ready makes a bot
        the ladder paused for faults active again (its owner sent a fix)."""
        assert state in VERSION_STATES
        with self.transaction() as tx:
            if log is None:
                tx.execute("UPDATE versions SET state = ? WHERE id = ?", (state, version))
            else:
                tx.execute("UPDATE versions SET state = ?, log = ? WHERE id = ?", (state, log, version))
            if state == "ready":
                tx.execute("UPDATE bots SET chosen = NULL, fault_streak = 0, status = 'active', reason = '' "
                           "WHERE id = (SELECT bot FROM versions WHERE id = ?) AND (status = 'active' OR "
                           "(status = 'paused' AND reason LIKE 'paused by the ladder%'))", (version,))

    def choose_version(self, bot_name: str, number: int, actor: str) -> None:
        """Roll back (or forward): version `number` plays instead of the newest."""
        bot = self.bot(bot_name)
        if bot is None:
            raise LadderStoreError(f"no bot named {bot_name!r}")
        chosen = next((v for v in self.versions(bot.id) if v.number == number), None)
        if chosen is None or chosen.state != "ready":
            ready = ", ".join(str(v.number) for v in self.versions(bot.id) if v.state == "ready") or "none"
            raise LadderStoreError(f"{bot_name} has no ready version {number} (ready versions: {ready})")
        with self.transaction() as tx:
            tx.execute("UPDATE bots SET chosen = ? WHERE id = ?", (chosen.id, bot.id))
            self.log_action(tx, actor, "choose version", bot_name, f"v{number}")

    def set_status(self, bot_name: str, status: str, reason: str, actor: str) -> None:
        assert status in STATUSES
        bot = self.bot(bot_name)
        if bot is None:
            known = ", ".join(b.name for b in self.bots()) or "none yet"
            raise LadderStoreError(f"no bot named {bot_name!r} (bots: {known})")
        with self.transaction() as tx:
            tx.execute("UPDATE bots SET status = ?, reason = ?, fault_streak = 0 WHERE id = ?",
                       (status, reason, bot.id))
            self.log_action(tx, actor, status if status != "active" else "resume", bot_name, reason)

    def playing(self, table: str) -> list[Playing]:
        """Each active bot's playing version (its chosen one, else its newest ready one),
        with its rating at `table`."""
        rows = self._read("""
            SELECT v.id, b.id, b.name, b.entrant, v.number, v.language, r.mu, r.sigma, r.games
            FROM bots b JOIN entrants e ON e.id = b.entrant
            JOIN versions v ON v.id = COALESCE(b.chosen,
                (SELECT id FROM versions WHERE bot = b.id AND state = 'ready' ORDER BY number DESC LIMIT 1))
            LEFT JOIN ratings r ON r.tbl = ? AND r.version = v.id
            WHERE b.status = 'active' AND e.removed = 0 AND v.state = 'ready'
            ORDER BY b.id""", (table,))
        start = initial_skill()
        return [Playing(int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4]), r[5],
                        Skill(r[6], r[7]) if r[6] is not None else start, int(r[8] or 0)) for r in rows]

    def remove_version(self, version_id: int) -> None:
        """The version is removed (the pruning policy's choice: its files go): it never
        plays again, and its games, ratings and log stay. Logged as the ladder's action.
        LadderStoreError for an unknown version, one still being built or checked (its
        build would overwrite the state) and the one its owner chose to play."""
        with self.transaction() as tx:
            row = tx.execute("SELECT v.number, v.state, b.name, b.chosen FROM versions v JOIN bots b ON b.id = v.bot "
                             "WHERE v.id = ?", (version_id,)).fetchone()
            if row is None:
                raise LadderStoreError(f"no version {version_id} to remove")
            number, state, bot_name, chosen = row
            if state == "removed":
                return
            if state in ("building", "checking"):
                raise LadderStoreError(f"{bot_name} v{number} is {state}; remove it once its build and check are over")
            if chosen == version_id:
                raise LadderStoreError(f"{bot_name} v{number} is the version its owner chose to play; it is kept "
                                       "until they choose another")
            tx.execute("UPDATE versions SET state = 'removed' WHERE id = ?", (version_id,))
            self.log_action(tx, "ladder", "remove version", f"{bot_name} v{number}", f"it was {state}")

    def versions_to_prune(self, keep: int) -> list[Version]:
        """Per bot, the versions beyond its newest `keep` (counted among those not yet
        removed) that may go: never one being built or checked, nor the one that plays
        (the owner's chosen one, else the newest ready one, however old), nor one
        removed already. Oldest first, bot by bot."""
        if keep < 0:
            raise ValueError(f"keep = {keep}: give how many versions each bot keeps (0 or more)")
        rows = self._read("""
            SELECT id, bot, number, language, state, log, submitted FROM (
                SELECT v.id, v.bot, v.number, v.language, v.state, v.log, v.submitted,
                       ROW_NUMBER() OVER (PARTITION BY v.bot ORDER BY v.number DESC) AS place,
                       COALESCE(b.chosen, (SELECT r.id FROM versions r WHERE r.bot = v.bot AND r.state = 'ready'
                                           ORDER BY r.number DESC LIMIT 1)) AS plays
                FROM versions v JOIN bots b ON b.id = v.bot WHERE v.state != 'removed')
            WHERE place > ? AND id IS NOT plays AND state NOT IN ('building', 'checking')
            ORDER BY bot, number""", (keep,))
        return [Version(*row) for row in rows]

    # ---- units and games --------------------------------------------------------------

    def next_unit(self) -> int:
        """A fresh unit number (stored before the unit plays: no two units, even across
        interruptions, share one, so none shares a deal)."""
        with self.transaction() as tx:
            row = tx.execute("SELECT value FROM meta WHERE key = 'units'").fetchone()
            unit = int(row[0]) + 1 if row is not None else 1
            tx.execute("INSERT OR REPLACE INTO meta VALUES ('units', ?)", (str(unit),))
        return unit

    def save_game(self, table: str, unit: int, seed: int, seats: Sequence[SeatResult], termination: str,
                  plies: int, record: str, rate: bool, pause_after: int) -> StoredOutcome:
        """Store a finished game with the ratings it gives (`rate`: it counts; a game
        decided by nothing but faults still counts), the totals the leaderboard reads
        (games, wins, faults by reason, and the pair's points of a 2-seat game: see
        arena.ladder.schema; rated or not, the game counts in them) and the bots' fault
        streaks; a bot at `pause_after` faulted games in a row is paused with the reason."""
        from arena.ladder.ratings import rate_game

        paused: list[tuple[str, str]] = []
        with self.transaction() as tx:
            before = []
            for seat in seats:
                row = tx.execute("SELECT mu, sigma FROM ratings WHERE tbl = ? AND version = ?",
                                 (table, seat.version)).fetchone()
                before.append(Skill(row[0], row[1]) if row is not None else initial_skill())
            after = rate_game(before, [s.rank for s in seats]) if rate else before
            game = int(tx.execute("INSERT INTO games (tbl, unit, seed, termination, plies, record, finished) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                  (table, unit, seed, termination, plies, record, now())).lastrowid or 0)
            for place, (seat, skill) in enumerate(zip(seats, after, strict=True)):
                (bot,) = tx.execute("SELECT bot FROM versions WHERE id = ?", (seat.version,)).fetchone()
                tx.execute("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (game, place, seat.version, bot, seat.rank, seat.score, seat.fault, seat.fault_detail,
                            skill.mu, skill.sigma))
                tx.execute("INSERT INTO ratings (tbl, version, mu, sigma, games, wins) VALUES (?, ?, ?, ?, 1, ?) "
                           "ON CONFLICT (tbl, version) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                           "games = games + 1, wins = wins + excluded.wins",
                           (table, seat.version, skill.mu, skill.sigma, int(seat.rank == 1)))
                if seat.fault is None:
                    tx.execute("UPDATE bots SET fault_streak = 0 WHERE id = ?", (bot,))
                    continue
                tx.execute("INSERT INTO fault_totals (tbl, version, reason, count) VALUES (?, ?, ?, 1) "
                           "ON CONFLICT (tbl, version, reason) DO UPDATE SET count = count + 1",
                           (table, seat.version, seat.fault))
                tx.execute("UPDATE bots SET fault_streak = fault_streak + 1 WHERE id = ?", (bot,))
                name, streak, status = tx.execute("SELECT name, fault_streak, status FROM bots WHERE id = ?",
                                                  (bot,)).fetchone()
                if streak >= pause_after and status == "active":
                    why = (f"paused by the ladder after {streak} faulted games in a row (the last: {seat.fault}"
                           f"{': ' + seat.fault_detail[:200] if seat.fault_detail else ''}); submit a fixed version "
                           "and it plays again")
                    tx.execute("UPDATE bots SET status = 'paused', reason = ? WHERE id = ?", (why, bot))
                    self.log_action(tx, "ladder", "paused", name, why)
                    paused.append((name, why))
            if len(seats) == 2 and seats[0].version != seats[1].version:
                first, second = sorted(seats, key=lambda s: s.version)
                points = 1.0 if first.rank < second.rank else 0.5 if first.rank == second.rank else 0.0
                tx.execute("INSERT INTO pair_totals (tbl, a, b, points, games) VALUES (?, ?, ?, ?, 1) "
                           "ON CONFLICT (tbl, a, b) DO UPDATE SET points = points + excluded.points, games = games + 1",
                           (table, first.version, second.version, points))
        return StoredOutcome(game, paused)

    def save_void(self, table: str, unit: int, versions: Sequence[int], error: str) -> None:
        """A unit the arena's own error stopped: kept for the organiser, never scored."""
        with self.transaction() as tx:
            tx.execute("INSERT INTO void (tbl, unit, versions, error, at) VALUES (?, ?, ?, ?, ?)",
                       (table, unit, json.dumps(list(versions)), error[:4000], now()))

    def game_count(self) -> int:
        row = self._one("SELECT COUNT(*) FROM games")
        count = row[0] if row else 0
        return int(count)


def _check_ladder(db: sqlite3.Connection, path: Path) -> None:
    """LadderStoreError, naming the fix, unless `db` is a ladder's database this arena
    reads; only reads."""
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise LadderStoreError(f"{path} is not a ladder's database ({exc}); it was left as it is. Restore it "
                               "from a backup, or move it away to start afresh") from None
    if version > SCHEMA_VERSION:
        raise LadderStoreError(f"{path} was made by a newer arena (schema {version}, this one reads up to "
                               f"{SCHEMA_VERSION}); it was left as it is: upgrade the arena (pip install -U arena)")
    if version < 1 or "meta" not in tables or (version == SCHEMA_VERSION and not set(TABLES) <= tables):
        raise LadderStoreError(f"{path} is not a ladder's database (its tables differ); it was left as it is. "
                               "Move it away to start afresh")
    try:
        kind = db.execute("SELECT value FROM meta WHERE key = 'kind'").fetchone()
    except sqlite3.DatabaseError:
        kind = None
    if kind is None or kind[0] != "ladder":
        raise LadderStoreError(f"{path} holds no ladder; it was left as it is. Move it away to start afresh")


def _create(path: Path, name: str) -> None:
    """A new, empty ladder database, built under a temporary name and renamed in place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    for leftover in (temporary, Path(f"{temporary}-journal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    db = sqlite3.connect(temporary, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        for statement in (*TABLES.values(), *INDEXES):
            db.execute(statement)
        db.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("kind", "ladder"), ("name", name), ("created", now()), ("secret", secrets.token_bytes(32).hex()),
            ("units", "0")])
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    finally:
        db.close()
    temporary.chmod(0o600)  # its secret and token hashes are the organiser's alone
    temporary.replace(path)
