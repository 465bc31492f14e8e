"""The ladder's games, without end: `concurrency` slots, each of which asks the
matchmaker for the next unit (a table's versions for one seat rotation: every version
plays every seat once, all on one deal in a game with chance), plays it through an
executor (this machine's, or a Dask cluster's through the league's executor seam) and
stores each game the moment it ends, with the ratings it gives.

A unit's number is stored before it plays and its seed derives from the ladder's
secret and that number alone, so no two units ever share a deal, across tables and
across interruptions: one entrant never holds one deal at two tables. A unit cut off
by an interruption loses only its unfinished game; a finished game is never lost."""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import trio

from arena import records
from arena.ladder.config import Ladder, LadderTable
from arena.ladder.matchmaking import Contender, choose_table, rotations
from arena.ladder.store import LadderStore, Playing, SeatResult
from arena.ladder.submissions import bot_spec, version_folder
from arena.league.deal_locks import unit_deals
from arena.league.executor import Executor, Job, LocalExecutor
from arena.league.schedule import ScheduledGame
from arena.league.under_way import GamesUnderWay
from arena.process.botnames import BotNameError
from arena.process.faults import SeatFault
from arena.process.spec import BotSpec
from arena.records.record import Ply
from arena.referee.match import MatchConfig, PlannedGame
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import MAX_SEED, derived_bot_seed

IDLE_WAIT_S = 2.0
"""How long an idle slot waits before asking again (a new version wakes it sooner)."""


def unit_seed(secret: bytes, unit: int) -> int:
    """The deal of unit `unit`: from the ladder's secret, so no bot can foresee it."""
    digest = hashlib.blake2b(f"unit:{unit}".encode(), key=secret[:64], digest_size=8).digest()
    return int.from_bytes(digest, "big") % (MAX_SEED + 1)


@dataclass
class Unit:
    """One unit to play: its table, versions (in the first game's seat order) and games."""

    number: int
    table: LadderTable
    versions: tuple[Playing, ...]
    games: list[ScheduledGame]
    seed: int


VOID_PAUSE = 3
"""Units in a row the arena's own error stopped, against different opponents, before
the version in all of them is paused (else the matchmaker, finding it uncertain, would
seat it again and again and the ladder would void every unit)."""


class VoidStreaks:
    """Which version keeps meeting the arena's errors: per version, the opponents of
    its units voided in a row (a counted game ends its streak)."""

    def __init__(self) -> None:
        self._streaks: dict[int, dict[int, frozenset[int]]] = {}

    def voided(self, unit: Unit) -> list[Playing]:
        """Count a void game of `unit`; the versions to pause now."""
        pause = []
        for playing in unit.versions:
            streak = self._streaks.setdefault(playing.version, {})
            streak[unit.number] = frozenset(p.version for p in unit.versions if p is not playing)
            opponents = frozenset().union(*streak.values())
            if len(streak) >= VOID_PAUSE and len(opponents) >= 2:
                pause.append(playing)
                del self._streaks[playing.version]
        return pause

    def counted(self, unit: Unit) -> None:
        for playing in unit.versions:
            self._streaks.pop(playing.version, None)


@dataclass
class SlotClock:
    """How much of the time the slots spent playing (the bench's busy share)."""

    started: float = field(default_factory=time.monotonic)
    busy: float = 0.0

    def share(self, slots: int) -> float:
        elapsed = (time.monotonic() - self.started) * slots
        return self.busy / elapsed if elapsed > 0 else 0.0


