"""The CPU-time basis: a bot is charged the CPU time its processes used for a decision,
not the wall time, with a wall backstop so that a bot that sleeps still ends.

The decision path runs under trio's MockClock with fake bots whose CPU meter the test
moves (so no loaded machine can change an outcome); then real bots show that a bot's
sleep is free, its computing is not, and a child process it starts is counted, with a
cgroup and without."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
import trio.testing

import arena.process.proctree as proctree
from arena.process.botnames import resolve_bot
from arena.process.cgroups import cgroup_support
from arena.process.channel import FakeBot, FakeBotIO, Launch, LineChannel, MemoryChannel
from arena.process.spec import BotSpec, Limits
from arena.records.replay import verify
from arena.referee.match import MatchResult
from arena.referee.player import Timing
from arena.session.rerun import time_controls
from arena.termination import Termination
from arena.timecontrol import TimeControl, TimeControlError, parse_basis
from tests.helpers.botmatch import run_match

CPU = TimeControl(per_move_s=0.1, basis="cpu")
WALL = TimeControl(per_move_s=0.1)


class Meter:
    """A fake bot's CPU time, kept on its channel, which the referee reads."""

    def __init__(self) -> None:
        self.channel: MemoryChannel | None = None

    async def compute(self, seconds: float, share: float = 1.0) -> None:
        """Compute for `seconds` of CPU time at `share` of a core (a loaded machine
        gives less than one), in steps of 1 ms of wall time."""
        assert self.channel is not None and self.channel.cpu_used is not None
        used = 0.0
        while used < seconds - 1e-9:
            step = min(0.001 * share, seconds - used)
            await trio.sleep(step / share)
            used += step
            self.channel.cpu_used += step


Think = Callable[[Meter, int], Awaitable[bool]]
"""What a fake bot does at its k-th request (from 1); False: answer nothing."""


def bot(meter: Meter, think: Think, seen: list[dict[str, Any]] | None = None, ponder: float = 0.0) -> FakeBot:
    async def run(io: FakeBotIO) -> None:
        k = 0
        while (line := await io.read_line()) is not None:
            message = json.loads(line)
            if seen is not None:
                seen.append(message)
            if message["type"] == "hello":
                await io.write(b'{"type":"ready","name":"fake"}\n')
            elif message["type"] == "request":
                k += 1
                if await think(meter, k):
                    await io.write(json.dumps({"type": "action", "action": message["legal"][0]}).encode() + b"\n")
                    if ponder:  # thinks on while the other seat decides
                        await trio.sleep(0.01)
                        assert meter.channel is not None and meter.channel.cpu_used is not None
                        meter.channel.cpu_used += ponder
            elif message["type"] == "quit":
                return

    return run


def play(thinks: list[Think], control: TimeControl, seen: list[dict[str, Any]] | None = None,
         ponder: float = 0.0) -> MatchResult:
    meters = [Meter() for _ in thinks]
    bots = {f"bot{i}": (bot(meter, think, seen if i == 1 else None, ponder if i == 1 else 0.0), meter)
            for i, (meter, think) in enumerate(zip(meters, thinks, strict=True))}

    async def launch(launch: Launch, nursery: trio.Nursery) -> LineChannel:
        fake, meter = bots[launch.spec.name]
        channel = MemoryChannel(fake, nursery, launch.limits)
        channel.cpu_used = 0.0
        meter.channel = channel
        return channel

    specs = [BotSpec(name, ["unused"]) for name in bots]
    return run_match("btt", specs, control, seed=1, games=1, timing=Timing(startup_s=5.0, grace_s=0.02),
                     launcher=launch, mock_clock=True)


def quick(meter: Meter, k: int) -> Awaitable[bool]:
    return answer_after(0.0)(meter, k)


def answer_after(sleep: float = 0.0, cpu: float = 0.0, share: float = 1.0, at: int | None = None) -> Think:
    async def think(meter: Meter, k: int) -> bool:
        if at is None or k == at:
            await meter.compute(cpu, share)
            await trio.sleep(sleep)
        return True

    return think


