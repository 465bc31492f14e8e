"""One bot process: spawn it in its own process group, talk lines, kill and reap it.

Bots are untrusted. Every bot gets its own session (so its own process group), its
stdin/stdout are non-blocking pipes driven with trio.lowlevel.wait_readable (cheaper per
round trip than Trio's process streams), stderr is drained by a background task into a
capped log file, and a pidfd watcher notices the bot's death even when a child keeps
its pipes open. `kill()` is synchronous and idempotent so it is safe in every `finally`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.referee.cgroups import BotCgroup, cgroup_support, join_cgroup
from arena.referee.channel import Launch
from arena.referee.command import BotCommand
from arena.referee.faults import BotFault
from arena.referee.sandbox import READY_LINE, Scratch, TmpfsFolders, probe, sandbox_command
from arena.referee.seeds import SECRET_ENV
from arena.referee.spec import BotSpec, Limits
from arena.termination import Termination

_READY = (READY_LINE + "\n").encode()


class SandboxError(ArenaError):
    """Bubblewrap failed before the bot ran: an error of the arena's, not a bot's fault."""


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    """Best-effort prctl (Linux only); False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_subreaper = False


def _children(pid: int) -> list[int]:
    """The direct children of `pid` (empty when it is gone)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                found.extend(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def _reap_adopted(pids: set[int]) -> None:
    """Kill and reap those of `pids` (a dead bot's descendants) that became our
    children when their parent died (we are a subreaper). Without this every sandbox
    would leave its init as a zombie of the arena until it exits, and a bot's setsid
    child, where no cgroup holds it, would live on and hold the referee here."""
    if not _subreaper:
        return
    me = os.getpid()
    adopted = {pid for pid in pids if (_parent_and_group(pid) or (0, 0))[0] == me}
    for pid in adopted:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 1.0  # all of them together: a killed process dies at once
    while adopted and time.monotonic() < deadline:
        for pid in list(adopted):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # reaped already
            if done:
                adopted.discard(pid)
        if adopted:
            time.sleep(0.001)


def become_subreaper() -> bool:
    """Adopt orphaned descendants, so grandchildren of a killed bot are reaped by us
    rather than left as zombies under a container init that never reaps."""
    global _subreaper
    if not _subreaper:
        _subreaper = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return _subreaper


def _child_setup(limits: Limits, cgroup: BotCgroup | None, command: BotCommand) -> Callable[[], None]:
    """Runs in the child between fork and exec: die with the referee, join the bot's
    cgroup (so every process it starts is counted), and where there is no cgroup, the
    per-process limits instead; then the command's own set-up (its mounts, and the drop
    to an unprivileged user when the arena runs as root)."""
    procs_files = cgroup.procs_files if cgroup is not None else []

    def setup() -> None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        join_cgroup(procs_files)
        if limits.memory_bytes is not None and not procs_files:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        if limits.processes is not None and not procs_files:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        command.in_child()

    return setup


async def _quietly(task: Callable[[], Awaitable[None]]) -> None:
    """Run a background task that may find its fd closed under it by kill()."""
    try:
        await task()
    except (trio.ClosedResourceError, trio.BusyResourceError, OSError, ValueError):
        pass


def _parent_and_group(pid: int) -> tuple[int, int] | None:
    """A process's parent pid and process group (Linux /proc), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), int(fields[2])


