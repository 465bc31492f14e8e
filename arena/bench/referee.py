"""`arena bench`: what the referee costs per decision, beside what the pipe costs.

Every referee figure is printed next to a bare Trio loop that writes a typical request
to the same bot and reads its answer (raw non-blocking fds, wait_readable), measured in
the same run, so the ratio says how much the referee adds on top of the pipe itself;
and the same games on the CPU basis beside the wall basis, so the ratio says what the
CPU-time clock costs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import trio
from rich.console import Console
from rich.table import Table

from arena import games
from arena.process.bot_process import BotProcess
from arena.process.botnames import BOTS_DIR, resolve_bot
from arena.process.sandbox import probe
from arena.process.spec import BotSpec, Limits, timed
from arena.records.record import GameRecord
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.player import BotPlayer, Timing
from arena.timecontrol import TimeControl
from protocol.codec import encode
from protocol.messages import Clock, Event, Request


def compile_echo_bot(folder: Path) -> BotSpec | None:
    """The minimal C bot, compiled on the fly; None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    source = BOTS_DIR / "echo_bot.c"
    if cc is None or not source.exists():
        return None
    binary = folder / "echo_bot"
    done = subprocess.run([cc, "-O2", "-o", str(binary), str(source)], capture_output=True)
    return BotSpec("echo-c", [str(binary)]) if done.returncode == 0 else None


def typical_request() -> bytes:
    """A mid-game two-seat BTT request as the referee would send it."""
    game = games.get("btt")
    state = game.new_state(2, {})
    actions: list[str] = []
    for _ in range(12):
        action = state.legal_actions()[len(actions) % 3]
        actions.append(action)
        state.apply(action)
    request = Request(
        ply=13, clock=Clock(move_ms=5000), events=[Event(11, 0, actions[-2]), Event(12, 1, actions[-1])],
        legal=state.legal_actions(), observation=state.observation(0),
    )
    return encode(request)


async def bare_round_trip(spec: BotSpec, count: int) -> float:
    """Seconds per round trip of a bare loop: write the request, wait, read the line."""
    async with trio.open_nursery() as nursery:
        player = BotPlayer(spec, None, Limits(), Timing())
        try:
            await player.start(nursery)
            process = player.channel
            assert isinstance(process, BotProcess)
            data = typical_request()
            fd_in, fd_out = process._stdin, process._stdout  # noqa: SLF001 - the bare loop is the point
            begin = time.perf_counter()
            for _ in range(count):
                os.write(fd_in, data)
                received = b""
                while not received.endswith(b"\n"):
                    await trio.lowlevel.wait_readable(fd_out)
                    received += os.read(fd_out, 1 << 16)
            elapsed = time.perf_counter() - begin
        finally:
            player.kill()
            nursery.cancel_scope.cancel()
    return elapsed / count


@dataclass
class RefereeRun:
    decisions: int
    wall_s: float
    cpu_s: float
    records: list[GameRecord]


WALL_BASIS = TimeControl(per_move_s=5.0)
CPU_BASIS = TimeControl(per_move_s=5.0, basis="cpu")


