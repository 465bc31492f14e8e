"""A match that survives being stopped: with `--out FILE`, every finished game is stored
in `FILE.sqlite` beside the records (the league's store: one SQLite transaction per
game, synchronous=FULL), so the same command run again plays only the games that are
missing and says so. The store holds what fixes the games (game, options, bots, SPRT
settings, openings, and the seeds, which a resumed match takes from it when the
command gives none); another match asked of the same `--out` is refused with the fix.
Time control, limits, concurrency and --games may change between runs.

The records file holds whatever it held before the match's first game (kept as it
is, checked by its length and hash) and then exactly the stored games: a file a crash
tore is rebuilt from the store, one that holds anything else is kept aside first.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import games
from arena.errors import ArenaError
from arena.league.database import check_folder
from arena.league.run_lock import RunLock
from arena.league.schedule import ScheduledGame
from arena.league.store import IdentityChanged, LeagueStore, LeagueStoreError, RecordsPrefix, StoredFault
from arena.process.faults import SeatFault
from arena.records.files import append
from arena.records.reader import read_text
from arena.referee.openings import SHIPPED, load_openings
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import Deals, cycle_seed, deal_number, rotated
from arena.termination import Termination

STORE_SUFFIX = ".sqlite"

KIND = "match"

IDENTITY_DEFAULTS: dict[str, object] = {"deals": "duplicate", "openings_order": "sequential", "openings_start": 1}
"""Keys of a match's identity stored only when they differ from these values, so that a
match stored before they existed resumes, and compared as these values when missing
(LeagueStore.check_identity): a resumed match refuses another --deals either way."""


class MatchStoreError(LeagueStoreError):
    """The match's store holds another match, or cannot be used; nothing was played."""


def store_path(out: Path) -> Path:
    """Where the match whose records go to `out` keeps its games: `out` + .sqlite."""
    return out.with_name(out.name + STORE_SUFFIX)


@dataclass(frozen=True)
class StoredMatchGame:
    """A game a run before this one finished: its number in the match, seats and outcome."""

    index: int
    seats: tuple[int, ...]
    outcome: GameOutcome


