"""Attacks on the referee's event loop, the one thing every table shares: a bot that
leaves tens of thousands of files or folders nested thousands deep for the referee to
clear, or that holds hundreds of thousands of descriptors when it times out and is
killed, must not make the referee block (and so charge the bots thinking at other
tables), crash a match or a league, or leave a process behind.

Each attack is a zoo bot (bots/zoo/litter.py, bots/zoo/fd_hoard.py) played in 2-seat and
3-seat matches and in a league of three tables at 300 ms a move, under the default
settings. The default suite plays them at sizes that stalled the old referee for about
a second; -m slow plays them at the sizes first reported (a million files, two hundred
processes holding 20,000 descriptors each).

The league measures the referee's blocking itself: the CPU time of the event loop's
longest step (a loaded machine stretches a step's wall time, never its CPU time). Its
bots are charged on the CPU basis, and so are the honest bots of the matches: only the
attacks, never the machine's load, can charge anyone."""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from arena.league.config import BotEntry, League, LeagueFile, TimeSection, resolve_league
from arena.league.executor import GameSink, Job, LocalExecutor
from arena.league.runner import LeagueRunner, open_league
from arena.league.schedule import ScheduledGame
from arena.league.store import LeagueStore
from arena.process.botnames import resolve_bot
from arena.process.cgroups import cgroup_support
from arena.process.procfs import processes_in_group
from arena.process.spec import BotSpec
from arena.records.replay import verify
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import PlayedMatch, run_match
from tests.helpers.exclusive import apart_from_stalls
from tests.helpers.processes import ProcessGroups

SEATINGS = [2, 3]


@pytest.fixture(autouse=True, scope="module")
def _apart_from_stalls() -> Iterator[None]:
    """Innocent bots must never time out here: not beside the browser tests."""
    with apart_from_stalls():
        yield


def zoo(name: str, **env: str) -> BotSpec:
    spec = resolve_bot(f"zoo/{name}", "btt")
    spec.env.update(env)
    return spec


def honest() -> BotSpec:
    """The random bot, charged its CPU time (a time control of its own): a loaded machine
    times it out nowhere, whatever the match's limit on the wall clock."""
    spec = resolve_bot("random", "btt")
    spec.time_control = TimeControl(per_move_s=1.0, basis="cpu")
    return spec


def play(specs: list[BotSpec], logs: Path, games: int, per_move: float) -> PlayedMatch:
    return run_match("btt", specs, TimeControl(per_move_s=per_move), seed=7, games=games, log_dir=logs,
                     timing=Timing(startup_s=10.0, grace_s=0.05), chance_key=b"stall-attacks")


def assert_nothing_left(pgids: list[int]) -> None:
    """No process of any group the match started, and no cgroup of this process's."""
    assert pgids
    for pgid in pgids:
        assert processes_in_group(pgid) == [], f"process group {pgid} still has processes"
    for parent in cgroup_support().parents.values():
        assert list(parent.glob(f"arena-{os.getpid()}-*")) == []


def litter_reports(logs: Path) -> list[str]:
    return [line for log in sorted(logs.glob("*.log")) for line in log.read_text().splitlines()
            if line.startswith("LITTER ")]


@pytest.mark.parametrize("seats", SEATINGS)
@pytest.mark.parametrize(("kind", "count"), [("files", 24_000), ("deep", 5000)])
def test_litter_past_the_budget_gets_a_fresh_process_and_every_game_is_scored(
        tmp_path: Path, seats: int, kind: str, count: int) -> None:
    """The referee gives up emptying what the bot left past its budget (20,000 entries,
    48 levels): the bot gets a fresh process, whose folders are empty, for every game.
    5000 nested folders once made the emptying raise RecursionError (exit 70)."""
    games = 3
    attacker = zoo("litter", ZOO_LITTER=kind, ZOO_COUNT=str(count))
    result = play([attacker, *[honest()] * (seats - 1)], tmp_path, games=games, per_move=10.0)
    for outcome in result.outcomes:
        assert outcome.termination == "normal", outcome.record.tags.get("TerminationDetail")
        assert not outcome.void and verify(outcome.record) == []
    assert litter_reports(tmp_path) == [f"LITTER {kind}: {count} made"] * games
    # The attacker's seat got a new process group for each game; the others kept theirs.
    assert len(result.pgids) == games + seats - 1
    assert_nothing_left(result.pgids)