def process_table() -> dict[int, tuple[int, int]]:
    """Every process of the machine (Linux /proc): pid to (parent pid, process group)."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _parent_and_group(int(entry))) is not None:
            table[int(entry)] = found
    return table


def processes_in_group(pgid: int) -> list[int]:
    """Pids of live or zombie processes whose process group is `pgid`."""
    return [pid for pid, (_, group) in process_table().items() if group == pgid]


def _pipes_held_below(root: int) -> set[int]:
    """Inodes of the pipes held open by the descendants of `root` that are not
    bubblewrap itself (Linux /proc)."""
    table = process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    held: set[int] = set()
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":
                continue
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("pipe:["):
                    held.add(int(target[6:-1]))
    return held


def telling_lines(text: str, most: int = 2, chars: int = 300) -> str:
    """The last lines of `text` that hold words or numbers (a runtime's crash report
    often ends with decoration, node's with a lone '#'), the last `most` of them, joined
    with ' | ' and cut to the last `chars` characters."""
    lines = [line.strip(" #*=-\t") for line in text.splitlines()]
    meaningful = [line for line in lines if any(c.isalnum() for c in line)]
    return " | ".join(meaningful[-most:])[-chars:]


def describe_exit(returncode: int | None) -> str:
    """'exit code 3' or 'killed by SIGSEGV' for a finished process."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


class BotProcess:
    """A running bot: write lines to it, read its answer lines with a deadline."""

    def __init__(self, spec: BotSpec, log_path: Path | None, limits: Limits = Limits(),
                 hidden: tuple[Path, ...] = ()) -> None:
        self.spec = spec
        self.limits = limits
        self.log_path = log_path
        self.scratch: Scratch | None = None
        """An unsandboxed bot's writable folders on the host."""
        self._tmpfs: TmpfsFolders | None = None
        """A sandboxed bot's /scratch and /tmp, opened from the host when first emptied."""
        self.hidden = hidden
        """The referee's output: masked inside the sandbox wherever the bot could read it."""
        self.sandboxed = False
        self.proc: subprocess.Popen[bytes] | None = None
        self._pgid: int | None = None
        self._stdin = -1
        self._stdout = -1
        self._stderr = -1
        self._pidfd = -1
        self._stat_fd = -1
        self._buf = bytearray()
        self._scan = 0
        self._exited = False
        self._read_scope: trio.CancelScope | None = None
        self._tasks = trio.CancelScope()
        self.stderr_bytes = 0
        self.stderr_tail = b""
        self._head = b""
        self.ready_seen = False
        """Whether the sandbox said it stood, before the bot's command ran."""
        self._sandbox_init: set[int] = set()
        """The sandbox's own init (its own session, so outside the bot's process group),
        known once the sandbox stood: ours to reap when the sandbox's outer process dies."""
        self.cgroup: BotCgroup | None = None
        self.command: BotCommand | None = None
        """What was started (kept to remove what was made for it, and to explain a
        start-up failure)."""

    # ---- lifecycle -------------------------------------------------------------------

    def spawn(self, nursery: trio.Nursery) -> None:
        """Start the process (in its sandbox and cgroup when they are to be had) and its
        background tasks; BotFault('startup-failure') if the command cannot be run."""
        command = self.command = self._command()
        become_subreaper()  # after the sandbox's probe, whose own init we could not name to reap
        support = cgroup_support()
        if support.version and (self.limits.memory_bytes is not None or self.limits.processes is not None
                                or self.limits.cpus is not None):
            try:
                self.cgroup = BotCgroup(support, self.limits.memory_bytes, self.limits.processes, self.limits.cpus)
            except OSError:
                self.cgroup = None
        try:
            self.proc = subprocess.Popen(
                command.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=command.cwd,
                env=command.env,
                start_new_session=True,
                preexec_fn=_child_setup(self.limits, self.cgroup, command),
                close_fds=True,
                pass_fds=command.pass_fds,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            self._remove_cgroup()
            self._remove_scratch()
            command.release()
            if command.sandboxed:
                raise SandboxError(f"the bot's sandbox could not be started ({exc})") from None
            raise BotFault(
                Termination.STARTUP_FAILURE,
                f"cannot run {' '.join(self.spec.command)!r}: {exc} "
                "(check the command, its path and that it is executable)",
            ) from None
        self._pgid = self.proc.pid  # the bot leads its own session, so its pid names the group
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._stdin = self.proc.stdin.fileno()
        self._stdout = self.proc.stdout.fileno()
        self._stderr = self.proc.stderr.fileno()
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(self.proc.pid)
        nursery.start_soon(self._background)

    def _command(self) -> BotCommand:
        """What to start: the bot's own command in its sandbox (built whole by
        sandbox.py), or (no sandbox) as it is, with its scratch folders in the environment."""
        isolation = probe() if self.limits.sandbox else None
        if isolation is not None and isolation.sandbox and isolation.bwrap:
            self.sandboxed = True
            return sandbox_command(isolation, self.spec, self.limits, self.hidden)
        self.scratch = Scratch()
        env = {name: value for name, value in os.environ.items() if name != SECRET_ENV}
        env.update({"ARENA_SCRATCH": str(self.scratch.scratch), "TMPDIR": str(self.scratch.tmp)})
        env.update(self.spec.env)
        return BotCommand(list(self.spec.command), env, self.spec.cwd)

    def clear_scratch(self) -> bool:
        """Empty the bot's writable folders before a game; False when they cannot be
        reached (the caller then starts a fresh process, whose folders are empty)."""
        if self.scratch is not None:
            try:
                self.scratch.empty()
            except OSError:
                return False
            return True
        if not self.sandboxed or self.proc is None or not self.running:
            return False
        if self._tmpfs is None:
            self._tmpfs = TmpfsFolders.open(self.proc.pid, self.limits.scratch_bytes)
            if self._tmpfs is None:
                return False
        try:
            self._tmpfs.empty()
        except OSError:
            return False
        return True

    def _remove_scratch(self) -> None:
        if self._tmpfs is not None:
            self._tmpfs.close()
            self._tmpfs = None
        if self.scratch is not None:
            self.scratch.remove()
            self.scratch = None

    def cpu_seconds(self) -> float | None:
        """CPU time the bot has used: its whole tree through its cgroup, else its own
        process (and its reaped children) through /proc."""
        if self.cgroup is not None:
            return self.cgroup.cpu_seconds()
        if self.proc is None or self.sandboxed:
            return None
        try:
            if self._stat_fd < 0:
                self._stat_fd = os.open(f"/proc/{self.proc.pid}/stat", os.O_RDONLY)
            fields = os.pread(self._stat_fd, 1024, 0).rsplit(b")", 1)[1].split()
        except OSError:
            return None
        return sum(int(f) for f in fields[11:15]) / _CLOCK_TICKS

    def limits_hit(self) -> tuple[bool, bool]:
        """Whether the bot's tree hit its memory limit, and its process limit."""
        return self.cgroup.limits_hit() if self.cgroup is not None else (False, False)

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    async def _background(self) -> None:
        """Stderr drain and exit watcher; they end quietly when kill() closes their fds."""
        if self._tasks.cancel_called:  # killed before this task first ran
            return
        with self._tasks:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_quietly, self._drain_stderr)
                if self._pidfd >= 0:
                    nursery.start_soon(_quietly, self._watch_exit)

    @property
    def running(self) -> bool:
        """Whether the process lives: the pidfd watcher's word, else a waitpid."""
        if self.proc is None or self._exited:
            return False
        return self._pidfd >= 0 or self.proc.poll() is None

    def kill(self) -> None:
        """Kill the whole process group and reap everything; safe to call twice."""
        self._tasks.cancel()
        proc = self.proc
        if proc is None:
            return
        tree = self._tree_pids(proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()  # what left the process group (a setsid daemon) is still in the cgroup
        with contextlib.suppress(ChildProcessError):
            proc.wait()
        self._reap_group(proc.pid)
        _reap_adopted(tree)
        self._remove_cgroup()
        self._remove_scratch()
        if self.command is not None:
            self.command.release()
        for fd in (self._stdin, self._stdout, self._stderr, self._pidfd):
            if fd >= 0:
                trio.lowlevel.notify_closing(fd)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        for own in (self._pidfd, self._stat_fd):
            if own >= 0:
                with contextlib.suppress(OSError):
                    os.close(own)
        self._stat_fd = -1
        self._stdin = self._stdout = self._stderr = self._pidfd = -1
        self._exited = True

    def _tree_pids(self, pid: int) -> set[int]:
        """The processes that may become ours to reap once `pid` dies: its children (the
        sandbox's own init leads a session of its own) and everything in its cgroup."""
        tree = set(_children(pid)) | self._sandbox_init
        if self.cgroup is not None:
            tree.update(self.cgroup.pids())
        tree.discard(pid)
        return tree

    def _reap_group(self, pgid: int) -> None:
        """Reap grandchildren that were adopted by us (we are a subreaper)."""
        if not _subreaper:
            return
        for _ in range(2000):
            try:
                pid, _ = os.waitpid(-pgid, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                time.sleep(0.001)

    # ---- background tasks ------------------------------------------------------------

    async def _drain_stderr(self) -> None:
        """Copy stderr to the log until the cap, then discard, so a flood never blocks
        the bot nor fills the disk."""
        cap = self.limits.stderr_bytes
        log = open(self.log_path, "ab") if self.log_path else None  # noqa: SIM115
        try:
            while True:
                await trio.lowlevel.wait_readable(self._stderr)
                try:
                    chunk = os.read(self._stderr, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    return
                self._keep_tail(chunk)
                if log and self.stderr_bytes < cap:
                    room = cap - self.stderr_bytes
                    log.write(chunk[:room])
                    if len(chunk) >= room:
                        log.write(f"\n[arena: log capped at {cap} bytes]\n".encode())
                    log.flush()
                self.stderr_bytes += len(chunk)
        finally:
            if log:
                log.close()

    async def _watch_exit(self) -> None:
        await trio.lowlevel.wait_readable(self._pidfd)
        self._exited = True
        if self._read_scope is not None:
            self._read_scope.cancel()

    # ---- talking -----------------------------------------------------------------------

    async def gone(self, pipe: str = "stdout") -> BotFault:
        """The fault for a bot whose process is gone or that closed `pipe` (its stdout
        when a read ended, its stdin when a write failed)."""
        assert self.proc is not None
        code = self.proc.poll()
        for _ in range(50):  # the pipe closed: give a dying process a moment to exit
            if code is not None or self._exited:
                break
            await trio.sleep(0.001)
            code = self.proc.poll()
        if self.sandboxed:
            self._last_words()  # reads what is left of stderr, the sandbox's word among it
            if not self.ready_seen:
                detail = self.stderr_tail.decode("utf-8", "replace").strip()[-300:]
                raise SandboxError(f"the bot's sandbox could not be set up ({detail or describe_exit(code)})")
        if code is None and not self._exited:
            stopped = "stopped reading its input" if pipe == "stdin" else "stopped its output"
            return BotFault(Termination.CLOSED_PIPE, f"the bot closed its {pipe} ({stopped}) but is still running")
        return BotFault(Termination.CRASH, f"the bot exited ({describe_exit(code)}){self._last_words()}")

    def _closed_pipe(self) -> BotFault | None:
        """In a sandbox, bubblewrap keeps the bot's pipes open, so a bot that closes its
        stdin or stdout is seen only when it fails to answer: then, if no process of the
        bot holds a pipe any more, say so rather than calling it slow."""
        if not self.sandboxed or self.proc is None:
            return None
        held = _pipes_held_below(self.proc.pid)
        for pipe, fd in (("stdout", self._stdout), ("stdin", self._stdin)):
            try:
                inode = os.fstat(fd).st_ino
            except OSError:
                continue
            if inode not in held:
                stopped = "stopped reading its input" if pipe == "stdin" else "stopped its output"
                return BotFault(Termination.CLOSED_PIPE, f"the bot closed its {pipe} ({stopped}) but is still running")
        return None

    def _last_words(self) -> str:
        """What the bot last wrote to stderr that says something, to say why it died."""
        with contextlib.suppress(OSError):
            self._keep_tail(os.read(self._stderr, 1 << 16))
        telling = telling_lines(self.stderr_tail.decode("utf-8", "replace"))
        return f"; its stderr ends: {telling!r}" if telling else ""

    def _keep_tail(self, chunk: bytes) -> None:
        if not self.ready_seen and self.sandboxed:
            self._head = (self._head + chunk)[:len(_READY)]
            self.ready_seen = self._head == _READY
            if self.ready_seen:  # the sandbox's own line is not the bot's last word
                assert self.proc is not None
                self._sandbox_init.update(_children(self.proc.pid))
                chunk = (self.stderr_tail + chunk).removeprefix(_READY)
                self.stderr_tail = b""
        self.stderr_tail = (self.stderr_tail + chunk)[-2048:]

    async def write(self, data: bytes, deadline: float) -> None:
        """Write all of `data`, waiting for pipe space until `deadline` (trio time)."""
        view = memoryview(data)
        while view:
            try:
                sent = os.write(self._stdin, view)
            except BlockingIOError:
                with trio.move_on_at(deadline) as scope:
                    await trio.lowlevel.wait_writable(self._stdin)
                if scope.cancelled_caught and not self._exited:
                    raise self._closed_pipe() or BotFault(
                        Termination.TIME_OUT, "the bot did not read its input in time") from None
                continue
            except (BrokenPipeError, OSError) as exc:
                if isinstance(exc, BrokenPipeError) or exc.errno in (errno.EPIPE, errno.EBADF):
                    raise await self.gone("stdin") from None
                raise
            view = view[sent:]

    @property
    def buffered(self) -> bool:
        """Whether output beyond the last line read is already buffered."""
        return bool(self._buf)

    @property
    def pgid(self) -> int | None:
        return self._pgid

    def unsolicited(self) -> bool:
        """Whether the bot has written anything it was not asked for (non-blocking)."""
        if self._buf:
            return True
        try:
            chunk = os.read(self._stdout, 1 << 16)
        except (BlockingIOError, OSError):
            return False
        self._buf += chunk
        return bool(chunk)

    async def read_line(self, deadline: float) -> bytes:
        """The next line (without newline) completed before `deadline` (trio time).

        Raises BotFault: time-out, crash, closed-pipe or oversized-line. Output a bot wrote
        before dying is still read, so an answer followed by an exit counts."""
        buf = self._buf
        while True:
            end = buf.find(b"\n", self._scan)
            if end >= 0:
                line = bytes(buf[:end])
                del buf[: end + 1]
                self._scan = 0
                return line
            self._scan = len(buf)
            if len(buf) > self.limits.max_line_bytes:
                raise BotFault(
                    Termination.OVERSIZED_LINE,
                    f"the bot wrote more than {self.limits.max_line_bytes} bytes without a newline",
                )
            if not self._exited:
                with trio.move_on_at(deadline) as scope:
                    self._read_scope = scope
                    await trio.lowlevel.wait_readable(self._stdout)
                self._read_scope = None
                if scope.cancelled_caught and not self._exited:
                    raise self._closed_pipe() or BotFault(Termination.TIME_OUT, "no answer in time")
            try:
                chunk = os.read(self._stdout, 1 << 16)
            except BlockingIOError:
                if self._exited:
                    raise await self.gone() from None
                continue
            if not chunk:
                raise await self.gone()
            buf += chunk

    def close_input(self) -> None:
        """Tell the bot there is no more input (after quit)."""
        if self._stdin >= 0 and self.proc is not None and self.proc.stdin is not None:
            trio.lowlevel.notify_closing(self._stdin)
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            self._stdin = -1


def launch_process(launch: Launch, nursery: trio.Nursery) -> BotProcess:
    """The Launcher of real bots: spawn the bot's process (see channel.Launcher)."""
    process = BotProcess(launch.spec, launch.log_path, launch.limits, launch.hidden)
    process.spawn(nursery)
    return process
