"""The decision path: lines to and from a bot over its stdin and stdout pipes.

The pipes are non-blocking and driven with trio.lowlevel.wait_readable/wait_writable
(cheaper per round trip than Trio's process streams). Nothing here waits for anything
but the bot's pipes: no thread hop, no /proc read, no extra system call per decision.
What happens when a deadline passes or a pipe closes is the process's to say
(`_stalled`, `gone`), since only it knows its processes.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import select

import trio

from arena.process.faults import BotFault
from arena.process.spec import Limits
from arena.termination import Termination

READ_SIZE = 1 << 16


class PipeChannel:
    """Write lines to a bot and read its answer lines with a deadline; subclasses say
    what a silence or a closed pipe means (see BotProcess)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._stdin = -1
        self._stdout = -1
        self._buf = bytearray()
        self._scan = 0
        self._exited = False
        """Set when the bot's first process is known to be dead (the pidfd watcher)."""
        self._read_scope: trio.CancelScope | None = None
        """The wait for output under way, cancelled when the bot dies."""
        self._waiting = False
        """Whether a read waits with no deadline of its own (the exit watcher wakes it)."""
        self._poll: select.poll | None = None
        """Asks whether stdout has something to read, without a failing read."""

    def attach(self, stdin: int, stdout: int) -> None:
        """Use these (our ends of the bot's) pipes, made non-blocking."""
        self._stdin, self._stdout = stdin, stdout
        for fd in (stdin, stdout):
            os.set_blocking(fd, False)

    # ---- what the process says --------------------------------------------------------------

    async def _stalled(self, pipe: str) -> BotFault:
        """The fault for a bot that did not read its input (`pipe` "stdin") or answer
        ("stdout") by the deadline."""
        if pipe == "stdin":
            return BotFault(Termination.TIME_OUT, "the bot did not read its input in time")
        return BotFault(Termination.TIME_OUT, "no answer in time")

    async def gone(self, pipe: str = "stdout") -> BotFault:
        """The fault for a bot whose process is gone or that closed `pipe`."""
        return BotFault(Termination.CRASH, f"the bot closed its {pipe}")

    # ---- talking -------------------------------------------------------------------------------

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
                    raise await self._stalled("stdin") from None
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

    def unsolicited(self) -> bool:
        """Whether the bot has written anything it was not asked for (non-blocking; a
        poll with no wait, since a read that finds nothing raises, and an exception
        costs more than the system call)."""
        if self._buf:
            return True
        if self._poll is None:
            self._poll = select.poll()
            self._poll.register(self._stdout, select.POLLIN)
        if not self._poll.poll(0):
            return False
        try:
            chunk = os.read(self._stdout, READ_SIZE)
        except (BlockingIOError, OSError):
            return False
        self._buf += chunk
        return bool(chunk)

    async def read_line(self, deadline: float) -> bytes:
        """The next line (without newline) completed before `deadline` (trio time);
        with `math.inf`, the caller's cancel scope holds the deadline (a game's
        Decisions: one scope for many requests, where a scope per read would cost more
        than the round trip) and the exit watcher wakes the wait.

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
            if self._exited:
                pass
            elif deadline == math.inf:
                self._waiting = True
                try:
                    await trio.lowlevel.wait_readable(self._stdout)
                except trio.ClosedResourceError:
                    if not self._exited or self._stdout < 0:  # closed by kill(), not woken by the watcher
                        raise
                finally:
                    self._waiting = False
            else:
                with trio.move_on_at(deadline) as scope:
                    self._read_scope = scope
                    await trio.lowlevel.wait_readable(self._stdout)
                self._read_scope = None
                if scope.cancelled_caught and not self._exited:
                    raise await self._stalled("stdout")
            try:
                chunk = os.read(self._stdout, READ_SIZE)
            except BlockingIOError:
                if self._exited:
                    raise await self.gone() from None
                continue
            if not chunk:
                raise await self.gone()
            if not buf and chunk.find(b"\n") == len(chunk) - 1:  # the usual answer: one whole line
                return chunk[:-1]
            buf += chunk

    def close_input(self) -> None:
        """Tell the bot there is no more input (after quit)."""
        if self._stdin >= 0:
            trio.lowlevel.notify_closing(self._stdin)
            with contextlib.suppress(OSError):
                os.close(self._stdin)
            self._stdin = -1

    def _close_pipes(self) -> None:
        """Close our ends (waking any task waiting on them)."""
        for fd in (self._stdin, self._stdout):
            if fd >= 0:
                trio.lowlevel.notify_closing(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._stdin = self._stdout = -1