@pytest.mark.parametrize(("seats", "close"), [(2, ""), (3, "1")])
def test_a_descriptor_hoard_times_out_and_is_buried_whole(tmp_path: Path, seats: int, close: str) -> None:
    """Forty processes holding 5,000 descriptors each when the bot times out: the look
    for its closed pipes is bounded and off the event loop, and so is the kill; the bot
    loses for its time (its closed stdout may or may not be told apart, past the look's
    bound), the others finish."""
    attacker = zoo("fd_hoard", ZOO_CHILDREN="40", ZOO_FDS="5000", ZOO_CLOSE=close)
    result = play([attacker, *[honest()] * (seats - 1)], tmp_path, games=1, per_move=1.0)
    outcome = result.outcomes[0]
    log = next(tmp_path.glob("0-*.log")).read_text()
    assert "HOARD: 40 children x 5000 descriptors" in log
    assert [f.seat for f in outcome.faults] == [0]
    assert outcome.faults[0].reason in ("time-out", "closed-pipe")
    assert outcome.ranks[0] == seats and verify(outcome.record) == []
    if seats == 3:
        assert outcome.record.plies[-1].actor is not None  # the other two played on to the end
    assert_nothing_left(result.pgids)


# ---- a league of three tables ------------------------------------------------------------------

ATTACKERS = {
    "litter-files": BotEntry(name="litter-files", command="zoo/litter",
                             env={"ZOO_LITTER": "files", "ZOO_COUNT": "60000", "ZOO_BACKGROUND": "1"}),
    "litter-deep": BotEntry(name="litter-deep", command="zoo/litter", env={"ZOO_LITTER": "deep", "ZOO_COUNT": "5000"}),
    "fd-hoard": BotEntry(name="fd-hoard", command="zoo/fd_hoard", env={"ZOO_CHILDREN": "40", "ZOO_FDS": "5000",
                                                                       "ZOO_PLY": "2"}),
}
SLEEP_MS = 50
"""The innocent bots think this long every move (a sixth of the limit): their clocks run
most of the time, so a stall of the referee's loop lands on one."""
STEP_CPU_S = 0.05
"""The most CPU time one step of the referee's event loop may take: a step blocks every
table's clocks and pipes until it ends. Measured beside 4 CPU hogs on 2 cores: 2-4 ms at
most; with the emptying of a bot's folders moved back onto the loop, 190 ms."""


class LoopSteps(trio.abc.Instrument):
    """The CPU time of the event loop's longest task step, garbage collections left
    out (they pause every thread of the test process alike, and belong to pytest's heap
    as much as to the referee)."""

    def __init__(self) -> None:
        self.longest_s = 0.0
        self.longest_task = ""
        self._begun = self._collecting = self._collected = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.current_thread() is threading.main_thread():
            if phase == "start":
                self._collecting = time.thread_time()
            else:
                self._collected += time.thread_time() - self._collecting

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self._begun, self._collected = time.thread_time(), 0.0

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        spent = time.thread_time() - self._begun - self._collected
        if spent > self.longest_s:
            self.longest_s, self.longest_task = spent, task.name

    def close(self) -> None:
        gc.callbacks.remove(self._gc)


class WatchedExecutor(LocalExecutor):
    """This machine's executor, noting the process group of every bot it starts."""

    def __init__(self, league: League) -> None:
        super().__init__(league.concurrency, league.affinity)
        self.groups = ProcessGroups()

    async def play(self, jobs: list[Job], sink: GameSink) -> None:
        await super().play([replace(job, config=replace(job.config, launcher=self.groups.launcher(job.config.launcher)))
                            for job in jobs], sink)


