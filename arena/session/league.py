"""A league's run as one piece, for the command line and for code: its store opened and
checked against the league file, its pending games played on this machine or on a
Dask cluster (with its live page beside them when asked), what keeps it from being
complete, and its standings so far. `run_league` and `league_table` are `arena league
run` and `arena league table` for Python (arena.league.run and arena.league.table)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import warnings
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import trio

from arena.league.config import League, load_league
from arena.league.runner import LeagueRunner, open_league, open_league_plan
from arena.league.standings import Standings, compute_standings, count_time_outs, restrict
from arena.process.faults import BotFault
from arena.process.folder_checks import check_bots
from arena.process.spec import BotSpec
from arena.referee.match import safe_file_name
from arena.referee.player import BotPlayer
from arena.referee.scheduling import concurrency_refusal
from arena.session.request import isolation_notes
from arena.session.runner import run_sync
from arena.session.setup import SetupError
from arena.termination import Termination

if TYPE_CHECKING:
    from arena.cluster.executor import DaskExecutor

Say = Callable[[str], None]
"""Where a session tells a person what it is doing (connecting, a page's address)."""


EXIT_WAIT_S = 1.0
"""How long a bot that failed its handshake is given to end, to tell a command that
cannot work (it ends) from a bot that runs but answered wrongly."""


class LeagueSession:
    """An opened league: its store, its runner, and the cluster that plays it, if any.
    A context manager: leaving it closes the store and the cluster's connection."""

    def __init__(self, league: League) -> None:
        self.league = league
        # Before anything is written: no sandboxed bot's folder may hold the league's output.
        check_bots(league.bots, league.limits, (league.output, league.database, league.records, league.logs))
        self.store, schedule = open_league(league)  # ArenaError or OSError: nothing is left open
        self.runner = LeagueRunner(league, self.store, schedule, prepared=True)  # its bots checked above
        self.executor: DaskExecutor | None = None

    @property
    def notes(self) -> list[str]:
        """What opening the league did that a person should hear of: its database
        upgraded from an older arena's, bots or games added, bots removed."""
        return list(self.store.notes)

    @property
    def kept_records(self) -> str | None:
        """What became of a record file that held games the database does not (kept
        aside under this name, and rebuilt from the database), if that happened."""
        kept = self.store.kept_records
        return None if kept is None else (f"{self.league.records} held games the database does not; it was kept as "
                                          f"{kept.name} and rebuilt from the database")

    def connect(self, say: Say) -> None:
        """Connect to the league's Dask cluster, when it has one, after checking that
        its bots' folders can travel; ArenaError if it cannot be used."""
        league = self.league
        if league.cluster is None:
            return
        from arena.cluster.executor import DaskExecutor, check_folders

        leave_out = (league.output.resolve(),)
        check_folders(league.bots, leave_out, league.max_folder_mb)
        executor = DaskExecutor(league.cluster, leave_out)
        say(f"connecting to the Dask cluster {league.cluster} ...")
        executor.connect()
        self.executor = executor
        self.runner.executor = executor
        say(f"the cluster has {executor.threads()} worker thread(s): {executor.threads()} games at once")

    async def check_startups(self) -> None:
        """Start every bot of the league once and end it after its handshake, before
        the first game: a bot whose command cannot work (its process ends before it
        answers hello, or it says nothing in the start-up time) is a SetupError naming
        it (as `arena play` says it), not a league of forfeits. A bot that runs but
        answers wrongly is left to its games, where each such answer is its fault (a
        league of strangers' bots plays on). On a cluster the workers start the bots,
        so it is left to them."""
        league = self.league
        if league.cluster is not None:
            return
        scratch = Path(tempfile.mkdtemp(prefix="arena-startup-"))
        try:
            await self._start_each(scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    async def _start_each(self, scratch: Path) -> None:
        """check_startups' work: the logs go to `scratch`, and only a failing bot's is
        kept (in the league's logs/startup/), so the tables' log folders hold games only."""
        league = self.league
        hidden = (league.output, league.database, league.records)
        slots = trio.CapacityLimiter(max(1, league.concurrency))
        failures: list[tuple[str, Path, str]] = []

        async def start_one(spec: BotSpec, nursery: trio.Nursery) -> None:
            name = f"{safe_file_name(spec.name)}.log"
            log = scratch / name
            player = BotPlayer(spec, log, spec.limits or league.limits, league.timing, hidden=hidden)
            async with slots:
                try:
                    await player.start(nursery)
                except BotFault as fault:
                    channel = player.channel
                    if channel is not None and fault.reason != Termination.STARTUP_TIMEOUT:
                        with trio.move_on_after(EXIT_WAIT_S):  # a process that is ending: let it end
                            await channel.exited()
                    running = channel is not None and channel.running
                    if fault.reason == Termination.STARTUP_TIMEOUT or not running:  # its command cannot work
                        failures.append((spec.name, log, fault.detail))
                finally:
                    with trio.CancelScope(shield=True):
                        await player.quit()

        async with trio.open_nursery() as bots:
            async with trio.open_nursery() as starts:
                for spec in league.bots:
                    starts.start_soon(start_one, spec, bots)
            bots.cancel_scope.cancel()
        if failures:
            raise SetupError("; ".join(sorted(self._keep_log(*failure) for failure in failures))
                             + ": no game was played")

    def _keep_log(self, name: str, log: Path, detail: str) -> str:
        """A bot that never started: its start-up log kept in the league's logs, and
        what to say of it."""
        kept = self.league.logs / "startup" / log.name
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, kept)
        return f"{name} never started ({detail.replace(str(log), str(kept))}); check its command (its stderr: {kept})"

    async def run(self, page: tuple[str, int] | None = None, announce: Say | None = None) -> None:
        """Play every pending game, storing each as it ends; with `page` (host, port),
        serve the league's live page beside them, `announce` getting its address.
        Every bot is started once first (check_startups)."""
        await self.check_startups()
        if page is None:
            await self.runner.run()
            return
        from arena.web.live import in_process_page
        from arena.web.server import serve_during

        host, port = page
        await serve_during(in_process_page(self.league, self.runner.under_way).app, host, port,
                           announce or (lambda url: None), self.runner.run)

    def stored(self) -> int:
        """Games of the league stored in the database so far."""
        return self.runner.progress.done

    def unfinished(self) -> str:
        """Why the league is not complete after a run ("" when it is): games voided by
        the arena's own errors, or given up after too many."""
        league, runner = self.league, self.runner
        log = league.logs / "arena-errors.log"
        if runner.voided:
            rounds = ", ".join(game.round for game, _ in runner.voided[:10])
            return (f"{len(runner.voided)} game(s) were stopped by an error of the arena (rounds {rounds}); they are "
                    f"void, not scored, and are played again when the league is run again. Tracebacks: {log}")
        if runner.given_up:
            rounds = ", ".join(game.round for game in runner.given_up[:10])
            return (f"{len(runner.given_up)} game(s) failed with an error of the arena "
                    f"{1 + league.infrastructure_retries} times (rounds {rounds}) and are left out; tracebacks: "
                    f"{log}. Please report it; raise infrastructure_retries in the league file to try them again")
        return ""

    def close(self) -> None:
        self.store.close()
        if self.executor is not None:
            self.executor.close()

    def __enter__(self) -> LeagueSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def league_standings(league: League, include_removed: bool = False) -> tuple[Standings, int, list[str]]:
    """The standings of the league's games stored so far (with `include_removed`, also
    of bots the league file no longer names, and their games), the number of games
    the league file schedules, and what a person should hear of (an upgraded
    database, a league file that grew)."""
    store, plan = open_league_plan(league, grow=False)
    try:
        names = list(plan.roster)
        shown = plan.numbers([b.name for b in league.bots])
        if include_removed:
            removed = plan.numbers(plan.removed)
            shown += removed
            for bot in removed:
                names[bot] = f"{names[bot]} (removed)"
        names, games, voids = restrict(names, store.games(), store.void_seatings(), shown)
        standings = compute_standings(names, league.seats, games, league.game.score_name, voids, league.anchor)
        finished = {index: k for k, index in enumerate(store.finish_order())}
        in_order = sorted(games, key=lambda game: finished.get(game.index, len(finished)))
        standings.time_outs = count_time_outs(names, in_order, league.time_control.basis)
        return standings, len(plan.active), list(store.notes)
    finally:
        store.close()


def run_league(path: str | PathLike[str], *, cluster: str | None = None, affinity: bool = False,
               force_concurrency: bool = False, on_progress: Callable[[str], None] | None = None) -> Standings:
    """Run (or resume) the league of the league file `path` as `arena league run` does:
    every scheduled game not yet stored is played and stored as it ends, in the league's
    output folder, so a run that stops (Ctrl-C: KeyboardInterrupt) resumes at the next
    call. Returns the standings of every stored game. `cluster` (a Dask scheduler's
    address, or local:N) and `affinity` are the command's --cluster and --affinity; a
    concurrency above this machine's cores on the wall basis is a SetupError unless
    `force_concurrency`. `on_progress` gets a line for each game as it ends. What a person
    should hear (notes, games voided by the arena's own errors) comes as RuntimeWarnings."""
    league = load_league(Path(path))
    if cluster is not None:
        league.cluster = cluster
    league.affinity = league.affinity or affinity
    if league.cluster is None:
        refusal = concurrency_refusal(league.concurrency, league.time_control.basis,
                                      ("concurrency in the league file", 'basis = "cpu" under [time]',
                                       "force_concurrency=True"))
        if refusal is not None and not force_concurrency:
            raise SetupError(refusal)
    for note in [*league.warnings, *isolation_notes(league.limits)]:
        _tell(note)
    with LeagueSession(league) as session:
        for note in session.notes:
            _tell(note)
        if session.kept_records is not None:
            _tell(session.kept_records)
        if session.runner.pending:
            session.connect(_tell)
            if on_progress is not None:
                progress, told = session.runner.progress, [session.runner.progress.news]

                def tell_games() -> None:
                    fresh = min(progress.news - told[0], len(progress.latest))
                    told[0] = progress.news
                    for line in list(progress.latest)[len(progress.latest) - fresh:]:
                        on_progress(line)

                session.runner.on_change = tell_games
            run_sync(session.run)
        unfinished = session.unfinished()
    if unfinished:
        _tell(unfinished)
    return league_standings(league)[0]


def league_table(path: str | PathLike[str], *, include_removed: bool = False) -> Standings:
    """The standings of the games of the league file `path` stored so far, as `arena
    league table` shows them (with `include_removed`, also of bots the file no longer
    names); a league that has not started has none (SetupError)."""
    league = load_league(Path(path))
    if not league.database.exists():
        raise SetupError(f"{league.name} has not started: no database in {league.output}; run it first "
                         f"(arena.league.run({str(path)!r}), or `arena league run {path}`)")
    return league_standings(league, include_removed)[0]


def _tell(note: str) -> None:
    warnings.warn(note, RuntimeWarning, stacklevel=3)
