"""Control groups for bots: one group per bot process tree, so its memory and process
limits hold for the whole tree (a bot cannot get more memory by forking), its CPU time
is counted, and hitting a limit can be told apart from a crash.

The referee gets the CPU ahead of the bots it times. All the bots of one arena process
share one parent group, `arena-PID-bots`, made with the first bot under the arena's own
group (of each controller on v1), and the arena moves itself
into a leaf of its own beside it, `arena-PID-referee`, weighing REFEREE_FACTOR nice-0
tasks against the bots' BOT_CORES: however many games run at once, the referee outweighs
the bots together
(64 sibling groups of the referee's weight each outweighed it 64 to 1, and waking bots
preempted the referee five times as often as when they were plain tasks). Where the
arena cannot have a leaf, the bots' parent weighs what the referee does. The memory and
process limits, the CPU quota and the CPU count stay each bot's own, in its group
`arena-PID-N` under the parent.

Two layouts are supported. cgroup v2 (most machines today): groups under the arena's
own, usable when that group can hand the memory and pids controllers down (a container,
or a systemd scope with Delegate=yes). A v2 group that hands controllers down may hold
no process ("no internal processes"), which the referee's leaf also settles: the arena
moves there first, when it is its group's only process. cgroup v1 (as on the machines
this was built on): one folder per controller (memory, pids, and where they can be
made cpuacct for counting and cpu for a quota and the weights) under the arena's own
group of each; the arena's leaf is in the cpu controller only. Creating groups needs
write access there (root, or a delegated tree); without it a bot runs with per-process
limits instead (see `CgroupSupport.why`) and at a lower priority (nice). Inside the
sandbox /sys is not mounted, so a bot cannot move itself out of its group.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import signal
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.process.cores import allowed_cores

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct", "cpu")
OPTIONAL_V1 = ("cpuacct", "cpu")
"""Counted CPU time and a CPU quota: used where the machine has them, not required."""
CPU_PERIOD_US = 10_000
"""The quota's accounting period: short, so a tree that runs several threads at once is
held back for at most a few milliseconds at a time, never for a whole move."""
BOT_CORES = len(allowed_cores())
"""The bots' parent weighs as many nice-0 tasks as the arena has cores: with it at one
task's weight, bots beside other work of the machine (a test suite, 4 busy programs on
2 cores) got a few percent of a core, and a bot computing for a 100 ms limit reached
its wall backstop with 112 ms of CPU used."""
REFEREE_FACTOR = 10
"""The referee's own leaf weighs this many times the bots' parent (a nice-0 task's
weight, the default): the referee and its clock get their core ahead of the bots, and
the bots together still weigh what one task of the machine's other work does. Measured
on 2 cores (cgroup v1, 8 games of C echo bots): with equal weights waking bots still
preempted the referee's event loop 150-190 times per 1000 decisions, with a tenth
20-35, as when the bots were plain tasks beside it."""
V1_NICE_0 = 1024
"""A nice-0 task's weight, and the default cpu.shares of a v1 group."""
V2_DEFAULT_WEIGHT = 100
"""The default cpu.weight of a v2 group: the kernel counts it as a nice-0 task's 1024."""
REFEREE_LEAF = re.compile(r"arena-\d+-referee")
"""The leaf an arena moved itself into: an arena started from inside one (the bench's
driver, a test's worker) makes its groups beside it, not under it."""

_ids = itertools.count()
_parents_lock = threading.Lock()
_parents_ready: set[Path] = set()
"""The bots' parents this process made (or found) and weighed: removed at exit."""


@dataclass(frozen=True)
class CgroupSupport:
    """What this machine lets the arena do with cgroups: `version` 2, 1 or 0 (none),
    the folder each controller's bot groups are made in, and why when it is none."""

    version: int
    parents: dict[str, Path]
    why: str
    weight: int | None = None
    """The CPU weight (v1 cpu.shares, v2 cpu.weight) `parents` are made with, with the
    first bot; None when they are there already and are left as they are."""
    referee_weight: int | None = None
    """The CPU weight of the arena's own leaf; None where it has none."""


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


def nice_weight(nice: int | None = None) -> int:
    """The scheduler's weight of a task at `nice` (this process's by default): the
    kernel's table is 1024 / 1.25**nice to within 1%."""
    if nice is None:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
    return max(15, round(V1_NICE_0 / 1.25 ** nice))


def bots_weight(version: int, referee_in_leaf: bool) -> int:
    """The bots' parent's weight: the default (a nice-0 task's) where the referee has a
    leaf of its own weighing REFEREE_FACTOR times that; else the referee's own, its
    nice value's (on v2 in cpu.weight's units, where 100 counts as 1024)."""
    if referee_in_leaf:  # the machine's share of a process per core: bots are not starved by other work
        return (V2_DEFAULT_WEIGHT if version == 2 else V1_NICE_0) * BOT_CORES
    if version == 2:
        return min(10_000, max(1, round(nice_weight() * V2_DEFAULT_WEIGHT / V1_NICE_0)))
    return min(262_144, max(2, nice_weight()))