def never(cpu: bool) -> Think:
    """Answers nothing at request 3: computes all the while, or sleeps."""

    async def think(meter: Meter, k: int) -> bool:
        if k == 3:
            if cpu:
                await meter.compute(1000.0)
            await trio.sleep_forever()
        return True

    return think


def seat_plies(result: MatchResult, seat: int) -> list[Any]:
    return [p for p in result.outcomes[0].record.plies if p.actor == seat]


def test_a_bot_that_sleeps_past_the_limit_is_charged_only_its_cpu_time() -> None:
    thinker = answer_after(sleep=0.3, cpu=0.01)
    on_cpu = play([quick, thinker], CPU).outcomes[0]
    assert on_cpu.termination == Termination.NORMAL and verify(on_cpu.record) == []
    plies = [p for p in on_cpu.record.plies if p.actor == 1]
    assert {p.elapsed_ms for p in plies} == {310.0} and {p.cpu_ms for p in plies} == {10.0}
    on_wall = play([quick, thinker], WALL).outcomes[0]
    assert on_wall.termination == Termination.TIME_OUT
    assert on_wall.faults[0].detail == "no answer in time (limit 100 ms; it used 10 ms of CPU)"


def test_a_starved_bot_within_its_cpu_time_is_not_a_time_out() -> None:
    """A fifth of a core (a machine with 8 other busy programs on 2 cores): 90 ms of CPU
    take 450 ms of wall time; within 100 ms plus grace of CPU, so no time-out."""
    outcome = play([quick, answer_after(cpu=0.09, share=0.2)], CPU).outcomes[0]
    assert outcome.termination == Termination.NORMAL
    assert all(p.cpu_ms == 90.0 and p.elapsed_ms == 450.0 for p in [p for p in outcome.record.plies if p.actor == 1])


def test_more_cpu_than_the_limit_is_a_time_out_even_when_it_answers() -> None:
    """Three threads: 150 ms of CPU in 50 ms, an answer before the first check."""
    outcome = play([quick, answer_after(cpu=0.15, share=3.0, at=2)], CPU).outcomes[0]
    assert outcome.termination == Termination.TIME_OUT and outcome.faults[0].seat == 1
    assert outcome.faults[0].detail == "used 150 ms of CPU (limit 100 ms, CPU basis; 50 ms of wall time)"


def test_a_starved_bot_computing_past_its_cpu_time_is_stopped_by_it_not_by_wall_time() -> None:
    """At half a core its 120 ms (limit and grace) of CPU take 240 ms: stopped then."""
    outcome = play([quick, answer_after(cpu=0.15, share=0.5, at=2)], CPU).outcomes[0]
    assert outcome.termination == Termination.TIME_OUT and outcome.faults[0].seat == 1
    used, wall = re.fullmatch(r"no answer in time: used (\d+) ms of CPU \(limit 100 ms, CPU basis; (\d+) ms of wall "
                              r"time\)", outcome.faults[0].detail).groups()  # type: ignore[union-attr]
    assert 120 < int(used) <= 125 and 240 < int(wall) <= 250


def test_pondering_between_requests_is_not_charged_on_the_cpu_basis() -> None:
    """As on the wall basis, a bot may think while the other seat decides: on the CPU
    basis its count starts at the request."""
    outcome = play([answer_after(sleep=0.05), answer_after(cpu=0.02)], CPU, ponder=0.5).outcomes[0]
    assert outcome.termination == Termination.NORMAL
    assert {p.cpu_ms for p in outcome.record.plies if p.actor == 1} == {20.0}


def test_a_bot_computing_without_end_times_out_once_its_cpu_time_is_used() -> None:
    outcome = play([quick, never(cpu=True)], CPU).outcomes[0]
    fault = outcome.faults[0]
    assert outcome.termination == Termination.TIME_OUT and fault.seat == 1 and fault.ply == 6
    used, wall = re.fullmatch(r"no answer in time: used (\d+) ms of CPU \(limit 100 ms, CPU basis; (\d+) ms of wall "
                              r"time\)", fault.detail).groups()  # type: ignore[union-attr]
    assert 120 < int(used) <= 130 and int(wall) <= 130  # noticed within the slack of the deadline (a tenth)