def run_league(tmp_path: Path, attackers: list[BotEntry], innocents: int = 2) -> tuple[LeagueRunner, list[str]]:
    """A 2-seat round robin of the innocents and the attackers at 300 ms a move (CPU
    basis), three tables at once (with two innocents and one attacker: exactly three
    tables, one of them the innocents' alone); the loop's longest step is checked."""
    bots = [BotEntry(name=f"innocent-{i}", command="zoo/sleeper", env={"ZOO_SLEEP_MS": str(SLEEP_MS)})
            for i in range(innocents)] + attackers
    raw = LeagueFile(name="stall attacks", game="btt", seats=2, games_per_pairing=2, bots=bots, concurrency=3,
                     output=str(tmp_path / "league"), time=TimeSection(per_move="300ms", basis="cpu"))
    league = resolve_league(raw, tmp_path)
    store, schedule = open_league(league)
    runner = LeagueRunner(league, store, schedule, executor=WatchedExecutor(league))
    steps = LoopSteps()
    try:
        trio.run(runner.run, instruments=[steps])
    finally:
        store.close()
        steps.close()
    assert steps.longest_s < STEP_CPU_S, (f"the referee's loop blocked for {steps.longest_s * 1000:.0f} ms of CPU "
                                          f"in one step of {steps.longest_task}")
    return runner, [b.name for b in bots]


def assert_no_innocent_charged(runner: LeagueRunner, names: list[str], attackers: set[str]) -> None:
    games = runner.progress.games
    assert len(games) == runner.progress.total and runner.voided == [] and runner.given_up == []
    for game in games:
        for fault in game.faults:
            assert names[fault.bot] in attackers, f"{names[fault.bot]} was charged: {fault.reason} {fault.detail}"
        if not {names[b] for b in game.seats} & attackers:
            assert game.termination == "normal"
    assert isinstance(runner.executor, WatchedExecutor)
    assert_nothing_left(runner.executor.groups.pgids)


@pytest.mark.parametrize("attack", list(ATTACKERS))
def test_a_league_of_three_tables_charges_no_innocent_bot(tmp_path: Path, attack: str) -> None:
    """Three tables at 300 ms a move, the innocents thinking 50 ms a move; the
    attacker's table stalls nothing at the others: no step of the referee's loop takes
    long, every innocent bot's games are free of time-outs, every attacker's game is
    scored (none void, none given up)."""
    runner, names = run_league(tmp_path, [ATTACKERS[attack]])
    assert_no_innocent_charged(runner, names, {attack})


@pytest.mark.slow
def test_a_league_with_every_attacker_charges_no_innocent_bot(tmp_path: Path) -> None:
    runner, names = run_league(tmp_path, list(ATTACKERS.values()), innocents=3)
    assert_no_innocent_charged(runner, names, set(ATTACKERS))


def test_the_league_stores_its_games_from_a_worker_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Storing a game ends in an fsync (SQLite's synchronous=FULL, the records file's):
    it happens in a worker thread, never on the event loop's."""
    threads: list[bool] = []
    save_game = LeagueStore.save_game

    def spy(self: LeagueStore, *args: object, **kwargs: object) -> bool:
        threads.append(threading.current_thread() is threading.main_thread())
        return save_game(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LeagueStore, "save_game", spy)
    runner = LeagueRunner(*_league_parts(tmp_path))
    try:
        trio.run(runner.run)
    finally:
        runner.store.close()
    assert threads == [False] * runner.progress.total
    with sqlite3.connect(runner.league.database) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == runner.progress.total


def _league_parts(tmp_path: Path) -> tuple[League, LeagueStore, list[ScheduledGame]]:
    bots = [BotEntry(name="a", command="random"), BotEntry(name="b", command="random")]
    raw = LeagueFile(name="store", game="btt", seats=2, games_per_pairing=2, bots=bots,
                     output=str(tmp_path / "league"), time=TimeSection(per_move="2s"))
    league = resolve_league(raw, tmp_path)
    store, schedule = open_league(league)
    return league, store, schedule


@pytest.mark.slow
@pytest.mark.parametrize("attack", [
    BotEntry(name="litter-files", command="zoo/litter",
             env={"ZOO_LITTER": "files", "ZOO_COUNT": "1000000", "ZOO_BACKGROUND": "1"}),
    BotEntry(name="fd-hoard", command="zoo/fd_hoard", env={"ZOO_CHILDREN": "200", "ZOO_FDS": "20000",
                                                           "ZOO_PLY": "2"}),
], ids=["million-files", "200x20000-descriptors"])
def test_full_size_attacks_charge_no_innocent_bot(tmp_path: Path, attack: BotEntry) -> None:
    runner, names = run_league(tmp_path, [attack], innocents=3)
    assert_no_innocent_charged(runner, names, {attack.name})
