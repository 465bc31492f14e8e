"""A bot's build: its language's build command, run as sandboxed as a game.

The command runs as `/bin/sh -c COMMAND` inside bubblewrap, with the parts a bot's
sandbox is made of (arena/process/sandbox.py, arena/process/view.py): every namespace of
its own, the network's included, so a build downloads nothing (an entrant vendors what
it needs into the upload); no capabilities; the system folders and `ro_paths` read-only;
a fresh /tmp, /dev/shm and /scratch of `file_mb` each, in memory; read-only /proc/sys
and /dev; the system call filter where the machine has it; a clean environment (BUILD_ENV).

The one writable folder the host sees is the bot's own, bound at its own path, not at a
fixed one: what a build writes that names its folder (a venv's scripts, an rpath) still
holds when the bot runs from that folder, which a bot's sandbox shows at its own path
too. So build in the folder the bot will run from. Nothing above it is shown: its
parents are empty folders of the sandbox's own.

Limits: wall time (at its end the sandbox's init is killed, which ends every process
in its pid namespace, and is reaped, on every path: time-out, cancellation, error),
address space, file size and CPU time per process, tasks at once, no core files
(rlimits set before bubblewrap starts, inherited by all it runs). No cgroup counts a
build, so memory its tmpfs hold is bounded by their sizes alone.

When the arena runs as root, bubblewrap runs as a host user leased for this build
alone (arena/process/sandbox_users.py), else as nobody, never as root: the folder is
lent to that user for the build's time and given back to its owner after. Whoever ran
it, what the build leaves has no set-user-ID, set-group-ID or sticky bits and is
writable by its owner alone.
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import signal
import stat
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.process import procfs
from arena.process.command import BotCommand
from arena.process.reaper import PR_SET_PDEATHSIG, prctl
from arena.process.sandbox import Isolation, namespace_args, probe
from arena.process.sandbox_users import lease
from arena.process.spawner import run_in_forker
from arena.process.syscall_filter import memory_file, program
from arena.process.toolchain import is_system
from arena.process.view import View, hardening_args, stage, system_args

BUILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
"""A build's whole environment."""

READY = "[arena] build sandbox ready"
"""The build's first line, written by the sandbox's shell before the command runs
(and left out of the log): a build that ends without it failed in bubblewrap's set-up,
which is the machine's fault, not the entrant's."""

CPU_HEADROOM_S = 5
"""RLIMIT_CPU is the wall time plus this: a process alone cannot use more CPU."""
KILL_WAIT_S = 5.0
"""How long bubblewrap gets to reap the killed sandbox's init before it is killed too."""
SANDBOX_TASKS = 2
"""Tasks bubblewrap adds to the build's own: its second process and the sandbox's init."""
CHUNK = 1 << 16


class BuildError(ArenaError):
    """The machine cannot run a build sandboxed: the message says why and what fixes it."""


@dataclass(frozen=True)
class BuildLimits:
    """What one build may take."""

    seconds: float = 120.0
    """Wall time."""
    memory_mb: int = 2048
    """Address space of each process (RLIMIT_AS)."""
    log_bytes: int = 256 << 10
    """The build log kept: its head and tail, if it is longer."""
    file_mb: int = 200
    """Largest file a build may write (RLIMIT_FSIZE); also the size of its /tmp."""
    processes: int = 512
    """Tasks (processes and threads) at once, beyond what its host user runs already
    (RLIMIT_NPROC, which counts per host user: exactly the build's own when the arena
    runs as root and leases it a user): a fork bomb stops there."""


@dataclass(frozen=True)
class BuildResult:
    """How a build ended, and what it wrote to stdout and stderr (together)."""

    ok: bool
    exit_code: int | None
    """None when it was stopped at its time limit."""
    timed_out: bool
    seconds: float
    """Wall time it took (its limit, when it was stopped there)."""
    log: str

    def summary(self) -> str:
        if self.timed_out:
            return f"the build took longer than {self.seconds:g} s and was stopped"
        if self.ok:
            return f"built in {self.seconds:.1f} s"
        return f"the build failed (exit code {self.exit_code})"


@dataclass
class _Log:
    """The build's output as it comes: whether it opened with READY (left out), then
    its first and its last `limit / 2` bytes."""

    limit: int
    opening: bytearray = field(default_factory=bytearray)
    ready: bool | None = None
    """None until the first bytes tell."""
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        if self.ready is None:
            marker = READY.encode() + b"\n"
            self.opening += chunk
            if len(self.opening) < len(marker) and marker.startswith(self.opening):
                return
            self.ready = self.opening.startswith(marker)
            chunk = bytes(self.opening[len(marker):] if self.ready else self.opening)
            self.opening.clear()
        room = self.limit // 2 - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        keep = self.limit - self.limit // 2
        if len(self.tail) > keep:
            self.dropped += len(self.tail) - keep
            del self.tail[:len(self.tail) - keep]

    def text(self) -> str:
        head = bytes(self.opening + self.head)
        middle = f"\n[... {self.dropped} bytes of the build's output left out ...]\n" if self.dropped else ""
        return head.decode("utf-8", "replace") + middle + bytes(self.tail).decode("utf-8", "replace")