def test_a_bot_sleeping_without_end_ends_at_the_wall_backstop() -> None:
    outcome = play([quick, never(cpu=False)], CPU).outcomes[0]
    fault = outcome.faults[0]
    assert outcome.termination == Termination.TIME_OUT and fault.seat == 1
    assert fault.detail == ("no answer in time: answered after 2200 ms of wall time, using 0 ms of CPU: past the CPU "
                            "basis's wall backstop of 2200 ms (limit 100 ms of CPU)")


def test_an_answer_after_the_first_check_is_held_and_the_game_goes_on() -> None:
    """Every answer of seat 1 comes after the deadline the wall basis would set (the
    first check of the CPU basis): each is taken, and none is asked twice."""
    seen: list[dict[str, Any]] = []
    result = play([quick, answer_after(sleep=0.5, cpu=0.05)], CPU, seen)
    outcome = result.outcomes[0]
    assert outcome.termination == Termination.NORMAL and verify(outcome.record) == []
    requests = [m["ply"] for m in seen if m["type"] == "request"]
    assert requests == sorted(set(requests)) and len(requests) == len(seat_plies(result, 1))


def test_the_game_clock_on_the_cpu_basis_is_charged_cpu_time() -> None:
    seen: list[dict[str, Any]] = []
    control = TimeControl(per_move_s=None, base_s=1.0, increment_s=0.0, basis="cpu")
    outcome = play([quick, answer_after(sleep=0.4, cpu=0.1)], control, seen).outcomes[0]
    remaining = [m["clock"]["remaining_ms"] for m in seen if m["type"] == "request"]
    assert remaining[:4] == [1000, 900, 800, 700]
    assert outcome.termination in (Termination.NORMAL, Termination.TIME_OUT)


def test_the_basis_is_in_the_record_the_start_message_and_back_from_the_tag() -> None:
    seen: list[dict[str, Any]] = []
    outcome = play([quick, quick], CPU, seen).outcomes[0]
    tag = outcome.record.tags["TimeControl"]
    assert tag == "move=0.1s basis=cpu backstop=10x+1s"
    assert time_controls(tag, 2) == [CPU, CPU]
    assert time_controls("move=0.1s", 2) == [WALL, WALL]
    start = next(m for m in seen if m["type"] == "start")
    assert start["time"] == {"per_move_ms": 100, "basis": "cpu"}
    assert play([quick, quick], WALL).outcomes[0].record.tags["TimeControl"] == "move=0.1s"


def test_a_basis_other_than_wall_or_cpu_is_refused_with_the_choices() -> None:
    assert parse_basis(" CPU ") == "cpu"
    with pytest.raises(TimeControlError, match="give wall .* or cpu"):
        parse_basis("process")
    with pytest.raises(TimeControlError):
        TimeControl(basis="user")  # type: ignore[arg-type]
    assert CPU.backstop_s(0.12) == pytest.approx(2.2) and WALL.backstop_s(0.12) == 0.12


# ---- real bots ---------------------------------------------------------------------------


def real_match(use: str, seconds: float, control: TimeControl, sandbox: bool = True) -> MatchResult:
    spec = resolve_bot("zoo/cpu_user", "btt")
    spec.env.update(ZOO_USE=use, ZOO_SECONDS=str(seconds), ZOO_PLY="2")
    other = resolve_bot("random", "btt")
    limits = Limits(memory_bytes=512 << 20, sandbox=sandbox)
    return run_match("btt", [other, spec], control, seed=3, games=1, limits=limits,
                     timing=Timing(startup_s=30.0, grace_s=0.05))


def test_a_real_bot_sleeping_half_a_second_a_move_plays_on_the_cpu_basis() -> None:
    outcome = real_match("sleep", 0.5, TimeControl(per_move_s=0.1, basis="cpu")).outcomes[0]
    assert outcome.termination == Termination.NORMAL, outcome.faults
    slow = [p for p in outcome.record.plies if p.actor == 1][1:]
    assert slow and all(p.elapsed_ms is not None and p.elapsed_ms >= 500 for p in slow)


