"""One bot process, composed: its sandbox command, its process tree, its pipes, its
stderr log. `launch_process` is the Launcher of real bots.

- the command comes from the sandbox layer (sandbox.py), or is the bot's own with
  folders of its own (scratch.py) where there is no sandbox;
- the process tree (proctree.py) starts in a worker thread and is buried by the reaper
  (reaper.py), off the event loop;
- the pipe channel (pipes.py) is the decision path; a silence past the deadline in a
  sandbox is diagnosed (which pipe the bot closed) in a worker thread, bounded (procfs.py);
- the stderr log (stderr_log.py) drains cheaply into a capped file.

`kill()` is synchronous, cheap and idempotent so it is safe in every `finally`.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.process import procfs
from arena.process.backends import Backend, Unsandboxed, backend_for
from arena.process.botfolder import BotFolderError
from arena.process.channel import Launch
from arena.process.command import BotCommand
from arena.process.faults import BotFault
from arena.process.pipes import PipeChannel
from arena.process.procfs import process_table as process_table  # re-exported: tests and tools look here
from arena.process.procfs import processes_in_group as processes_in_group
from arena.process.proctree import ProcessTree
from arena.process.reaper import Reaper, process_reaper
from arena.process.scratch import QUICK_ENTRIES, Budget
from arena.process.spawner import run_in_forker
from arena.process.spec import BotSpec, Limits
from arena.process.stderr_log import StderrLog
from arena.process.stderr_log import telling_lines as telling_lines
from arena.termination import Termination

EMPTYINGS_AT_ONCE = 2
"""Scratch emptyings under way at once (each holds up to two descriptors a level)."""
_emptying: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("arena_emptying")


def _emptying_limiter() -> trio.CapacityLimiter:
    try:
        return _emptying.get()
    except LookupError:
        limiter = trio.CapacityLimiter(EMPTYINGS_AT_ONCE)
        _emptying.set(limiter)
        return limiter


class SandboxError(ArenaError):
    """Bubblewrap failed before the bot ran: an error of the arena's, not a bot's fault."""


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


def _stopped(pipe: str) -> BotFault:
    stopped = "stopped reading its input" if pipe == "stdin" else "stopped its output"
    return BotFault(Termination.CLOSED_PIPE, f"the bot closed its {pipe} ({stopped}) but is still running")


class BotProcess(PipeChannel):
    """A running bot: write lines to it, read its answer lines with a deadline."""

    def __init__(self, spec: BotSpec, log_path: Path | None, limits: Limits = Limits(),
                 hidden: tuple[Path, ...] = (), reaper: Reaper | None = None,
                 backend: type[Backend] | None = None) -> None:
        super().__init__(limits)
        self.spec = spec
        self.log_path = log_path
        self.hidden = hidden
        """The referee's output: masked inside the sandbox wherever the bot could read it."""
        self.tree = ProcessTree(limits, reaper or process_reaper())
        self._backend_type = backend
        self.backend: Backend = Unsandboxed(spec, limits, hidden)
        """How the bot is isolated: chosen when it starts (in a worker thread: choosing
        may probe for a sandbox)."""
        self.stderr: StderrLog | None = None
        self._tasks = trio.CancelScope()
        self._exit_event = trio.Event()

    # ---- lifecycle -------------------------------------------------------------------------

    async def spawn(self, nursery: trio.Nursery) -> None:
        """Start the process (in its sandbox and cgroup when they are to be had; in a
        thread of the forker's, since a fork with a preexec step is slow and the bot
        must not die with a worker thread) and its background tasks;
        BotFault('startup-failure') if the command cannot be run."""
        stdin, stdout, stderr = await run_in_forker(self._start)
        self.attach(stdin, stdout)
        self.stderr = StderrLog(stderr, self.log_path, self.limits.stderr_bytes, self.sandboxed, self._sandbox_stood)
        nursery.start_soon(self._background)

    def _start(self) -> tuple[int, int, int]:
        """In a worker thread: the command (the sandbox's probe runs bubblewrap once),
        the scratch folders, the process."""
        self.tree.prepare()
        try:
            command = self._command()
        except (BotFolderError, ValueError) as exc:  # its folder or its settings cannot be shown in a sandbox
            self.tree.discard()
            raise BotFault(Termination.STARTUP_FAILURE, f"its sandbox cannot be made: {exc}") from None
        except BaseException:
            self.tree.discard()
            raise
        try:
            return self.tree.start(command)
        except (OSError, ValueError, TypeError) as exc:
            if command.sandboxed:
                raise SandboxError(f"the bot's sandbox could not be started ({exc})") from None
            raise BotFault(
                Termination.STARTUP_FAILURE,
                f"cannot run {' '.join(self.spec.command)!r}: {exc} "
                "(check the command, its path and that it is executable)",
            ) from None
        except Exception as exc:  # SubprocessError and the like: the same, said the same way
            if command.sandboxed:
                raise SandboxError(f"the bot's sandbox could not be started ({exc})") from None
            raise BotFault(Termination.STARTUP_FAILURE, f"cannot run {' '.join(self.spec.command)!r}: {exc}") from None

    def _command(self) -> BotCommand:
        """What to start: its backend's command (a sandbox's built whole by sandbox.py;
        without one, the bot's own command with its scratch folders in the environment)."""
        backend_type = self._backend_type or backend_for(self.limits)
        self.backend = backend_type(self.spec, self.limits, self.hidden)
        return self.backend.command(self.tree.memory_counted, self.tree.cleanups)

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs under its sandbox's init (see Backend.sandboxed)."""
        return self.backend.sandboxed

    def _sandbox_stood(self) -> None:
        """The sandbox said it stood: its init (a session of its own, so outside the
        bot's process group) is now known, ours to reap when the sandbox dies."""
        pid = self.tree.pid
        if pid is not None:
            self.tree.known.update(procfs.children(pid, most=4))

    async def clear_scratch(self) -> bool:
        """Empty the bot's writable folders before a game within a budget: up to
        QUICK_ENTRIES entries here, the rest in a worker thread; False when they cannot
        be reached or emptied (the caller then starts a fresh process, whose folders are
        empty)."""
        if not self.running:
            return False
        try:
            quick = Budget(entries=QUICK_ENTRIES, in_thread=False)
            if self._empty(quick):
                return True
            if not quick.exhausted:
                return False
            return await trio.to_thread.run_sync(self._empty, Budget(), limiter=_emptying_limiter())
        except Exception:  # whatever a bot's leftovers provoke: a fresh process, never the arena's error
            return False

    def _empty(self, budget: Budget) -> bool:
        return self.backend.empty(budget, self.tree.pid, self.tree.cleanups)

    def cpu_seconds(self) -> float | None:
        """CPU time the bot has used (its whole tree where a cgroup counts it)."""
        return self.tree.cpu_seconds(self.sandboxed)

    async def count_tree(self) -> None:
        """Count the processes the bot started since (a walk of /proc off the event
        loop; nothing to do where a cgroup counts the tree)."""
        if self.tree.cgroup is None and self.running:
            self.tree.count(await trio.to_thread.run_sync(self.tree.find_in_tree, self.sandboxed))

    def limits_hit(self) -> tuple[bool, bool]:
        """Whether the bot's tree hit its memory limit, and its process limit."""
        return self.tree.limits_hit()

    def limits_per_process(self) -> bool:
        return self.tree.per_process_limits

    def stderr_tail(self) -> str:
        return self.stderr.telling_tail(4) if self.stderr is not None else ""

    async def _background(self) -> None:
        """Stderr drain and exit watcher; they end quietly when kill() closes their fds."""
        if self._tasks.cancel_called:  # killed before this task first ran
            return
        with self._tasks:
            async with trio.open_nursery() as nursery:
                if self.stderr is not None:
                    nursery.start_soon(_quietly, self.stderr.drain)
                if self.tree.pidfd >= 0:
                    nursery.start_soon(_quietly, self._watch_exit)

    async def _watch_exit(self) -> None:
        await trio.lowlevel.wait_readable(self.tree.pidfd)
        self._note_exit()

    def _note_exit(self) -> None:
        self._exited = True
        self._exit_event.set()
        if self._read_scope is not None:
            self._read_scope.cancel()
        elif self._waiting and self._stdout >= 0:
            trio.lowlevel.notify_closing(self._stdout)  # wakes a read with no scope; stdout stays open for the rest

    @property
    def running(self) -> bool:
        """Whether the process lives: the pidfd watcher's word, else a waitpid."""
        if self.tree.proc is None or self._exited:
            return False
        return self.tree.pidfd >= 0 or self.tree.exit_code() is None

    async def exited(self) -> None:
        """Return once the bot's first process has ended (or it was killed)."""
        if self.tree.pidfd < 0 and self.running:
            proc = self.tree.proc
            assert proc is not None
            await trio.to_thread.run_sync(proc.wait, abandon_on_cancel=True)
            self._note_exit()
        await self._exit_event.wait()

    def kill(self) -> None:
        """Kill the whole tree and reap it (in the reaper's threads); safe to call twice."""
        self._tasks.cancel()
        if self.tree.pidfd >= 0:
            trio.lowlevel.notify_closing(self.tree.pidfd)
        if self.stderr is not None:
            self.stderr.close_pipe()
        self._close_pipes()
        self.backend.forget()  # what it opened is closed by the reaper, once the process is dead
        self.tree.kill()
        self._note_exit()

    @property
    def pgid(self) -> int | None:
        """The bot's process group: it leads its own session, so its pid names it."""
        return self.tree.pid

    # ---- what a silence or a closed pipe means ------------------------------------------------

    async def gone(self, pipe: str = "stdout") -> BotFault:
        """The fault for a bot whose process is gone or that closed `pipe` (its stdout
        when a read ended, its stdin when a write failed)."""
        code = self.tree.exit_code()
        for _ in range(50):  # the pipe closed: give a dying process a moment to exit
            if code is not None or self._exited:
                break
            await trio.sleep(0.001)
            code = self.tree.exit_code()
        if self.sandboxed and self.stderr is not None:
            words = self.stderr.last_words()  # reads what is left of stderr, the sandbox's word among it
            if not self.stderr.ready_seen:
                tail = self.stderr.tail.decode("utf-8", "replace")
                fault = self.backend.startup_failure(tail)
                if fault is not None:
                    return fault
                detail = tail.strip()[-300:]
                raise SandboxError(f"the bot's sandbox could not be set up ({detail or describe_exit(code)})")
        else:
            words = self.stderr.last_words() if self.stderr is not None else ""
        if code is None and not self._exited:
            return _stopped(pipe)
        if self.stderr is not None:
            words += self.backend.crash_hint(self.stderr.tail.decode("utf-8", "replace"))
        return BotFault(Termination.CRASH, f"the bot exited ({describe_exit(code)}){words}")

    async def _stalled(self, pipe: str) -> BotFault:
        """In a sandbox, bubblewrap keeps the bot's pipes open, so a bot that closes its
        stdin or stdout is seen only when it fails to answer: then, if no process of the
        bot holds a pipe any more, say so rather than calling it slow. The look through
        /proc runs in a worker thread and is bounded; past its bound it is a time-out."""
        pid = self.tree.pid
        if self.sandboxed and pid is not None:
            inodes: dict[str, int] = {}
            for name, fd in (("stdout", self._stdout), ("stdin", self._stdin)):
                try:
                    inodes[name] = os.fstat(fd).st_ino
                except OSError:
                    continue
            cgroup = self.tree.cgroup
            pids = cgroup.pids if cgroup is not None else lambda: procfs.descendants(pid)
            fault = await trio.to_thread.run_sync(_closed_pipe, inodes, pids)
            if fault is not None:
                return fault
        return await super()._stalled(pipe)


def _closed_pipe(inodes: dict[str, int], pids: Callable[[], list[int]]) -> BotFault | None:
    """In a worker thread: the fault for a pipe of ours (by name, its inode) that no
    process of the bot (`pids`) holds any more, if one is; None when every pipe is held
    or that cannot be told within the bounds of `procfs.pipes_held`."""
    if not inodes:
        return None
    held = procfs.pipes_held(pids(), set(inodes.values()))
    if held is None:
        return None  # more than can be looked at: a time-out it is
    for pipe, inode in inodes.items():
        if inode not in held:
            return _stopped(pipe)
    return None


async def _quietly(task: Callable[[], Awaitable[None]]) -> None:
    """Run a background task that may find its fd closed under it by kill()."""
    try:
        await task()
    except (trio.ClosedResourceError, trio.BusyResourceError, OSError, ValueError):
        pass


async def launch_process(launch: Launch, nursery: trio.Nursery) -> BotProcess:
    """The Launcher of real bots: spawn the bot's process (see channel.Launcher)."""
    process = BotProcess(launch.spec, launch.log_path, launch.limits, launch.hidden, backend=launch.backend)
    await process.spawn(nursery)
    return process
