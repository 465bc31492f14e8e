"""Control groups for bots: one group per bot process tree, so its memory and process
limits hold for the whole tree (a bot cannot get more memory by forking), its CPU time
is counted, and hitting a limit can be told apart from a crash.

Two layouts are supported. cgroup v2 (most machines today): one directory under the
arena's own group, usable when that group delegates the memory and pids controllers
(a container or a systemd scope with Delegate=yes). cgroup v1 (as on the machines
this was built on): one directory per controller (memory, pids, and where they can be
made cpuacct for counting and cpu for a quota) under the arena's own group of each.
Creating groups needs write access there (root, or a delegated tree); without it a bot
runs with per-process limits instead (see `CgroupSupport.why`). Inside the sandbox /sys
is not mounted, so a bot cannot move itself out of its group.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct", "cpu")
OPTIONAL_V1 = ("cpuacct", "cpu")
"""Counted CPU time and a CPU quota: used where the machine has them, not required."""
CPU_PERIOD_US = 10_000
"""The quota's accounting period: short, so a tree that runs several threads at once is
held back for at most a few milliseconds at a time, never for a whole move."""

_ids = itertools.count()


@dataclass(frozen=True)
class CgroupSupport:
    """What this machine lets the arena do with cgroups: `version` 2, 1 or 0 (none),
    the parent folder of each controller, and why when it is none."""

    version: int
    parents: dict[str, Path]
    why: str


def _own_groups() -> dict[str, str]:
    """This process's group path per v1 controller, and "" -> path for v2."""
    groups: dict[str, str] = {}
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return groups
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = path
    return groups


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


@cache
def cgroup_support() -> CgroupSupport:
    """Probe once per process which cgroup layout can hold bots."""
    own = _own_groups()
    v2_root = CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").exists() else None
    if v2_root is not None and "" in own:
        parent = v2_root / own[""].lstrip("/")
        problem = _v2_problem(parent)
        if problem is None:
            _sweep([parent])
            return CgroupSupport(2, {"": parent}, "")
        v2_why = problem
    else:
        v2_why = "no cgroup v2 hierarchy with controllers"
    parents = {c: CGROUP_ROOT / c / own.get(c, "/").lstrip("/") for c in V1_CONTROLLERS}
    missing = [c for c in ("memory", "pids") if not _writable_dir(parents[c])]
    if not missing:
        for optional in OPTIONAL_V1:
            if not _writable_dir(parents[optional]) or (
                    optional == "cpu" and not (parents[optional] / "cpu.cfs_quota_us").exists()):
                del parents[optional]
        _sweep(parents.values())
        return CgroupSupport(1, parents, "")
    return CgroupSupport(0, {}, f"{v2_why}; cgroup v1 memory/pids groups cannot be created here "
                                f"({', '.join(missing)} not writable: run as root or in a delegated group)")


def _v2_problem(parent: Path) -> str | None:
    """Why bots cannot get v2 groups under `parent`, or None when they can."""
    if not _writable_dir(parent):
        return f"cgroup v2 group {parent} is not writable (not delegated to this user)"
    wanted = {"memory", "pids"}
    enabled = set((parent / "cgroup.subtree_control").read_text().split()) if (
        parent / "cgroup.subtree_control").exists() else set()
    if not wanted <= enabled:
        available = set((parent / "cgroup.controllers").read_text().split())
        if not wanted <= available:
            return f"cgroup v2 group {parent} lacks the {', '.join(sorted(wanted - available))} controller"
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(wanted)))
        except OSError:
            return (f"cgroup v2 group {parent} holds processes, so its controllers cannot be handed down "
                    "(run the arena in its own scope, e.g. systemd-run --user --scope -p Delegate=yes)")
    if "cpu" not in enabled and "cpu" in (parent / "cgroup.controllers").read_text().split():
        with contextlib.suppress(OSError):  # the CPU quota is a bonus, not a requirement
            (parent / "cgroup.subtree_control").write_text("+cpu")
    return None


