"""Play a league's pending games: each unit's bots (a table's, or in a game with
chance dealt duplicate a table's for a span of cycles) start once and serve its games
(the match layer restarts a bot after a crash); finished games are stored at once."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import trio

from arena.league.config import League
from arena.league.database import check_folder
from arena.league.deal_locks import unit_deals
from arena.league.executor import Executor, Job, LocalExecutor
from arena.league.growth import LeaguePlan, plan_league
from arena.league.run_lock import RunLock
from arena.league.schedule import ScheduledGame, game_origin, work_units
from arena.league.store import LeagueStore, LeagueStoreError, StoredFault, StoredGame
from arena.league.under_way import GamesUnderWay
from arena.process.spec import BotSpec
from arena.records.files import append
from arena.records.record import Ply
from arena.referee.match import MatchConfig, PlannedGame, opening_of_cycle
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import derived_bot_seed
from arena.referee.timeouts import termination_text


@dataclass
class LeagueProgress:
    """What the live view shows; updated by the runner as games finish."""

    total: int
    done: int
    games: list[StoredGame]
    played_now: int = 0
    in_flight: int = 0
    """Games being played now."""
    playing: set[int] = field(default_factory=set)
    """Schedule indices of the games under way (cut off by an interruption, they are
    replayed on resume)."""
    started: float = field(default_factory=time.monotonic)
    latest: deque[str] = field(default_factory=lambda: deque(maxlen=6))
    news: int = 0
    """Lines added to `latest` so far (a printer's cursor)."""
    names: list[str] = field(default_factory=list)
    """Every bot of the league's database by number (what the games' seats hold)."""

    def tell(self, line: str) -> None:
        self.latest.append(line)
        self.news += 1

    def eta_seconds(self) -> float | None:
        """Remaining time at this run's pace; None before the first game ends."""
        if not self.played_now:
            return None
        pace = (time.monotonic() - self.started) / self.played_now
        return pace * (self.total - self.done)


def open_league(league: League, grow: bool = True) -> tuple[LeagueStore, list[ScheduledGame]]:
    """Open (or create) the league's database, checked against the league file; the
    store (its `notes` say what changed) and the league's games in playing order (see
    open_league_plan)."""
    store, plan = open_league_plan(league, grow)
    return store, plan.active


def open_league_plan(league: League, grow: bool = True) -> tuple[LeagueStore, LeaguePlan]:
    """Open (or create) the league's database, checked against the league file, with
    the league file's schedule matched to the stored one (arena.league.growth): with
    `grow`, new bots and games are added to it (a run), else only counted (a table).
    The records file is brought in line with the database (a differing file is kept
    aside first: see LeagueStore.sync_record_file)."""
    lock = None
    if grow:  # a run: one at a time
        check_folder(league.database.parent)
        lock = RunLock.take(league.database, f"league {league.name!r}")
    try:
        store = LeagueStore.open(league.database, league.identity(), league.records,
                                 defaults=league.IDENTITY_DEFAULTS)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    store.run_lock = lock
    try:
        stored = store.scheduled()
        plan = plan_league(league, store.roster(), stored, store.finished_indices())
        if grow:
            store.extend(plan.new_bots, plan.new_games)
        if stored and (growth := plan.growth(grow)) is not None:
            store.notes.append(f"{league.name}: {growth}")
        store.kept_records = store.sync_record_file(league.records)
    except OSError as exc:
        store.close()
        raise LeagueStoreError(f"cannot rewrite {league.records} ({exc.strerror}); the database is intact: "
                               "free space or fix the folder, then run again") from None
    except BaseException:
        store.close()
        raise
    return store, plan


class LeagueRunner:
    """Runs the pending games of an opened league through an executor (this machine,
    `league.concurrency` jobs at once, unless another is given: a cluster's), and
    stores each game the moment it ends. It is the executor's GameSink."""

    def __init__(self, league: League, store: LeagueStore, schedule: list[ScheduledGame],
                 on_change: Callable[[], None] | None = None, executor: Executor | None = None,
                 prepared: bool = False) -> None:
        self.league = league
        self.prepared = prepared
        """Whether the league's session checked its bots before the first game
        (arena.session.league): then no table checks them again on this machine."""
        self.store = store
        self.roster = store.roster()
        """Every bot of the league's database by number (the seats' numbers)."""
        active = {game.index for game in schedule}
        finished = store.finished_indices() & active
        attempts = {v.index: v.attempts for v in store.void_games()}
        allowed = 1 + league.infrastructure_retries
        self.pending = [g for g in schedule if g.index not in finished and attempts.get(g.index, 0) < allowed]
        self.given_up = [g for g in schedule if g.index not in finished and attempts.get(g.index, 0) >= allowed]
        """Games voided by the arena's own errors too often: reported, not played."""
        self.progress = LeagueProgress(total=len(schedule), done=len(finished),
                                       games=[g for g in store.games() if g.index in active], names=self.roster)
        self.on_change = on_change or (lambda: None)
        self.executor: Executor = executor or LocalExecutor(league.concurrency, league.affinity)
        self.voided: list[tuple[ScheduledGame, GameOutcome]] = []
        """Games of this run stopped by the arena's own errors (played again next run)."""
        self.secret = store.secret
        self.under_way = GamesUnderWay(league.game.id, league.output)
        """The games in flight, ply by ply (the live page's boards)."""
        self._storing = trio.Lock()
        """One game stored at a time, in the order the games ended."""

    async def run(self) -> None:
        """Play the pending games; a store that fails (a full disk) stops every table
        at once with a LeagueStoreError, the games stored so far intact."""
        units = work_units(self.pending, self.league.seats, self.executor.wanted_jobs(), self.league.shares_deals)
        jobs = [self.job(unit) for unit in units]
        async with trio.open_nursery() as beside:
            beside.start_soon(self.under_way.keep_file)
            try:
                await self.executor.play(jobs, self)
            finally:
                beside.cancel_scope.cancel()

    def specs(self, table: tuple[int, ...]) -> list[BotSpec]:
        """The table's bots, each with its seed (from the league's secret and the bot's
        number, which stays its own when the league grows) and its time control (its
        own, else the league's)."""
        specs = []
        for bot in table:
            spec = self.league.bot_named(self.roster[bot])
            specs.append(replace(spec, env=dict(spec.env), bot_seed=derived_bot_seed(self.secret, bot),
                                 time_control=spec.time_control or self.league.time_control))
        return specs

    def job(self, unit: list[ScheduledGame]) -> Job:
        """A run of one table's games as a job for the executor, with the deals its
        processes see (which no other job may hold while it runs)."""
        table = tuple(sorted(set(unit[0].seats)))
        league = self.league
        plan = tuple(self.planned(game, table) for game in unit)
        config = MatchConfig(
            league.game, league.options, games=len(plan), event=league.event,
            log_dir=league.logs / f"table-{unit[0].table + 1}", limits=league.limits, timing=league.timing,
            plan=plan, chance_key=self.secret, hidden=(league.output, league.database, league.records),
            log_protocol=league.log_protocol, random_opening=league.random_opening, prepared=self.prepared,
        )
        return Job(unit, self.specs(table), config, unit_deals(unit, league.game.has_chance))

    def planned(self, game: ScheduledGame, table: tuple[int, ...]) -> PlannedGame:
        """A game of the schedule as its table plays it: seats as places in `table`, its
        seed and the origin its record tells (Seed, Cycle and, with fresh deals, Rotation),
        and its rotation cycle's opening."""
        origin, rotation = game_origin(self.league, game)
        return PlannedGame(tuple(table.index(b) for b in game.seats), game.seed, game.round,
                           opening_of_cycle(self.league.openings, game.cycle), origin, game.place, rotation)

    # ---- the executor's sink -------------------------------------------------------------

    def starting(self, game: ScheduledGame) -> None:
        league = self.league
        self.progress.playing.add(game.index)
        self.progress.in_flight = len(self.progress.playing)
        self.under_way.begin(game.index, game.round, [self.roster[b] for b in game.seats], dict(league.options))
        self.on_change()

    def ply(self, game: ScheduledGame, ply: Ply) -> None:
        self.under_way.ply(game.index, ply)

    async def finished(self, game: ScheduledGame, outcome: GameOutcome) -> None:
        """Store a finished game: the database and the records file are written in a
        worker thread (each write ends in an fsync, which must not hold the event loop
        that keeps the other tables' clocks), one game at a time."""
        self.progress.playing.discard(game.index)
        self.progress.in_flight = len(self.progress.playing)
        self.under_way.end(game.index)
        async with self._storing:
            if outcome.void:
                await trio.to_thread.run_sync(self._store_void, game, outcome)
                self.voided.append((game, outcome))
                error = outcome.record.tags.get("TerminationDetail", "")
                self.progress.tell(f"round {game.round}: void, an error of the arena ({error[:120]})")
                self.on_change()
                return
            faults = [StoredFault(f.seat, game.seats[f.seat], f.reason, f.detail, f.ply) for f in outcome.faults]
            if await trio.to_thread.run_sync(self._store_game, game, outcome, faults):
                progress = self.progress
                progress.done += 1
                progress.played_now += 1
                progress.games.append(StoredGame(
                    game.index, game.table, game.seats, game.seed, outcome.ranks, outcome.scores, tuple(faults),
                    outcome.termination, len(outcome.record.plies)))
                progress.tell(describe_game(self.roster, game, outcome))
                self.on_change()

    # ---- in a worker thread ----------------------------------------------------------------

    def _store_game(self, game: ScheduledGame, outcome: GameOutcome, faults: list[StoredFault]) -> bool:
        """Store the game and append its record; False if it was stored before."""
        if not self.store.save_game(game, outcome.ranks, outcome.scores, faults, outcome.termination, outcome.record):
            return False
        try:
            append(self.league.records, outcome.record)
        except OSError as exc:
            raise LeagueStoreError(
                f"cannot append to {self.league.records} ({exc.strerror}); every finished game is stored in "
                f"{self.league.database}: fix the cause and run the same command again to resume") from None
        return True

    def _store_void(self, game: ScheduledGame, outcome: GameOutcome) -> None:
        """A game the arena's own error stopped: counted, logged with its traceback,
        played again on a later run (up to the league's infrastructure_retries)."""
        error = outcome.record.tags.get("TerminationDetail", "")
        attempts = self.store.save_void(game, error)
        log = self.league.logs / "arena-errors.log"
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as handle:
                handle.write(f"--- {datetime.now(UTC).isoformat(timespec='seconds')} game {game.index} "
                             f"(round {game.round}), attempt {attempts}\n{outcome.error or error}\n")
        except OSError:
            pass  # the log is a courtesy; the void game is counted in the database


def describe_game(names: list[str], game: ScheduledGame, outcome: GameOutcome) -> str:
    """'round 3.2: greedy #1 (7), random #2 (3) [normal]' (`names`: the roster); a game
    ended on time says who and by how much: '[time-out: greedy answered after 419 ms,
    limit 100 ms]'."""
    parts = []
    for seat, bot in enumerate(game.seats):
        score = f" ({outcome.scores[seat]:g})" if outcome.scores else ""
        parts.append(f"{names[bot]} #{outcome.ranks[seat]}{score}")
    return f"round {game.round}: " + ", ".join(parts) + f" [{termination_text(outcome)}]"
