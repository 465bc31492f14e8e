"""Limits where no cgroup can be made (an ordinary user whose session delegates none):
each process's rlimits. A bot of a user who already runs many tasks (a desktop's
browser runs hundreds of threads) still starts, since the process limit adds the
user's own tasks; a runtime that reserves address space it never touches (node) starts
under a small memory limit; a refused allocation is memory-limit, not a crash."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena.process.proctree as proctree
from arena.process.botnames import resolve_bot
from arena.process.cgroups import cgroup_support
from arena.process.sandbox import RUN_AS, probe
from arena.process.spec import BotSpec, Limits
from arena.referee.match import MatchResult
from arena.referee.player import Timing
from arena.timecontrol import Basis, TimeControl
from tests.helpers.botmatch import run_match

HOLDER = 'for i in $(seq 40); do sleep 120 & done; echo ready; wait'


@pytest.fixture(autouse=True)
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proctree, "cgroup_support", lambda: dataclasses.replace(cgroup_support(), version=0))


def bot_uid(sandbox: bool) -> int:
    """The host uid the bots run as: nobody for a sandbox started by root."""
    return RUN_AS[0] if sandbox and os.geteuid() == 0 and probe().run_as == RUN_AS else os.getuid()


@pytest.fixture
def busy_user() -> Iterator[None]:
    """40 tasks of the bots' user already running, more than their process limit of 12."""
    uid = bot_uid(probe().sandbox)
    holder = subprocess.Popen(["/bin/sh", "-c", HOLDER], stdout=subprocess.PIPE, start_new_session=True,
                              user=uid if uid != os.getuid() else None, cwd="/")
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"ready\n"
        yield
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()


def run(specs: list[BotSpec], limits: Limits, per_move: float = 2.0, logs: Path | None = None,
        basis: Basis = "cpu") -> MatchResult:
    """One game; on the CPU basis unless told (a loaded machine times out no bot here),
    with a start-up limit no loaded machine reaches."""
    return run_match("btt", specs, TimeControl(per_move_s=per_move, basis=basis), seed=1, games=1, log_dir=logs,
                     limits=limits, timing=Timing(startup_s=30.0, grace_s=0.05))


def zoo(name: str, **env: str) -> BotSpec:
    spec = resolve_bot(f"zoo/{name}", "btt")
    spec.env.update({"ZOO_PLY": "1", **env})
    return spec


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "plain"])
def test_bots_start_when_their_user_already_runs_more_tasks_than_their_limit(busy_user: None, sandbox: bool) -> None:
    if sandbox and not probe().sandbox:
        pytest.skip(f"no sandbox here: {probe().why}")
    if not sandbox and os.geteuid() == 0:
        pytest.skip("a process limit does not bind root")
    result = run([resolve_bot("random", "btt"), resolve_bot("greedy", "btt")],
                 Limits(processes=12, sandbox=sandbox))
    assert [o.termination for o in result.outcomes] == ["normal"], result.outcomes[0].faults


def test_a_fork_loop_takes_only_its_share(busy_user: None, tmp_path: Path) -> None:
    """Its share is 12 over the user's tasks counted when it started; tasks of the same
    user that end meanwhile (other tests' sandboxes, all run as nobody under root) free
    their places too (and ones that start take them), so the bound is its share give or
    take that churn, far below its 300."""
    if os.geteuid() == 0 and bot_uid(probe().sandbox) == 0:
        pytest.skip("a process limit does not bind root")
    honest = resolve_bot("random", "btt")
    honest.time_control = TimeControl(per_move_s=1.0, basis="cpu")  # the fork loop alone is timed on the wall clock
    result = run([honest, zoo("fork_loop", ZOO_MAX_FORKS="300")], Limits(processes=12), per_move=1.0, logs=tmp_path,
                 basis="wall")
    outcome = result.outcomes[0]
    assert outcome.termination in ("time-out", "process-limit") and outcome.faults[0].seat == 1
    forked = int(next(tmp_path.glob("1-*.log")).read_text().split("forked ")[1].split()[0])
    assert forked < 100, forked  # refused near its share, long before the loop's own end


def test_a_refused_allocation_is_a_memory_limit_and_node_still_starts_under_a_small_one() -> None:
    hog = run([resolve_bot("random", "btt"), zoo("memory_hog", ZOO_MB="400")], Limits(memory_bytes=200 << 20),
              per_move=5.0)
    outcome = hog.outcomes[0]
    assert outcome.termination == "memory-limit" and outcome.faults[0].seat == 1
    assert "200 MiB for each of its processes: no cgroup here" in outcome.faults[0].detail
    assert "MemoryError" in outcome.faults[0].detail
    if subprocess.run(["sh", "-c", "command -v node"], capture_output=True).returncode != 0:
        pytest.skip("no node here")
    node = run([resolve_bot("random-js", "btt"), resolve_bot("random", "btt")], Limits(memory_bytes=64 << 20))
    assert node.outcomes[0].termination == "normal", node.outcomes[0].faults