class MatchStore:
    """The store of one match (a LeagueStore of kind "match")."""

    def __init__(self, store: LeagueStore, out: Path, created: bool) -> None:
        self.store = store
        self.out = out
        self.created = created
        """Whether this run made the store (it is removed again if no game reaches it)."""

    @property
    def path(self) -> Path:
        return self.store.path

    @classmethod
    def find(cls, out: Path, identity: dict[str, Any]) -> MatchStore | None:
        """The store beside `out` if there is one, checked against `identity` (its
        seeds only where given); None when there is none."""
        path = store_path(out)
        if not (path.exists() or path.is_symlink()):
            return None
        found = cls(_locked(path, lambda: LeagueStore.existing(path, KIND)), out, created=False)
        try:
            stored = found.store.identity()
            wanted = {k: v for k, v in identity.items() if v is not None or k not in ("seed", "bot_seed")}
            found.check(wanted, stored)
        except BaseException:
            found.close()
            raise
        return found

    def check(self, identity: dict[str, Any], stored: dict[str, Any]) -> None:
        try:
            self.store.check_identity(identity, IDENTITY_DEFAULTS)
        except IdentityChanged as changed:
            option = {"bots": "bots", "sprt": "--sprt settings", "options": "--option values",
                      "openings": "--openings", "random_opening": "--random-opening", "seed": "--seed",
                      "bot_seed": "--bot-seed", "game": "--game", "deals": "--deals",
                      "openings_order": "--openings-order", "openings_start": "--openings-start"}.get(changed.key,
                                                                                                    changed.key)
            if changed.key == "openings":
                played = _openings_shown(changed.stored, stored)
                given = _openings_shown(changed.given, stored)
            else:
                played = f"{option} {_shown(changed.stored)}"
                given = _shown(changed.given)
            raise MatchStoreError(
                f"{self.out} holds the games of another match (stored in {self.path.name}), played with {played}; "
                f"this one gives {given}. Give the same to resume it, or another --out for a new match (or move "
                f"{self.out.name} and {self.path.name} away)") from None

    @classmethod
    def create(cls, out: Path, identity: dict[str, Any], bots: list[str]) -> MatchStore:
        """A new store for a match about to start; what `out` holds now is its records'
        prefix, never touched."""
        prefix = RecordsPrefix.of(out)
        meta = {"records_prefix": json.dumps({"size": prefix.size, "sha256": prefix.sha256})}
        path = store_path(out)
        check_folder(path.parent)
        store = _locked(path, lambda: LeagueStore.open(path, identity, kind=KIND, meta=meta))
        made = cls(store, out, created=True)
        try:
            roster = [bots[0], bots[1] if bots[1] != bots[0] else f"{bots[1]}-2"]
            store.extend(roster, [])
        except BaseException:
            made.close()
            raise
        return made

    def seeds(self) -> tuple[int, int]:
        """The chance seed and the bots' seed the match was started with."""
        identity = self.store.identity()
        return int(identity["seed"]), int(identity["bot_seed"])

    def schedule(self, games: int, seed: int, deals: Deals = "duplicate") -> list[ScheduledGame]:
        """The match's first `games` games (pairs: seats swapped, the same seed, or with
        fresh deals a seed each), adding to the stored schedule those it lacks."""
        stored = {game.index: game for game in self.store.scheduled()}
        wanted = [ScheduledGame(i, 0, rotated((0, 1), i % 2), cycle_seed(seed, deal_number(deals, i // 2, i)),
                                str(i + 1), i // 2, i)
                  for i in range(games)]
        self.store.extend([], [game for game in wanted if game.index not in stored])
        return wanted

    def stored_games(self) -> list[StoredMatchGame]:
        """Every game stored by earlier runs, in match order."""
        texts = self.store.records_by_index()
        kept = []
        for game in self.store.games():
            record = read_text(texts[game.index])[0]
            faults = [SeatFault(f.seat, Termination(f.reason), f.detail, f.ply) for f in game.faults]
            outcome = GameOutcome(record, game.ranks, game.scores, faults, Termination(game.termination), game.plies)
            kept.append(StoredMatchGame(game.index, game.seats, outcome))
        return kept

    def sync_records(self) -> str | None:
        """Bring the records file in line with the store; what became of a file that held
        games the store does not (kept aside), if that happened."""
        raw = json.loads(self.store.meta("records_prefix") or "{}")
        prefix = RecordsPrefix(int(raw.get("size", 0)), str(raw.get("sha256", "")))
        try:
            kept = self.store.sync_record_file(self.out, prefix)
        except OSError as exc:
            raise MatchStoreError(f"cannot rewrite {self.out} ({exc.strerror}); the games are safe in "
                                  f"{self.path}: fix it and run the same command again") from None
        if kept is None:
            return None
        return f"{self.out} held games that are not this match's stored ones; it was kept as {kept.name} and rebuilt"

    def save(self, game: ScheduledGame, outcome: GameOutcome) -> bool:
        """Store a finished game and append its record (in a worker thread: both end in
        an fsync); False if it was stored before."""
        faults = [StoredFault(f.seat, game.seats[f.seat], f.reason, f.detail, f.ply) for f in outcome.faults]
        if not self.store.save_game(game, outcome.ranks, outcome.scores, faults, outcome.termination, outcome.record):
            return False
        try:
            append(self.out, outcome.record)
        except OSError as exc:
            raise MatchStoreError(
                f"cannot append to {self.out} ({exc.strerror}); every finished game is stored in {self.path}: fix "
                "the cause and run the same command again to resume") from None
        return True

    def count(self) -> int:
        return len(self.store.finished_indices())

    def close(self) -> None:
        """Close the store; one this run made that holds no game is removed (nothing to
        resume: the next run starts afresh, with whatever bots it names)."""
        empty = self.created and not self.count()
        self.store.close()
        if empty:
            for leftover in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                with contextlib.suppress(OSError):
                    leftover.unlink()


def _locked(path: Path, opening: Callable[[], LeagueStore]) -> LeagueStore:
    """The match's store opened under its run lock (held until the store closes): a
    second `arena match` with the same --out is refused, naming the first."""
    lock = RunLock.take(path, f"the match stored in {path}")
    try:
        store = opening()
    except BaseException:
        lock.release()
        raise
    store.run_lock = lock
    return store


def _openings_shown(names: object, identity: dict[str, Any]) -> str:
    """A match's openings as the option that gives them: `--openings shipped` for the
    arena's own book of the game, else `--openings FILE` with how many and the first
    (the file's name is not stored; its openings are); `no --openings` for none."""
    if not isinstance(names, list) or not names:
        return "no --openings"
    with contextlib.suppress(ArenaError, KeyError):
        game = games.get(str(identity["game"]))
        options = {str(k): str(v) for k, v in dict(identity.get("options") or {}).items()}
        shipped = [opening.name for opening in load_openings(Path(SHIPPED), game, 2, options)]
        if names == shipped:
            return f"--openings {SHIPPED}"
    return f"--openings FILE holding {len(names)} opening(s), the first {_shown(names[0])}"


def _shown(value: object) -> str:
    if value is None:
        return "none"
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "..."