def referee_weight(version: int) -> int:
    """The weight of the referee's own leaf: REFEREE_FACTOR times the bots' parent's."""
    return (V2_DEFAULT_WEIGHT if version == 2 else V1_NICE_0) * REFEREE_FACTOR


def referee_leaf_name(pid: int | None = None) -> str:
    return f"arena-{os.getpid() if pid is None else pid}-referee"


def bots_parent_name(pid: int | None = None) -> str:
    return f"arena-{os.getpid() if pid is None else pid}-bots"


@cache
def cgroup_support() -> CgroupSupport:
    """Probe once per process which cgroup layout can hold bots; where the CPU
    controller allows, move the arena into its own leaf (`_v2_problem`, `_v1_leaf`)."""
    own = _own_groups()
    v2_root = CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").exists() else None
    if v2_root is not None and "" in own:
        base = _beside_referee(v2_root / own[""].lstrip("/"))
        problem = _v2_problem(base)
        if problem is None:
            _sweep([base])
            leaf = _weigh_v2_leaf(base / referee_leaf_name())
            return CgroupSupport(2, {"": base / bots_parent_name()}, "", bots_weight(2, leaf),
                                 referee_weight(2) if leaf else None)
        v2_why = problem
    else:
        v2_why = "no cgroup v2 hierarchy with controllers"
    bases = {c: _beside_referee(Path(os.path.realpath(CGROUP_ROOT / c / own.get(c, "/").lstrip("/"))))
             for c in V1_CONTROLLERS}
    missing = [c for c in ("memory", "pids") if not _writable_dir(bases[c])]
    if not missing:
        for optional in OPTIONAL_V1:
            if not _writable_dir(bases[optional]) or (
                    optional == "cpu" and not (bases[optional] / "cpu.cfs_quota_us").exists()):
                del bases[optional]
        _sweep(set(bases.values()))
        leaf = "cpu" in bases and _v1_leaf(bases["cpu"])
        return CgroupSupport(1, {c: path / bots_parent_name() for c, path in bases.items()}, "",
                             bots_weight(1, leaf), referee_weight(1) if leaf else None)
    return CgroupSupport(0, {}, f"{v2_why}; cgroup v1 memory/pids groups cannot be created here "
                                f"({', '.join(missing)} not writable: run as root or in a delegated group)")


def _beside_referee(own: Path) -> Path:
    """The group to make this arena's groups in: its own, or where the arena's own is
    an arena's referee leaf (its own, or the one of the arena that started it: the
    bench's driver, a test's worker), that leaf's parent."""
    return own.parent if REFEREE_LEAF.fullmatch(own.name) else own


def _v1_leaf(base: Path) -> bool:
    """Move the arena (all its threads) into its own leaf of the v1 cpu controller at
    the referee's weight; moved back at exit so the leaf can go. False where it cannot."""
    leaf = base / referee_leaf_name()
    try:
        leaf.mkdir(exist_ok=True)
        (leaf / "cpu.shares").write_text(str(referee_weight(1)))
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        with contextlib.suppress(OSError):
            leaf.rmdir()
        return False
    atexit.register(_leave_v1_leaf, base, leaf)
    return True


def _leave_v1_leaf(base: Path, leaf: Path) -> None:
    """At exit: back into the arena's own group (v1 allows processes beside groups)."""
    with contextlib.suppress(OSError):
        (base / "cgroup.procs").write_text(str(os.getpid()))
        leaf.rmdir()


def _weigh_v2_leaf(leaf: Path) -> bool:
    """Give the arena's own v2 leaf (where `_referee_to_leaf` moved it) the referee's
    weight; whether the arena is in it."""
    if not leaf.is_dir():
        return False
    with contextlib.suppress(OSError):  # no cpu controller handed down: no weights at all
        (leaf / "cpu.weight").write_text(str(referee_weight(2)))
    return True