class LadderRunner:
    """Plays the ladder's units until cancelled; the executor's GameSink."""

    def __init__(self, ladder: Ladder, store: LadderStore,
                 executor_factory: Callable[[], Executor] | None = None,
                 tell: Callable[[str], None] = lambda line: None) -> None:
        self.ladder = ladder
        self.store = store
        self.executor_factory = executor_factory or (lambda: LocalExecutor(1))
        self.tell = tell
        self.secret = store.secret
        self.under_way = {t.key: GamesUnderWay(t.game.id, None) for t in ladder.tables}
        self.units_under_way: dict[int, Unit] = {}
        self._by_game: dict[int, Unit] = {}
        self._wake = trio.Event()
        self._rng = random.Random()
        self._turn = 0
        self._storing = trio.Lock()
        self._choosing = trio.Lock()
        self.clock = SlotClock()
        self.games_played = 0
        self.voids = VoidStreaks()

    def wake(self) -> None:
        """Something changed (a version became ready, a bot resumed): idle slots look again."""
        self._wake.set()

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(self.ladder.concurrency):
                nursery.start_soon(self._slot)

    async def _slot(self) -> None:
        executor = self.executor_factory()
        while True:
            async with self._choosing:  # one choice at a time: each sees the units the others chose
                unit = await trio.to_thread.run_sync(self._next_unit, self._busy())
                if unit is not None:
                    self.units_under_way[unit.number] = unit
                    for game in unit.games:
                        self._by_game[game.index] = unit
            if unit is None:
                with trio.move_on_after(IDLE_WAIT_S):
                    await self._wake.wait()
                self._wake = trio.Event() if self._wake.is_set() else self._wake
                continue
            started = time.monotonic()
            try:
                job = await trio.to_thread.run_sync(self._job, unit)  # resolving commands reads the disk
                await executor.play([job], self)
            except BotNameError as exc:
                self.tell(f"unit {unit.number}: cannot start a bot ({exc})")
            finally:
                self.clock.busy += time.monotonic() - started
                self._end(unit)

    # ---- choosing -------------------------------------------------------------------------

    def _busy(self) -> dict[int, int]:
        busy: dict[int, int] = {}
        for unit in self.units_under_way.values():
            for playing in unit.versions:
                busy[playing.version] = busy.get(playing.version, 0) + 1
        return busy

    def _next_unit(self, busy: dict[int, int]) -> Unit | None:
        """The next unit, from the tables in turn (in a worker thread: it reads the store
        and stores the unit's number); `busy`: units under way per version."""
        tables = self.ladder.tables
        for k in range(len(tables)):
            table = tables[(self._turn + k) % len(tables)]
            entrants = self.store.playing(table.key)
            contenders = [Contender(p.version, p.entrant, p.skill, p.games, busy.get(p.version, 0)) for p in entrants]
            chosen = choose_table(contenders, table.seats, self.ladder.min_games, self._rng,
                                  self.ladder.max_playing)
            if chosen is None:
                continue
            self._turn = (self._turn + k + 1) % len(tables)
            by_version = {p.version: p for p in entrants}
            versions = tuple(by_version[v] for v in chosen)
            number = self.store.next_unit()
            seed = unit_seed(self.secret, number)
            games = [ScheduledGame(number * 1000 + place, number, seating, seed, f"{number}.{place + 1}", 0, place)
                     for place, seating in enumerate(rotations(chosen))]
            return Unit(number, table, versions, games, seed)
        return None

    def _end(self, unit: Unit) -> None:
        self.units_under_way.pop(unit.number, None)
        for game in unit.games:
            self._by_game.pop(game.index, None)
            self.under_way[unit.table.key].end(game.index)
        self.wake()

    def _job(self, unit: Unit) -> Job:
        table = unit.table
        order = [p.version for p in unit.versions]
        specs: list[BotSpec] = []
        for playing in unit.versions:
            language = self.ladder.languages[playing.language]
            folder = version_folder(self.ladder, playing.bot, playing.number)
            spec = bot_spec(self.ladder, language, folder, f"{playing.bot_name} v{playing.number}", table.game)
            specs.append(replace(spec, bot_seed=derived_bot_seed(self.secret, unit.number * 64 + len(specs)),
                                 time_control=table.time_control))
        plan = tuple(PlannedGame(tuple(order.index(v) for v in game.seats), game.seed, game.round)
                     for game in unit.games)
        ladder = self.ladder
        config = MatchConfig(table.game, table.options, games=len(plan), event=f"{ladder.name}: {table.key}",
                             log_dir=ladder.logs / f"unit-{unit.number}", limits=ladder.limits, timing=table.timing,
                             plan=plan, chance_key=self.secret,
                             hidden=(ladder.database, ladder.logs, ladder.folder / "ladder.toml"))
        return Job(unit.games, specs, config, unit_deals(unit.games, table.game.has_chance))

    # ---- the executor's sink -----------------------------------------------------------------

    def _labels(self, unit: Unit, game: ScheduledGame) -> list[str]:
        names = {p.version: f"{p.bot_name} v{p.number}" for p in unit.versions}
        return [names[v] for v in game.seats]

    def starting(self, game: ScheduledGame) -> None:
        unit = self._by_game.get(game.index)
        if unit is not None:
            self.under_way[unit.table.key].begin(game.index, game.round, self._labels(unit, game),
                                                 dict(unit.table.options))

    def ply(self, game: ScheduledGame, ply: Ply) -> None:
        unit = self._by_game.get(game.index)
        if unit is not None:
            self.under_way[unit.table.key].ply(game.index, ply)

    async def finished(self, game: ScheduledGame, outcome: GameOutcome) -> None:
        unit = self._by_game.get(game.index)
        if unit is None:
            return
        self.under_way[unit.table.key].end(game.index)
        async with self._storing:  # an ArenaError (a full disk) stops the executor, and the ladder
            await trio.to_thread.run_sync(self._store, unit, game, outcome)
        self.wake()

    def _log_arena_error(self, unit: Unit, error: str) -> None:
        """The arena's own errors, with their tracebacks, for the organiser."""
        try:
            self.ladder.logs.mkdir(parents=True, exist_ok=True)
            with (self.ladder.logs / "arena-errors.log").open("a", encoding="utf-8") as log:
                log.write(f"--- {datetime.now(UTC).isoformat(timespec='seconds')} unit {unit.number} "
                          f"({unit.table.key}): {', '.join(f'{p.bot_name} v{p.number}' for p in unit.versions)}\n"
                          f"{error}\n")
        except OSError:
            pass  # a courtesy: the void unit is in the database

    def _store(self, unit: Unit, game: ScheduledGame, outcome: GameOutcome) -> None:
        """In a worker thread: the game and its ratings in one transaction (a void one
        is kept apart, never scored), then the old logs pruned."""
        table = unit.table
        if outcome.void:
            error = outcome.error or outcome.record.tags.get("TerminationDetail", "")
            self.store.save_void(table.key, unit.number, list(game.seats), error)
            self._log_arena_error(unit, error)
            last = error.splitlines()[-1][:120] if error else ""
            self.tell(f"unit {unit.number}: void, an error of the arena ({last})")
            for playing in self.voids.voided(unit):
                why = (f"paused by the ladder: the arena's own error stopped its last {VOID_PAUSE} units, against "
                       "different opponents (its play may provoke it; the organiser finds the error in "
                       "logs/arena-errors.log); a new version, or the organiser's `arena ladder resume`, lets it play")
                self.store.set_status(playing.bot_name, "paused", why, actor="ladder")
                self.tell(f"{playing.bot_name}: {why}")
            return
        self.voids.counted(unit)
        first_fault: dict[int, SeatFault] = {}
        for fault in outcome.faults:
            first_fault.setdefault(fault.seat, fault)
        seats = []
        for seat, version in enumerate(game.seats):
            seat_fault = first_fault.get(seat)
            score = outcome.scores[seat] if outcome.scores is not None else None
            seats.append(SeatResult(version, outcome.ranks[seat], None if score is None or math.isnan(score) else score,
                                    None if seat_fault is None else str(seat_fault.reason),
                                    None if seat_fault is None else seat_fault.detail))
        stored = self.store.save_game(table.key, unit.number, game.seed, seats, str(outcome.termination),
                                      len(outcome.record.plies), records.write(outcome.record), True,
                                      self.ladder.pause_after_faults)
        self.games_played += 1
        labels = self._labels(unit, game)
        result = ", ".join(f"{name} #{rank}" for name, rank in zip(labels, outcome.ranks, strict=True))
        self.tell(f"game {stored.game} ({table.key}): {result} [{outcome.termination}]")
        for bot, why in stored.paused:
            self.tell(f"{bot}: {why}")