async def _matches(specs: list[BotSpec], concurrent: int, games_each: int, limits: Limits = Limits(),
                   control: TimeControl = WALL_BASIS,
                   ) -> tuple[list[MatchResult], tuple[float, float], tuple[float, float]]:
    """Run the matches; all wait at a gate until every bot has started, and the clock
    stops when the last game ends, so the wall and CPU figures measure play, not
    process start-up or the bots' quitting. Returns the results, and the wall and CPU
    time at the gate and at the end of the last game."""
    game = games.get("btt")
    results: list[MatchResult] = []
    waiting = concurrent
    gate = trio.Event()
    opened = [0.0, 0.0]
    closed = [0.0, 0.0]

    def ended(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        closed[:] = [time.perf_counter(), time.process_time()]

    async def arrive(game_index: int) -> None:
        nonlocal waiting
        if game_index:
            return
        waiting -= 1
        if waiting == 0:
            opened[:] = [time.perf_counter(), time.process_time()]
            gate.set()
        await gate.wait()

    async def one(index: int) -> None:
        config = MatchConfig(game, {}, seed=index, games=games_each, event="bench", limits=limits)
        results.append(await play_match(config, timed(specs, control), on_game=ended, before_game=arrive))

    async with trio.open_nursery() as nursery:
        for index in range(concurrent):
            nursery.start_soon(one, index)
    return results, (opened[0], opened[1]), (closed[0], closed[1])


def referee_run(specs: list[BotSpec], concurrent: int, games_each: int, limits: Limits = Limits(),
                control: TimeControl = WALL_BASIS) -> RefereeRun:
    """Play BTT matches concurrently; decisions, wall time and the referee's own CPU,
    from the moment every bot is up to the end of the last game."""
    results, (wall_begin, cpu_begin), (wall_end, cpu_end) = trio.run(_matches, specs, concurrent, games_each, limits,
                                                                     control)
    wall = wall_end - wall_begin
    cpu = cpu_end - cpu_begin
    decisions = sum(o.decisions for r in results for o in r.outcomes)
    return RefereeRun(decisions, wall, cpu, [o.record for r in results for o in r.outcomes])


def rules_cpu_per_decision(records: list[GameRecord]) -> float:
    """CPU the rules alone take per decision (list legal, check, observe, apply), by
    replaying the recorded games: subtracted to give the referee's own share."""
    game = games.get("btt")
    decisions = 0
    begin = time.process_time()
    for record in records:
        state = game.new_state(int(record.tags["Seats"]), {})
        for ply in record.plies:
            state.legal_actions()
            state.is_legal(ply.action)
            state.apply(ply.action)
            decisions += 1
    return (time.process_time() - begin) / max(decisions, 1)


async def _startup_seconds(spec: BotSpec, limits: Limits, starts: int) -> float:
    """Mean seconds from launching a bot to its ready message."""
    total = 0.0
    async with trio.open_nursery() as nursery:
        for _ in range(starts):
            player = BotPlayer(spec, None, limits, Timing())
            begin = time.perf_counter()
            await player.start(nursery)
            total += time.perf_counter() - begin
            player.dispose()
        nursery.cancel_scope.cancel()
    return total / starts


def sandbox_table(bots: list[tuple[str, BotSpec]], games: int, starts: int = 20, rounds: int = 5) -> Table:
    """Start-up and round trip per decision with and without the sandbox, in one run:
    the two are measured in turn `rounds` times and the medians compared, so that the
    machine's drift over the run falls on both alike."""
    table = Table(title=f"The sandbox's cost (same run, same bots; medians of {rounds} alternating rounds)")
    for column in ("bot", "start-up, plain", "start-up, sandboxed", "difference", "RTT, plain", "RTT, sandboxed",
                   "RTT ratio"):
        table.add_column(column, justify="right")
    plain, boxed = Limits(sandbox=False), Limits(sandbox=True)
    for label, spec in bots:
        figures: dict[str, list[float]] = {"start plain": [], "start boxed": [], "rtt plain": [], "rtt boxed": []}
        for _ in range(rounds):
            for name, limits in (("plain", plain), ("boxed", boxed)):
                figures[f"start {name}"].append(trio.run(_startup_seconds, spec, limits, max(1, starts // rounds)))
                run = referee_run([spec, spec], 1, max(1, games // rounds), limits)
                figures[f"rtt {name}"].append(run.wall_s / run.decisions)
        middle = {name: statistics.median(values) for name, values in figures.items()}
        table.add_row(label, f"{middle['start plain'] * 1000:.1f} ms", f"{middle['start boxed'] * 1000:.1f} ms",
                      f"{(middle['start boxed'] - middle['start plain']) * 1000:+.1f} ms",
                      f"{middle['rtt plain'] * 1e6:.0f} us", f"{middle['rtt boxed'] * 1e6:.0f} us",
                      f"{middle['rtt boxed'] / middle['rtt plain']:.2f}x")
    return table


def basis_table(label: str, spec: BotSpec, games: int, rounds: int = 5) -> Table:
    """The CPU-time clock's cost: the same games on the wall basis and on the CPU basis
    (one more reading of the bot's CPU time per decision), in turn `rounds` times at 1
    and 8 games at once, and the median of the rounds' paired ratios of the referee's
    CPU per decision."""
    table = Table(title=f"The CPU-time clock's cost ({label}, same run; medians of {rounds} alternating rounds)")
    for column in ("games at once", "referee CPU, wall basis", "referee CPU, CPU basis", "ratio"):
        table.add_column(column, justify="right")
    for concurrent in (1, 8):
        cpu: dict[str, list[float]] = {"wall": [], "cpu": []}
        each = games if concurrent == 1 else max(4, games // concurrent)
        for number in range(rounds):
            order = (WALL_BASIS, CPU_BASIS) if number % 2 == 0 else (CPU_BASIS, WALL_BASIS)
            for control in order:
                run = referee_run([spec, spec], concurrent, each, control=control)
                cpu[control.basis].append(run.cpu_s / run.decisions)
        ratio = statistics.median(c / w for c, w in zip(cpu["cpu"], cpu["wall"]))
        table.add_row(str(concurrent), f"{statistics.median(cpu['wall']) * 1e6:.1f} us",
                      f"{statistics.median(cpu['cpu']) * 1e6:.1f} us", f"{ratio:.2f}x")
    return table


def run_bench(console: Console, decisions: int) -> None:
    """Measure and print every figure of the benchmark."""
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    try:
        echo = compile_echo_bot(folder)
        random_bot = resolve_bot("random", "btt")
        bots: list[tuple[str, BotSpec]] = [("random (python)", random_bot)]
        if echo is not None:
            bots.insert(0, ("echo (C)", echo))
        else:
            console.print("no C compiler: the C echo bot is skipped", style="yellow")
        games_for = max(1, decisions // 32)
        table = Table(title="Referee per decision (BTT, 2 seats)")
        for column in ("bot", "bare loop RTT", "referee RTT", "ratio", "referee CPU", "rules CPU",
                       "referee CPU excl. rules"):
            table.add_column(column, justify="right")
        for label, spec in bots:
            bare = trio.run(bare_round_trip, spec, decisions)
            run = referee_run([spec, spec], 1, games_for)
            rtt = run.wall_s / run.decisions
            cpu = run.cpu_s / run.decisions
            rules = rules_cpu_per_decision(run.records)
            table.add_row(label, f"{bare * 1e6:.0f} us", f"{rtt * 1e6:.0f} us", f"{rtt / bare:.2f}x",
                          f"{cpu * 1e6:.0f} us", f"{rules * 1e6:.0f} us", f"{(cpu - rules) * 1e6:.0f} us")
        console.print(table)
        throughput = Table(title="Decisions per second, concurrent BTT games (2 cores)")
        for column in ("bot", "games at once", "decisions", "decisions/s", "referee CPU/decision",
                       "bare loop RTT", "bare decisions/s (1 pipe)"):
            throughput.add_column(column, justify="right")
        for label, spec in bots:
            bare = trio.run(bare_round_trip, spec, max(decisions // 4, 200))
            for concurrent in (1, 8, 32):
                run = referee_run([spec, spec], concurrent, max(4, games_for // concurrent))
                throughput.add_row(label, str(concurrent), str(run.decisions),
                                   f"{run.decisions / run.wall_s:,.0f}", f"{run.cpu_s / run.decisions * 1e6:.0f} us",
                                   f"{bare * 1e6:.0f} us", f"{1 / bare:,.0f}")
        console.print(throughput)
        console.print(basis_table(bots[0][0], bots[0][1], max(5, games_for // 5)))
        if probe().sandbox:
            console.print(sandbox_table(bots, games_for))
        else:
            console.print(f"no sandbox here ({probe().why}): its cost is not measured", style="yellow")
        console.print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