@pytest.mark.parametrize("use", ["spin", "child"])
@pytest.mark.parametrize("cgroups", [True, False])
def test_a_real_bot_computing_past_its_limit_times_out_on_its_cpu_time(
        use: str, cgroups: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own computing, or a child's while it waits: counted by its cgroup, or without
    one by the referee's walk of its processes."""
    if cgroups and not cgroup_support().version:
        pytest.skip("no cgroups here")
    if not cgroups:
        monkeypatch.setattr(proctree, "cgroup_support", lambda: dataclasses.replace(cgroup_support(), version=0))
    outcome = real_match(use, 30.0, TimeControl(per_move_s=0.1, basis="cpu")).outcomes[0]
    assert outcome.termination == Termination.TIME_OUT and outcome.faults[0].seat == 1, outcome.faults
    # Its CPU time counted: over the limit, or (a machine so loaded that the bot got a
    # few percent of a core) at the wall backstop, with the child's CPU time counted.
    found = re.search(r"(?:used|using) (\d+) ms of CPU", outcome.faults[0].detail)
    assert found is not None and int(found[1]) > 20, outcome.faults[0].detail


def test_no_process_of_a_timed_out_bot_is_left() -> None:
    before = set(os.listdir("/proc"))
    real_match("child", 30.0, TimeControl(per_move_s=0.1, basis="cpu"))
    from arena.process.reaper import process_reaper
    trio.run(process_reaper().settle, [])
    for pid in set(os.listdir("/proc")) - before:
        if pid.isdigit():
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            assert b"cpu_user" not in cmdline


def test_a_python_bot_plans_on_the_clock_the_referee_charges() -> None:
    """protocol.bot's clock() follows each game's `start`: CPU time on the CPU basis
    (a sleep does not move it), wall time otherwise."""
    import io
    import time

    from protocol import bot

    seen: list[tuple[bool, float]] = []

    def choose(request: dict[str, Any], game: dict[str, Any]) -> str:
        before = bot.clock()
        time.sleep(0.05)
        seen.append((bot.on_cpu(), bot.clock() - before))
        return str(request["legal"][0])

    lines = [{"type": "start", "game": "btt", "options": {}, "seat": 0, "seats": 2, "players": ["a", "b"],
              "time": {"per_move_ms": 100, "basis": "cpu"}},
             {"type": "request", "ply": 1, "legal": ["x"]},
             {"type": "start", "game": "btt", "options": {}, "seat": 0, "seats": 2, "players": ["a", "b"],
              "time": {"per_move_ms": 100}},
             {"type": "request", "ply": 1, "legal": ["x"]}, {"type": "quit"}]
    bot.run(choose, "probe", stdin=io.StringIO("".join(json.dumps(m) + "\n" for m in lines)), stdout=io.StringIO())
    (cpu_basis, cpu_took), (wall_basis, wall_took) = seen
    assert cpu_basis and cpu_took < 0.02 and not wall_basis and wall_took >= 0.05


def test_the_processes_counted_without_a_cgroup_are_bounded_and_none_outlive_the_tree() -> None:
    """The referee holds a descriptor per counted process: at most MAX_COUNTED of them,
    and those a walk found for a tree killed meanwhile are closed, not kept."""
    from arena.process.reaper import process_reaper

    tree = proctree.ProcessTree(Limits(), process_reaper())
    opened = {n: os.open("/dev/null", os.O_RDONLY) for n in range(proctree.MAX_COUNTED + 5)}
    tree.count(opened)
    assert len(tree._stat_fds) == proctree.MAX_COUNTED
    kept = set(tree._stat_fds.values())
    for fd in set(opened.values()) - kept:
        with pytest.raises(OSError):
            os.fstat(fd)
    tree._buried = True
    late = os.open("/dev/null", os.O_RDONLY)
    tree.count({10_000: late})
    with pytest.raises(OSError):
        os.fstat(late)
    for fd in kept:
        os.close(fd)
