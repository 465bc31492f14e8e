"""A bot's stderr: drained into a capped log file, cheaply whatever the bot writes.

stderr is the bot's log, never parsed. The drain reads in large chunks from a pipe
made large (F_SETPIPE_SZ) and pauses a moment between reads, so a bot writing a byte
at a time costs the referee a few hundred wake-ups a second, not one per write. Past
the cap nothing more is kept: the rest is moved to /dev/null inside the kernel
(splice) without being read, copied or decoded, at a slower pace still. A bot whose
writes block on a full pipe slows only itself.

The last few hundred bytes kept tell why a bot died (`last_words`); in a sandbox the
first line is the sandbox's own word that it stood (READY_LINE), which is not the
bot's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import trio

from arena.referee.sandbox import READY_LINE

READY = (READY_LINE + "\n").encode()
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PIPE_SIZE = 1 << 20
"""The pipe size asked for (the kernel's default most for a user is 1 MiB)."""
PAUSE_S = 0.002
"""Pause between reads while the log is below its cap."""
DROP_PAUSE_S = 0.02
"""Pause between discards past the cap."""
TAIL_BYTES = 2048


def telling_lines(text: str, most: int = 2, chars: int = 300) -> str:
    """The last lines of `text` that hold words or numbers (a runtime's crash report
    often ends with decoration, node's with a lone '#'), the last `most` of them, joined
    with ' | ' and cut to the last `chars` characters."""
    lines = [line.strip(" #*=-\t") for line in text.splitlines()]
    meaningful = [line for line in lines if any(c.isalnum() for c in line)]
    return " | ".join(meaningful[-most:])[-chars:]


class StderrLog:
    """Drains one bot's stderr pipe into its log file, up to `cap` bytes."""

    def __init__(self, fd: int, path: Path | None, cap: int, sandboxed: bool,
                 on_ready: Callable[[], None] = lambda: None) -> None:
        self.fd = fd
        self.path = path
        self.cap = cap
        self.sandboxed = sandboxed
        self.on_ready = on_ready
        self.bytes = 0
        """Bytes the bot wrote (kept or not)."""
        self.tail = b""
        self._head = b""
        self.ready_seen = False
        """Whether the sandbox said it stood, before the bot's command ran."""
        self._log = -1
        self._null = -1
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)

    async def drain(self) -> None:
        """Copy stderr to the log until the cap, then discard, until the pipe ends (or
        its fd is closed under this task by the process's kill)."""
        if self.path is not None:
            with contextlib.suppress(OSError):  # no log file: the output is drained all the same
                self._log = await trio.to_thread.run_sync(_open_log, self.path)
        try:
            while True:
                await trio.lowlevel.wait_readable(self.fd)
                if self.bytes >= self.cap and (self.ready_seen or not self.sandboxed):
                    if not self._discard():
                        return
                    await trio.sleep(DROP_PAUSE_S)
                    continue
                try:
                    chunk = os.read(self.fd, PIPE_SIZE)
                except BlockingIOError:
                    continue
                if not chunk:
                    return
                self._keep(chunk)
                await trio.sleep(PAUSE_S)
        finally:
            self.close()

    def _keep(self, chunk: bytes) -> None:
        """Note the sandbox's ready line, keep the tail, log up to the cap."""
        if not self.ready_seen and self.sandboxed:
            self._head = (self._head + chunk)[:len(READY)]
            self.ready_seen = self._head == READY
            if self.ready_seen:  # the sandbox's own line is not the bot's last word
                self.on_ready()
                chunk = (self.tail + chunk).removeprefix(READY)
                self.tail = b""
        self.tail = (self.tail + chunk[-TAIL_BYTES:])[-TAIL_BYTES:]
        if self._log >= 0 and self.bytes < self.cap:
            room = self.cap - self.bytes
            with contextlib.suppress(OSError):  # a full disk loses the bot's log, nothing else
                _write_all(self._log, chunk[:room])
                if len(chunk) >= room:
                    _write_all(self._log, f"\n[arena: log capped at {self.cap} bytes]\n".encode())
        self.bytes += len(chunk)

    def _discard(self) -> bool:
        """Move what the pipe holds to /dev/null without reading it; False at its end."""
        try:
            if self._null < 0:
                self._null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            moved = os.splice(self.fd, self._null, PIPE_SIZE, flags=os.SPLICE_F_NONBLOCK)
        except BlockingIOError:
            return True
        except (OSError, AttributeError):  # no splice here: read and drop
            try:
                moved = len(os.read(self.fd, PIPE_SIZE))
            except BlockingIOError:
                return True
        self.bytes += moved
        return moved > 0

    def last_words(self) -> str:
        """What the bot last wrote to stderr that says something, to say why it died
        (what is still in the pipe is read first)."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                self._keep(os.read(self.fd, 1 << 16))
        telling = telling_lines(self.tail.decode("utf-8", "replace"))
        return f"; its stderr ends: {telling!r}" if telling else ""

    def close_pipe(self) -> None:
        """Close our end of the pipe (the bot is being killed), waking the drain; what
        the pipe still holds is logged first (the drain pauses between reads, and a bot's
        last lines before it was killed are often the ones that say why)."""
        if self.fd >= 0:
            self._take_rest()
            trio.lowlevel.notify_closing(self.fd)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1

    def _take_rest(self, most_reads: int = 4) -> None:
        """Read what is left in the pipe into the log, up to the cap (a few reads at most)."""
        for _ in range(most_reads):
            if self.bytes >= self.cap and (self.ready_seen or not self.sandboxed):
                return
            try:
                chunk = os.read(self.fd, PIPE_SIZE)
            except OSError:  # empty (BlockingIOError) or gone
                return
            if not chunk:
                return
            self._keep(chunk)

    def close(self) -> None:
        """Close the log file."""
        for fd in (self._log, self._null):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._log = self._null = -1


def _open_log(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