def _v2_problem(parent: Path) -> str | None:
    """Why bots cannot get v2 groups under `parent`, or None when they can. Handing the
    controllers down needs `parent` empty of processes: when the arena is its only one,
    the arena moves into a leaf of its own first (`_referee_to_leaf`)."""
    if not _writable_dir(parent):
        return f"cgroup v2 group {parent} is not writable (not delegated to this user)"
    wanted = {"memory", "pids"}
    enabled = set((parent / "cgroup.subtree_control").read_text().split()) if (
        parent / "cgroup.subtree_control").exists() else set()
    if not wanted <= enabled:
        available = set((parent / "cgroup.controllers").read_text().split())
        if not wanted <= available:
            return f"cgroup v2 group {parent} lacks the {', '.join(sorted(wanted - available))} controller"
        problem = _referee_to_leaf(parent)
        if problem is not None:
            return problem
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(wanted)))
        except OSError:
            return (f"cgroup v2 group {parent} holds processes, so its controllers cannot be handed down "
                    "(run the arena in its own scope, e.g. systemd-run --user --scope -p Delegate=yes)")
    if "cpu" not in enabled and "cpu" in (parent / "cgroup.controllers").read_text().split():
        with contextlib.suppress(OSError):  # the CPU quota is a bonus, not a requirement
            (parent / "cgroup.subtree_control").write_text("+cpu")
    return None


def _referee_to_leaf(parent: Path) -> str | None:
    """Move the arena out of `parent` into `parent/arena-PID-referee` when it is the only
    process there (the root group may hold processes: nothing to do), so that `parent`
    may hand controllers down; why not when other processes share `parent`."""
    if parent == CGROUP_ROOT:
        return None
    try:
        held = [int(pid) for pid in (parent / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        held = []
    if not held:
        return None
    others = [pid for pid in held if pid != os.getpid()]
    if others:
        return (f"cgroup v2 group {parent} holds other processes than the arena ({len(others)}, e.g. pid "
                f"{others[0]}), so its controllers cannot be handed down (run the arena in its own scope, e.g. "
                "systemd-run --user --scope -p Delegate=yes arena ...)")
    leaf = parent / referee_leaf_name()
    try:
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
    except OSError as exc:
        return f"cgroup v2 group {parent}: the arena could not move into its own leaf {leaf.name} ({exc})"
    return None


def _ensure_parents(support: CgroupSupport) -> None:
    """Make this arena's bots' parents with their weight (once; again if removed)."""
    if support.weight is None:
        return
    with _parents_lock:
        for path in dict.fromkeys(support.parents.values()):  # co-mounted controllers share one
            if path in _parents_ready and path.is_dir():
                continue
            path.mkdir(exist_ok=True)
            if not _parents_ready:
                atexit.register(_remove_parents)
            _parents_ready.add(path)
            if support.version == 2:
                _hand_down(path)
            if support.version == 2 or path == support.parents.get("cpu"):
                weight = "cpu.weight" if support.version == 2 else "cpu.shares"
                with contextlib.suppress(OSError):  # no cpu controller: no weight
                    (path / weight).write_text(str(support.weight))


def _hand_down(parent: Path) -> None:
    """On v2, let the bots' groups under `parent` have the controllers its own parent
    hands down to it (memory and pids; cpu where there), in one write."""
    try:
        enabled = (parent.parent / "cgroup.subtree_control").read_text().split()
    except OSError:
        enabled = []
    wanted = [c for c in ("cpu", "memory", "pids") if c in enabled]
    for controllers in (wanted, [c for c in wanted if c != "cpu"]):  # without the optional cpu if it is refused
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in controllers))
            return
        except OSError:
            continue  # a missing one shows when the bot's limit is set


def _remove_parents() -> None:
    """At exit: remove the bots' parents this process made (a parent still holding a
    bot's group is left to the next arena's sweep)."""
    for path in _parents_ready:
        with contextlib.suppress(OSError):
            path.rmdir()


def _sweep(parents: Iterable[Path]) -> None:
    """Remove the empty groups of arena processes that are gone (killed with -9, they
    could not remove their own): a bots' parent after the bots' groups in it."""
    for parent in parents:
        with contextlib.suppress(OSError):
            for group in parent.glob("arena-*-*"):
                owner = group.name.split("-")[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    _remove_group(group)


def _remove_group(group: Path) -> None:
    """Remove `group`, the groups in it first (a bots' parent's bots)."""
    with contextlib.suppress(OSError):
        for child in group.glob("arena-*-*"):
            with contextlib.suppress(OSError):
                child.rmdir()
    with contextlib.suppress(OSError):
        group.rmdir()


class BotCgroup:
    """The group of one bot's process tree: created with its limits, joined by the
    bot's first process before it runs anything, counted, and removed after."""

    def __init__(self, support: CgroupSupport, memory_bytes: int | None, processes: int | None,
                 cpus: float | None = None) -> None:
        self.support = support
        _ensure_parents(support)
        name = f"arena-{os.getpid()}-{next(_ids)}"
        self.dirs = {controller: parent / name for controller, parent in support.parents.items()}
        made: set[Path] = set()
        for controller, path in self.dirs.items():
            if path not in made:  # co-mounted controllers (cpu,cpuacct) share one folder
                path.mkdir()
                made.add(path)
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
        return list(dict.fromkeys(str(path / "cgroup.procs") for path in self.dirs.values()))

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