@dataclass
class _Sandbox:
    """One build's bubblewrap command, and who holds its folder meanwhile."""

    command: BotCommand
    folder: Path
    owner: tuple[int, int] | None = None
    """The folder's owner, to give it back to after the build, when it was lent to
    another host user for the build."""

    def release(self) -> None:
        """Once the build's processes are gone: the folder tidied and back to its owner,
        then the lease, the staged mount points and the descriptors."""
        try:
            _tidy_tree(self.folder, self.owner)
        finally:
            self.command.release()


async def run_build(command: str, folder: Path, limits: BuildLimits = BuildLimits(),
                    ro_paths: Sequence[Path] = ()) -> BuildResult:
    """Run the build `command` in `folder` (a folder the bot will run from), sandboxed
    and limited as the module says; `ro_paths`: more folders shown read-only (a
    toolchain outside the system folders). BuildError where the machine cannot
    sandbox it; the result says how the build itself went."""
    if "\0" in command:
        raise ValueError("the build command holds a NUL character")
    isolation = await trio.to_thread.run_sync(probe)
    if not isolation.sandbox or isolation.bwrap is None:
        raise BuildError(f"bots are built only inside a sandbox, and this machine cannot make one: {isolation.why}")
    sandbox = await trio.to_thread.run_sync(_prepare, isolation, command, folder, ro_paths, limits)
    try:
        return await _run(sandbox, limits)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(sandbox.release)


def _prepare(isolation: Isolation, command: str, folder: Path, ro_paths: Sequence[Path],
             limits: BuildLimits) -> _Sandbox:
    """The build's bubblewrap command (blocking): as whom it runs, its mounts, the
    folder lent to that user."""
    assert isolation.bwrap is not None
    folder = Path(os.path.realpath(folder))
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder to build in")
    ro = [Path(os.path.realpath(p)) for p in ro_paths]
    ro = [p for p in dict.fromkeys(ro) if p.exists() and not is_system(p) and p != folder]
    binds = sorted([(folder, folder), *((p, p) for p in ro)], key=lambda b: (len(b[1].parts), str(b[1])))
    sandbox = _Sandbox(BotCommand([isolation.bwrap], {"PATH": "/usr/bin:/bin"}, "/", sandboxed=True,
                                  shown=tuple(ro), folder=folder), folder)
    fds: list[int] = []
    try:
        run_as = isolation.run_as
        if run_as is not None and isolation.own_users and (user := lease()) is not None:
            run_as = (user.uid, user.uid)
            sandbox.command.on_release.append(user.release)
        source: dict[Path, str] = {}
        if run_as is not None:
            view = View(binds=list(binds))
            source, pairs, sandbox.command.argv[0] = stage(view, isolation.bwrap, *run_as)
            sandbox.command.owned += view.owned
            sandbox.command.run_as, sandbox.command.stage = run_as, tuple(pairs)
            info = folder.stat()
            sandbox.owner = (info.st_uid, info.st_gid)
            _lend_tree(folder, run_as)
        options = [*namespace_args(), *(["--disable-userns"] if isolation.disable_userns else []), *system_args(),
                   *hardening_args(limits.file_mb << 20)]
        for src, dest in binds:
            options += ["--bind" if dest == folder else "--ro-bind", source.get(src, str(src)), str(dest)]
        options += ["--remount-ro", "/", "--chdir", str(folder), "--clearenv"]
        for name, value in BUILD_ENV.items():
            options += ["--setenv", name, value]
        if isolation.syscall_filter:
            fds.append(memory_file(program(), "arena-syscall-filter"))
            options += ["--seccomp", str(fds[-1])]
    except BaseException:
        for fd in fds:
            os.close(fd)
        sandbox.release()
        raise
    sandbox.command.pass_fds = tuple(fds)
    sandbox.command.argv += [*options, "--", "/bin/sh", "-c", f'echo "{READY}"; exec /bin/sh -c "$1"', "sh", command]
    return sandbox


def _lend_tree(folder: Path, user: tuple[int, int]) -> None:
    """Give `folder` and all in it to the build's host user (before the build)."""
    for path in _tree(folder):
        _own(path, user, 0o777)


