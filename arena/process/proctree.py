"""A bot's process tree: started in its own session and cgroup, counted, and buried.

`ProcessTree.start` forks the bot's first process (blocking, with a preexec step: the
caller runs it in a worker thread) in a session of its own, so its pid names its
process group, in a cgroup made for it where the machine has them (its memory and
process limits hold for the whole tree and its CPU time is counted), with our ends of
three fresh pipes. `kill` is cheap, synchronous and idempotent: it hands the tree to
the reaper, whose threads kill, wait and reap (see reaper.py).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Callable, Iterable

from arena.process import procfs
from arena.process.cgroups import BotCgroup, cgroup_support, join_cgroup
from arena.process.command import BotCommand
from arena.process.reaper import PR_SET_PDEATHSIG, Burial, Reaper, prctl
from arena.process.spec import Limits

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


ADDRESS_SPACE_HEADROOM = 4 << 30
"""Without a cgroup, the memory limit is each process's RLIMIT_DATA (what it writes:
heap, private mappings) and its address space may exceed it by this much: runtimes
reserve address space they never touch (node needs about 700 MiB of it to start, the
JVM and Go more), and an RLIMIT_AS of the memory limit kept them from starting."""
SANDBOX_TASKS = 2
"""Tasks a sandbox adds to a bot's own: bubblewrap's second process and its init."""
BOT_NICENESS = 5
"""Without a cgroup (whose CPU quota keeps a bot's tree from crowding the referee out),
a bot runs this much nicer than the referee, so the referee and its clock get a core
ahead of the bots: a busy bot then delays no time-out and no answer read. The price:
at nice +5 a bot also gets less CPU than other work of the machine at nice 0 (a build,
a browser), so its wall-clock time depends on that load even more; another reason for
the CPU basis (`--time-basis cpu`) on a machine that does other work."""


MAX_COUNTED = 64
"""Most processes of one bot whose CPU time is read where no cgroup counts the tree
(each a descriptor held by the referee and a read every answer): a bot that starts more
is counted for the rest once they end, through their parents."""


def _open_stats(pids: Iterable[int]) -> dict[int, int]:
    """Each pid's /proc/PID/stat, opened (a process already gone is left out)."""
    opened = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            opened[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    return opened


def _child_setup(limits: Limits, cgroup: BotCgroup | None, command: BotCommand) -> Callable[[], None]:
    """Runs in the child between fork and exec: die with the referee, join the bot's
    cgroup (so every process it starts is counted), take its table's cores (`--affinity`),
    and where there is no cgroup, a lower priority (BOT_NICENESS) and the per-process
    limits instead; then the command's own set-up (its mounts, and the drop to an
    unprivileged user when the arena runs as root)."""
    procs_files = cgroup.procs_files if cgroup is not None else []
    nproc = 0
    if limits.processes is not None and not procs_files:  # counted here: after fork, only the limit is set
        uid = command.run_as[0] if command.run_as is not None else os.getuid()
        nproc = procfs.tasks_of_user(uid) + limits.processes + SANDBOX_TASKS
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        nproc = nproc if hard == resource.RLIM_INFINITY else min(nproc, hard)

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        join_cgroup(procs_files)
        if limits.affinity:  # inherited by every process the bot starts, through exec and fork
            with contextlib.suppress(OSError):  # a core taken from the referee since: the bot runs unpinned
                os.sched_setaffinity(0, limits.affinity)
        if cgroup is None:
            with contextlib.suppress(OSError):
                os.nice(BOT_NICENESS)
        if limits.memory_bytes is not None and not procs_files:
            resource.setrlimit(resource.RLIMIT_DATA, (limits.memory_bytes, limits.memory_bytes))
            address_space = limits.memory_bytes + ADDRESS_SPACE_HEADROOM
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        if limits.cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        if nproc:  # the user's tasks now, plus the bot's share
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        command.in_child()

    return setup


class ProcessTree:
    """One bot's processes: its first process, its cgroup, its pidfd."""

    def __init__(self, limits: Limits, reaper: Reaper) -> None:
        self.limits = limits
        self.reaper = reaper
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: BotCgroup | None = None
        self.pidfd = -1
        self._stat_fds: dict[int, int] = {}
        """The processes whose CPU time counts where no cgroup does: pid to an open
        /proc/PID/stat (the tree's root, its program, what `find_in_tree` found)."""
        self._cpu_floor = 0.0
        """The most CPU time read so far (a reaped process's time moves to its parent's,
        which may not be open yet: the count never goes back)."""
        self.known: set[int] = set()
        """Processes outside the bot's group that are ours to reap once it dies (the
        sandbox's init, which leads a session of its own)."""
        self.cleanups: list[Callable[[], None]] = []
        """Run by the reaper once the tree is dead (the scratch folders' removal)."""
        self._buried = False
        self.per_process_limits = False
        """Whether its limits are rlimits of each process (no cgroup could be made)."""
        self._prepared = False

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def prepare(self) -> None:
        """Make the tree's cgroup where the machine has them (once; blocking): before its
        command is built, which sizes the sandbox's tmpfs by whether a cgroup counts them."""
        if self._prepared:
            return
        self._prepared = True
        support = cgroup_support()
        limits = self.limits
        if support.version and (limits.memory_bytes is not None or limits.processes is not None
                                or limits.cpus is not None):
            try:
                self.cgroup = BotCgroup(support, limits.memory_bytes, limits.processes, limits.cpus)
            except OSError:
                self.cgroup = None
        self.per_process_limits = self.cgroup is None

    @property
    def memory_counted(self) -> bool:
        """Whether a cgroup holds the tree's memory (what its tmpfs hold included)."""
        return self.cgroup is not None and self.limits.memory_bytes is not None

    def start(self, command: BotCommand) -> tuple[int, int, int]:
        """Start `command` as it is (blocking: call it from a worker thread); our ends of
        its stdin, stdout and stderr. OSError, ValueError or SubprocessError when it
        cannot run (the cgroup and clean-ups are then done, the command released)."""
        self.reaper.become_subreaper()  # after the sandbox's probe, whose own init we could not name to reap
        self.prepare()
        limits = self.limits
        self.cleanups.append(command.release)  # once the process is reaped
        pipes = [os.pipe() for _ in range(3)]
        ours = (pipes[0][1], pipes[1][0], pipes[2][0])
        theirs = (pipes[0][0], pipes[1][1], pipes[2][1])
        try:
            self.proc = subprocess.Popen(
                command.argv, stdin=theirs[0], stdout=theirs[1], stderr=theirs[2], cwd=command.cwd,
                env=command.env, start_new_session=True, preexec_fn=_child_setup(limits, self.cgroup, command),
                close_fds=True, pass_fds=command.pass_fds,
            )
        except BaseException:
            for fd in ours:
                os.close(fd)
            self.discard()
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        with contextlib.suppress(OSError, AttributeError):
            self.pidfd = os.pidfd_open(self.proc.pid)
        return ours

    def discard(self) -> None:
        """Remove the cgroup and run the clean-ups of a tree that never started."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        for cleanup in self.cleanups:
            with contextlib.suppress(Exception):
                cleanup()
        self.cleanups = []

    def cpu_seconds(self, sandboxed: bool) -> float | None:
        """CPU time the bot has used: its whole tree through its cgroup, else through
        /proc the processes known to be its: the tree's root (in a sandbox the init
        bubblewrap started, whose reaped orphans count with it), its program, and what
        `find_in_tree` found since; each with its own reaped children."""
        if self.cgroup is not None:
            return self.cgroup.cpu_seconds()
        if self.proc is None or self._buried:
            return None
        if not self._stat_fds:
            self._stat_fds = _open_stats(self._roots(sandboxed))
            if not self._stat_fds:
                return None
        ticks = 0
        for pid, fd in list(self._stat_fds.items()):
            try:
                fields = os.pread(fd, 1024, 0).rsplit(b")", 1)[1].split()
                ticks += sum(int(f) for f in fields[11:15])
            except (OSError, IndexError, ValueError):  # reaped: its time is its parent's now
                del self._stat_fds[pid]
                os.close(fd)
        self._cpu_floor = max(self._cpu_floor, ticks / CLOCK_TICKS)
        return self._cpu_floor

    def find_in_tree(self, sandboxed: bool) -> dict[int, int]:
        """The processes the bot started since, each with its /proc/PID/stat open
        (blocking, a walk of /proc: call it from a worker thread, then hand the result
        to `count` on the loop); at most MAX_COUNTED in all."""
        if self.cgroup is not None or self.proc is None or self._buried:
            return {}
        roots = self._roots(sandboxed)
        room = MAX_COUNTED - len(self._stat_fds)
        found = [*roots, *(procfs.descendants(roots[0], most=MAX_COUNTED) if roots else [])]
        return _open_stats([pid for pid in found if pid not in self._stat_fds][:max(0, room)])

    def count(self, found: dict[int, int]) -> None:
        """Count from now on the processes `find_in_tree` found (on the loop, so a tree
        killed meanwhile gets none of them: their descriptors are closed)."""
        for pid, fd in found.items():
            if self._buried or pid in self._stat_fds or len(self._stat_fds) >= MAX_COUNTED:
                os.close(fd)
            else:
                self._stat_fds[pid] = fd

    def _roots(self, sandboxed: bool) -> list[int]:
        """The tree's root and program: in a sandbox bubblewrap's init and the program
        it started (bubblewrap itself only waits), else the bot's first process."""
        assert self.proc is not None
        if not sandboxed:
            return [self.proc.pid]
        init = procfs.children(self.proc.pid, most=1)
        program = procfs.children(init[0], most=1) if init else []
        return [*init, *program]

    def limits_hit(self) -> tuple[bool, bool]:
        """Whether the tree hit its memory limit, and its process limit."""
        return self.cgroup.limits_hit() if self.cgroup is not None else (False, False)

    def exit_code(self) -> int | None:
        """The first process's exit status once it ended (None while it runs)."""
        return None if self.proc is None else self.proc.poll()

    def kill(self) -> None:
        """Hand the whole tree to the reaper (cheap; safe to call twice): it kills the
        process group and the cgroup, waits, reaps, then removes the cgroup and runs
        the clean-ups, in a worker thread."""
        if self.proc is None or self._buried:
            return
        self._buried = True
        cgroup = self.cgroup
        self.cgroup = None  # its counters are no longer read here
        burial = Burial(self.proc, set(self.known), cleanups=list(self.cleanups))
        if cgroup is not None:
            burial.signal_group = cgroup.kill
            burial.group_pids = cgroup.pids
            burial.cleanups.insert(0, cgroup.remove)
        self.cleanups = []
        for fd in (self.pidfd, *self._stat_fds.values()):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.pidfd = -1
        self._stat_fds = {}
        self.reaper.bury(burial)
