"""The escape suite, root is not root: when the arena runs as root, bubblewrap and the bot
run as a host user leased for that sandbox alone, never root nor shared; in every mode /proc/sys and /dev are
read-only, a bot makes no user namespace (so mounts no tmpfs, cgroup or proc), its
/dev/shm is its own and bounded, nothing outside its own folders is writable, and its
environment is exactly the documented one.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from arena.process.sandbox import RUN_AS, probe
from arena.process.spec import Limits
from arena.process.toolchain import SYSTEM_PATH
from tests.helpers.escape import SEATINGS, assert_game_sound, attack_report, escape, honest, play, skip_without_sandbox
from tests.helpers.processes import processes_with

DOCUMENTED = {"PATH", "LANG", "HOME", "TMPDIR", "ARENA_SCRATCH", "PYTHONDONTWRITEBYTECODE", "ARENA_BOT_SEED"}
"""The variables docs/protocol.md lists (and a bot's own `env` adds)."""

skip_without_sandbox()


def host_ids(pid: int) -> tuple[int, int] | None:
    """The real uid and gid of a process as the host sees them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = {line.split(":")[0]: line.split()[1] for line in status.splitlines() if line.startswith(("Uid", "Gid"))}
    return int(fields["Uid"]), int(fields["Gid"])


def parent(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def sandbox_chain(pid: int) -> list[tuple[int, int] | None]:
    """The host uid and gid of a bot's process and of its ancestors up to (not with) the
    referee: the sandbox's init and bubblewrap."""
    chain = []
    current: int | None = pid
    while current is not None and current != os.getpid() and current > 1:
        chain.append(host_ids(current))
        current = parent(current)
    return chain


@pytest.mark.skipif(os.geteuid() != 0, reason="the arena runs as root only here")
def test_as_root_each_sandbox_runs_as_a_host_user_of_its_own(tmp_path: Path) -> None:
    """Two bots of one game, each with bubblewrap and the sandbox's init: each tree runs
    as one unprivileged host user, neither root nor nobody, and the two differ (they
    share no kernel account of a user: keys, pipe pages, tasks)."""
    assert probe().run_as == RUN_AS and probe().own_users, probe().layers
    token = f"arena-uid-{uuid.uuid4().hex}"
    seen: dict[int, list[tuple[int, int] | None]] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid in processes_with(token):
                seen.setdefault(pid, sandbox_chain(pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        holders = [escape("hold", ZOO_TARGET=token, ZOO_SECONDS="5", ZOO_PAUSE="1") for _ in range(2)]
        result = play(holders, tmp_path, per_move=10)
    finally:
        done.set()
        watcher.join()
    assert attack_report(tmp_path, "hold") == ["holding", "holding"]
    users = [{ids for ids in chain if ids is not None} for chain in seen.values()]
    assert len(users) == 2 and all(len(chain) >= 3 for chain in seen.values()), seen  # bot, init, bubblewrap
    assert all(len(ids) == 1 for ids in users), seen
    (first,), (second,) = users
    assert first != second and first[0] == first[1] and second[0] == second[1], seen
    assert {first[0], second[0]}.isdisjoint({0, RUN_AS[0]}), seen
    assert_game_sound(result)


@pytest.mark.parametrize("seats", SEATINGS)
def test_no_kernel_setting_user_namespace_mount_or_unbounded_shm(tmp_path: Path, seats: int) -> None:
    result = play([escape("kernel", ZOO_MB="64"), *[honest()] * (seats - 1)], tmp_path,
                  limits=Limits(scratch_bytes=24 << 20))
    report = attack_report(tmp_path, "kernel")[0]
    assert "core_pattern failed" in report and "drop_caches failed" in report, report
    assert "unshare failed" in report and "mount failed" in report, report
    shm = report.split("shm succeeded: ")[1]
    assert shm.startswith("24 MiB then OSError") or int(shm.split(" MiB")[0]) <= 24, report
    assert_game_sound(result)


def test_nothing_but_its_own_folders_can_be_written(tmp_path: Path) -> None:
    result = play([escape("writable"), honest()], tmp_path, per_move=10)
    report = attack_report(tmp_path, "writable")[0]
    mounts = {m.split(":")[0] for m in report.split("rw mounts [")[1].split("]")[0].replace("'", "").split(", ")}
    devices = {"/dev/full", "/dev/null", "/dev/random", "/dev/tty", "/dev/urandom", "/dev/zero", "/dev/pts"}
    assert mounts - devices == {"/scratch", "/tmp", "/dev/shm", "/proc"}, report
    assert report.endswith("writable in /proc []"), report  # /proc/sys, sysrq-trigger, pressure: read-only
    assert_game_sound(result)


def test_the_environment_is_exactly_the_documented_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("ARENA_LEAK", "the referee's own")
    result = play([replace(escape("environ"), bot_seed=7), honest()], tmp_path)  # the launcher writes ARENA_BOT_SEED
    report = attack_report(tmp_path, "environ")[0]
    names = set(report.split("names [")[1].split("]")[0].replace("'", "").split(", "))
    assert names == DOCUMENTED | {"ZOO_ATTACK"}, report
    path = report.split("; PATH ")[1].split(":")
    assert path[-len(SYSTEM_PATH):] == list(SYSTEM_PATH)
    assert all(os.path.isdir(folder) for folder in path)  # the interpreter's bin folder, then the system's
    assert os.environ["PATH"] != report.split("; PATH ")[1]
    assert_game_sound(result)
