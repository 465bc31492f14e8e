"""One referee measurement with whatever arena the running interpreter has installed,
printed as one JSON object: the stable interface between `arena bench --compare` and a
revision of the arena built in its own virtual environment.

Run as a script (`python -I driver.py JOB`), never imported by the arena: it must work
against old revisions as well as today's, so it uses only what every revision since the
first benchmark offers (play_match with its before_game and on_game hooks, MatchConfig,
BotSpec, TimeControl, get_game), finding each where that revision keeps it, and does its
own timing so both sides are measured by the same code. It imports nothing of the
current tree.

JOB is a JSON object, one of:
  {"kind": "referee", "bot": PATH, "concurrent": N, "games_each": M[, "basis": "cpu"]}
      N matches at once, each of M BTT games between two copies of the bot, with the
      revision's default limits (sandbox, cgroups, CPU accounting where it has them);
      prints decisions, wall_s, cpu_s, sys_s (the kernel's share of cpu_s), switches
      and preempted (context switches, voluntary and not; of the whole process, its
      worker threads included) and loop_preempted (of the event loop's thread alone,
      which keeps the clocks) from the moment every bot is up to the end of the last game (the referee process's own
      CPU, not its bots'), and the TerminationDetail of every game that did not end
      normally (a fault makes the figures meaningless). With "basis", the time control
      is on that basis (only revisions that have TimeControl.basis: the CPU-time clock's
      cost is measured on this tree alone).
  {"kind": "bare", "bot": PATH, "request": PATH, "pipes": N, "count": M}
      N bare Trio loops at once, each writing the request in the file to its own copy of
      the bot and reading the answer, M round trips in all: the pipe's own cost.
  {"kind": "bare", "sandbox": true, "bot": PATH, "count": M}
      `arena bench`'s own bare loop (one pipe, to the bot started as the referee starts
      it: sandbox, cgroup): the pipe's cost with the bot where the referee puts it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import resource
import subprocess
import sys
import time
from types import ModuleType
from typing import Any

import trio


def _module(*names: str) -> ModuleType:
    """The first of `names` this revision has (modules moved between revisions)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise SystemExit(f"none of {', '.join(names)} can be imported from this revision of the arena")


async def _referee(bot: str, concurrent: int, games_each: int, basis: str | None = None) -> dict[str, Any]:
    games = _module("arena.games")
    match = _module("arena.referee.match", "arena.match")
    spec_module = _module("arena.process.spec", "arena.referee.spec", "arena.process")
    timecontrol = _module("arena.timecontrol", "arena.referee.timecontrol")
    game = (getattr(games, "get", None) or games.get_game)("btt")  # get_game before get was its name
    spec = spec_module.BotSpec("echo-c", [bot])
    waiting = concurrent
    gate = trio.Event()
    opened = [0.0] * 6
    closed = [0.0] * 6
    decisions = [0]
    faults: list[str] = []

    def ended(index: int, outcome: Any, seats: list[int]) -> None:
        closed[:] = _clocks()
        decisions[0] += outcome.decisions if hasattr(outcome, "decisions") else len(outcome.record.plies)
        if str(outcome.record.tags.get("Termination", "normal")) != "normal":
            faults.append(str(outcome.record.tags.get("TerminationDetail", outcome.record.tags.get("Termination"))))

    async def arrive(game_index: int) -> None:
        nonlocal waiting
        if game_index:
            return
        waiting -= 1
        if waiting == 0:
            opened[:] = _clocks()
            gate.set()
        await gate.wait()

    control = timecontrol.TimeControl(per_move_s=5.0, **({"basis": basis} if basis else {}))
    # Revisions before each bot's spec carried its time control gave the match one.
    per_match = "time_control" in {f.name for f in dataclasses.fields(match.MatchConfig)}
    timed = spec if per_match else dataclasses.replace(spec, time_control=control)

    async def one(index: int) -> None:
        given = (control,) if per_match else ()
        config = match.MatchConfig(game, {}, *given, seed=index, games=games_each, event="bench")
        await match.play_match(config, [timed, timed], on_game=ended, before_game=arrive)

    async with trio.open_nursery() as nursery:
        for index in range(concurrent):
            nursery.start_soon(one, index)
    return {"decisions": decisions[0], "wall_s": closed[0] - opened[0], "cpu_s": closed[1] - opened[1],
            "sys_s": closed[2] - opened[2], "switches": closed[3] - opened[3], "preempted": closed[4] - opened[4],
            "loop_preempted": closed[5] - opened[5], "faults": faults}


def _clocks() -> list[float]:
    """Wall time, process CPU, its kernel share, the times the referee gave up the CPU
    waiting (voluntary) and was preempted (involuntary), and the times the calling
    thread, the event loop that keeps the clocks, was preempted."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    loop = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
    return [time.perf_counter(), time.process_time(), usage.ru_stime, usage.ru_nvcsw, usage.ru_nivcsw, loop]


async def _bare_loops(procs: list[subprocess.Popen[bytes]], request: bytes, each: int) -> tuple[float, float]:
    """Wall and CPU seconds of `each` round trips on every pipe, all at once."""

    async def loop(proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        fd_in, fd_out = proc.stdin.fileno(), proc.stdout.fileno()
        for _ in range(each):
            os.write(fd_in, request)
            received = b""
            while not received.endswith(b"\n"):
                await trio.lowlevel.wait_readable(fd_out)
                received += os.read(fd_out, 1 << 16)

    begin = time.perf_counter(), time.process_time()
    async with trio.open_nursery() as nursery:
        for proc in procs:
            nursery.start_soon(loop, proc)
    return time.perf_counter() - begin[0], time.process_time() - begin[1]


def _bare(bot: str, request: bytes, pipes: int, count: int) -> dict[str, Any]:
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(pipes):
            procs.append(subprocess.Popen([bot], stdin=subprocess.PIPE, stdout=subprocess.PIPE))
            assert procs[-1].stdin is not None and procs[-1].stdout is not None
            os.set_blocking(procs[-1].stdin.fileno(), False)
            os.set_blocking(procs[-1].stdout.fileno(), False)
        each = max(1, count // pipes)
        wall, cpu = trio.run(_bare_loops, procs, request, each)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    return {"decisions": each * pipes, "wall_s": wall, "cpu_s": cpu}


def main(argv: list[str]) -> int:
    job = json.loads(argv[1])
    if job["kind"] == "referee":
        result = trio.run(_referee, job["bot"], int(job["concurrent"]), int(job["games_each"]), job.get("basis"))
    elif job["kind"] == "bare" and job.get("sandbox"):
        bench = _module("arena.bench.referee", "arena.bench")
        spec = _module("arena.process.spec", "arena.referee.spec", "arena.process").BotSpec("echo-c", [job["bot"]])
        seconds = trio.run(bench.bare_round_trip, spec, int(job["count"]))
        result = {"decisions": int(job["count"]), "wall_s": seconds * int(job["count"]), "cpu_s": None}
    elif job["kind"] == "bare":
        with open(job["request"], "rb") as handle:
            request = handle.read()
        result = _bare(job["bot"], request, int(job["pipes"]), int(job["count"]))
    else:
        raise SystemExit(f"unknown job kind {job['kind']!r}")
    arena = _module("arena")
    result["arena"] = os.path.dirname(arena.__file__ or "")
    result["python"] = sys.version.split()[0]
    result["trio"] = trio.__version__
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