def _sweep(parents: Iterable[Path]) -> None:
    """Remove the empty groups of arena processes that are gone (killed with -9, they
    could not remove their own)."""
    for parent in parents:
        with contextlib.suppress(OSError):
            for group in parent.glob("arena-*-*"):
                owner = group.name.split("-")[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    with contextlib.suppress(OSError):
                        group.rmdir()


class BotCgroup:
    """The group of one bot's process tree: created with its limits, joined by the
    bot's first process before it runs anything, counted, and removed after."""

    def __init__(self, support: CgroupSupport, memory_bytes: int | None, processes: int | None,
                 cpus: float | None = None) -> None:
        self.support = support
        name = f"arena-{os.getpid()}-{next(_ids)}"
        self.dirs = {controller: parent / name for controller, parent in support.parents.items()}
        for controller, path in self.dirs.items():
            path.mkdir()
            if controller in ("memory", "") and memory_bytes is not None:
                self._set_memory(path, memory_bytes)
            if controller in ("pids", "") and processes is not None:
                (path / "pids.max").write_text(str(processes))
            if controller in ("cpu", "") and cpus is not None:
                self._set_cpus(path, cpus)
        self._cpu_fd: int | None = None
        self._events_at_start = self.limit_events()

    def _set_memory(self, path: Path, limit: int) -> None:
        if self.support.version == 2:
            (path / "memory.max").write_text(str(limit))
            with contextlib.suppress(OSError):
                (path / "memory.swap.max").write_text("0")
            return
        (path / "memory.limit_in_bytes").write_text(str(limit))
        with contextlib.suppress(OSError):  # only with swap accounting
            (path / "memory.memsw.limit_in_bytes").write_text(str(limit))

    def _set_cpus(self, path: Path, cpus: float) -> None:
        quota = max(1000, round(cpus * CPU_PERIOD_US))  # the kernel's least is 1 ms
        with contextlib.suppress(OSError):  # no cpu controller here: no quota
            if self.support.version == 2:
                (path / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
            else:
                (path / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                (path / "cpu.cfs_quota_us").write_text(str(quota))

    @property
    def procs_files(self) -> list[str]:
        """The files a process writes its pid to, to join the group (for the child
        between fork and exec)."""
        return [str(path / "cgroup.procs") for path in self.dirs.values()]

    def cpu_seconds(self) -> float | None:
        """CPU time the whole tree has used so far, or None without a CPU counter. Read
        once a decision, so from a file kept open: one pread (v1's cpuacct.usage holds
        one number of nanoseconds; v2's cpu.stat starts with usage_usec)."""
        fd = self._cpu_fd
        if fd is None:
            fd = self._open_cpu_counter()
            if fd is None:
                return None
        try:
            if self.support.version == 1:
                return int(os.pread(fd, 32, 0)) / 1e9
            for line in os.pread(fd, 4096, 0).splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line[11:]) / 1e6
            return None
        except (OSError, ValueError):
            return None

    def _open_cpu_counter(self) -> int | None:
        path = (self.dirs[""] / "cpu.stat") if self.support.version == 2 else (
            self.dirs["cpuacct"] / "cpuacct.usage" if "cpuacct" in self.dirs else None)
        if path is None:
            return None
        try:
            self._cpu_fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        return self._cpu_fd

    def limit_events(self) -> tuple[int, int]:
        """(times the memory limit killed a process, times a fork hit the process limit)."""
        memory = processes = 0
        with contextlib.suppress(OSError, ValueError):
            if self.support.version == 2:
                memory = _counter(self.dirs[""] / "memory.events", "oom_kill")
                processes = _counter(self.dirs[""] / "pids.events", "max")
            else:
                memory = _counter(self.dirs["memory"] / "memory.oom_control", "oom_kill")
                processes = _counter(self.dirs["pids"] / "pids.events", "max")
        return memory, processes

    def limits_hit(self) -> tuple[bool, bool]:
        """Whether the memory limit killed, and a fork hit the process limit, since creation."""
        memory, processes = self.limit_events()
        return memory > self._events_at_start[0], processes > self._events_at_start[1]

    def kill(self) -> None:
        """Kill every process in the group (v2: cgroup.kill; v1: signal each pid)."""
        if self.support.version == 2:
            with contextlib.suppress(OSError):
                (self.dirs[""] / "cgroup.kill").write_text("1")
                return
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.001)

    def pids(self) -> list[int]:
        """The processes in the group now."""
        path = self.dirs.get("") or self.dirs.get("pids") or next(iter(self.dirs.values()))
        try:
            return [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def remove(self) -> None:
        """Remove the group's folders (after its processes are gone and reaped)."""
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        for path in self.dirs.values():
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    self.kill()
                    time.sleep(0.002)


def _counter(path: Path, key: str) -> int:
    for line in path.read_text().splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def join_cgroup(procs_files: list[str]) -> None:
    """Put the calling process in the bot's group (between fork and exec)."""
    pid = str(os.getpid())
    for path in procs_files:
        with open(path, "w") as handle:
            handle.write(pid)