def _tidy_tree(folder: Path, owner: tuple[int, int] | None) -> None:
    """After the build, once none of its processes runs: `folder` and all in it without
    set-user-ID, set-group-ID and sticky bits or write for group and others, back to
    `owner` if it was lent."""
    for path in _tree(folder):
        _own(path, owner, 0o755)


def _tree(folder: Path) -> Iterator[str]:
    """`folder` and every path in it, never through a link; each folder opened to its
    owner before it is listed (a build may leave one mode 000)."""
    yield str(folder)
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            yield os.path.join(top, name)


def _own(path: str, owner: tuple[int, int] | None, keep: int) -> None:
    with contextlib.suppress(OSError):  # one that cannot be changed is left as it is
        info = os.lstat(path)
        if owner is not None:
            os.chown(path, *owner, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return
        mode = stat.S_IMODE(info.st_mode) & keep
        os.chmod(path, mode | 0o700 if stat.S_ISDIR(info.st_mode) else mode)


BUILD_NICENESS = 10
"""A build runs beside games whose bots are timed: it takes the CPU they leave."""


def _child_setup(limits: BuildLimits, command: BotCommand) -> Callable[[], None]:
    """Runs in the child before exec: die with the arena, the build's limits (inherited
    by every process of the sandbox), then the command's mounts and drop of user."""
    cpu = math.ceil(limits.seconds) + CPU_HEADROOM_S
    user = command.run_as[0] if command.run_as is not None else os.getuid()
    tasks = procfs.tasks_of_user(user) + limits.processes + SANDBOX_TASKS  # RLIMIT_NPROC counts them all
    wanted = {resource.RLIMIT_AS: limits.memory_mb << 20, resource.RLIMIT_FSIZE: limits.file_mb << 20,
              resource.RLIMIT_CPU: cpu, resource.RLIMIT_CORE: 0, resource.RLIMIT_NPROC: tasks}
    values = {}
    for which, value in wanted.items():  # no higher than the hard limit this process has (when not root)
        hard = resource.getrlimit(which)[1]
        values[which] = value if hard == resource.RLIM_INFINITY else min(value, hard)

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.nice(BUILD_NICENESS)
        for which, value in values.items():
            resource.setrlimit(which, (value, value))
        command.in_child()

    return setup


def _start(command: BotCommand, limits: BuildLimits) -> tuple[subprocess.Popen[bytes], int]:
    """Start the sandbox (blocking; in a thread that outlives it): the process and our
    end of the pipe its stdout and stderr share."""
    ours, theirs = os.pipe()
    try:
        proc = subprocess.Popen(command.argv, stdin=subprocess.DEVNULL, stdout=theirs, stderr=theirs,
                                cwd=command.cwd, env=command.env, start_new_session=True, close_fds=True,
                                pass_fds=command.pass_fds, preexec_fn=_child_setup(limits, command))
    except BaseException:
        os.close(ours)
        raise
    finally:
        os.close(theirs)
    return proc, ours


async def _run(sandbox: _Sandbox, limits: BuildLimits) -> BuildResult:
    log = _Log(limits.log_bytes)
    try:
        proc, output = await run_in_forker(lambda: _start(sandbox.command, limits))
    except OSError as exc:
        raise BuildError(f"bubblewrap could not be started ({exc}); run `arena doctor` to see what the sandbox "
                         "needs") from None
    started = time.monotonic()
    try:
        async with trio.lowlevel.FdStream(output) as stream:
            with trio.move_on_after(limits.seconds) as deadline:
                while chunk := await stream.receive_some(CHUNK):
                    log.add(chunk)
                await trio.to_thread.run_sync(proc.wait, abandon_on_cancel=True)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_end, proc)
    seconds = time.monotonic() - started
    if deadline.cancelled_caught:
        return BuildResult(False, None, True, limits.seconds, log.text())
    if not log.ready:
        raise BuildError(f"the build's sandbox could not be made (bubblewrap: {log.text().strip()[-500:]}); run "
                         "`arena doctor` to see what the sandbox needs")
    return BuildResult(proc.returncode == 0, proc.returncode, False, seconds, log.text())


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Make sure nothing of the build runs, and reap it (blocking). Still running (a
    time-out, a cancellation, an error): kill the sandbox's init first, which ends every
    process of its pid namespace before bubblewrap sees it die, so once bubblewrap is
    reaped nothing of the build is left; then bubblewrap's group if it lingers."""
    if proc.poll() is None:
        inits = procfs.children(proc.pid)
        for pid in inits:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(KILL_WAIT_S)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # not reaped yet: the group's id is still bubblewrap's
            proc.wait()
            for pid in inits:  # killed, and ours now if this process adopts orphans (a referee does)
                if (procfs.parent_and_group(pid) or (0, 0))[0] == os.getpid():
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, 0)
