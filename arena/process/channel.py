"""The seam between the referee and a bot: a channel of lines with deadlines.

The player talks to a bot only through LineChannel. BotProcess is the real one (a
process and its pipes); MemoryChannel runs a bot written as a Trio coroutine inside
the test's own event loop, so time-out logic can be tested under trio's MockClock
without a process or a real sleep.

Deadlines are times on Trio's clock (`trio.current_time()`); every way a channel can
fail is a BotFault naming the reason.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import trio
import trio.lowlevel

from arena.process.faults import BotFault
from arena.process.spec import BotSpec, Limits
from arena.termination import Termination

if TYPE_CHECKING:
    from arena.process.backends import Backend


class LineChannel(Protocol):
    """A running bot as a stream of lines each way."""

    @property
    def pgid(self) -> int | None:
        """The bot's process group (None for a bot without a process)."""

    @property
    def running(self) -> bool:
        """Whether the bot is alive."""

    @property
    def buffered(self) -> bool:
        """Whether output beyond the last line read is already buffered."""

    async def write(self, data: bytes, deadline: float) -> None:
        """Write all of `data` by `deadline`, or raise BotFault (time-out, crash, closed-pipe)."""

    async def read_line(self, deadline: float) -> bytes:
        """The next line without its newline by `deadline`, or raise BotFault (time-out,
        crash, closed-pipe, oversized-line). With `math.inf` the read has no deadline of
        its own and the caller's cancel scope holds one (cheaper than a scope per read)."""

    def unsolicited(self) -> bool:
        """Whether the bot has written anything not yet read (it was not asked to)."""

    def stderr_tail(self) -> str:
        """The last lines the bot wrote to stderr that say something ('' for none, or a
        bot without stderr): read to explain a start-up the protocol cannot."""

    def close_input(self) -> None:
        """Tell the bot there is no more input."""

    def kill(self) -> None:
        """End the bot and everything it started; safe to call twice."""

    def cpu_seconds(self) -> float | None:
        """CPU time the bot has used so far (None where it cannot be measured); cheap,
        read on the event loop every answer."""

    async def count_tree(self) -> None:
        """Look for processes the bot started that `cpu_seconds` does not count yet
        (off the event loop; used while a bot on the CPU basis is overdue)."""

    def limits_hit(self) -> tuple[bool, bool]:
        """Whether the bot hit its memory limit, and its process limit."""

    def limits_per_process(self) -> bool:
        """Whether the limits hold per process (no cgroup counts the bot's tree), so a
        limit hit is known only by what the bot's runtime said of it."""

    async def clear_scratch(self) -> bool:
        """Empty the bot's writable folders before a game (off the event loop, within a
        budget); False when that cannot be done (the player then starts a fresh bot)."""

    async def exited(self) -> None:
        """Return once the bot has ended (the caller bounds the wait)."""


@dataclass(frozen=True)
class Launch:
    """Everything needed to start one bot: its spec, stderr log, limits and the paths
    it must not see (the referee's output, other bots' folders)."""

    spec: BotSpec
    log_path: Path | None
    limits: Limits
    hidden: tuple[Path, ...] = ()
    backend: type[Backend] | None = None
    """How to isolate it (arena.process.backends); None: as its limits ask and this
    machine allows (`backend_for`)."""


Launcher = Callable[[Launch, trio.Nursery], Awaitable[LineChannel]]
"""Starts a bot and returns its channel (BotFault startup-failure if it cannot)."""


# ---- the in-memory fake ----------------------------------------------------------------------


class FakeBotIO:
    """The bot's end of a MemoryChannel: what a fake bot coroutine reads and writes."""

    def __init__(self, inbox: trio.MemoryReceiveChannel[bytes], outbox: trio.MemorySendChannel[bytes]) -> None:
        self._inbox = inbox
        self._outbox = outbox
        self._pending = b""

    async def read_line(self) -> bytes | None:
        """The referee's next line, or None once its input is closed."""
        while b"\n" not in self._pending:
            try:
                self._pending += await self._inbox.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return None
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    async def write(self, data: bytes) -> None:
        """Write raw bytes (a line needs its own newline)."""
        await self._outbox.send(data)


FakeBot = Callable[[FakeBotIO], Awaitable[None]]
"""A bot as a coroutine: it returns to exit (exit code 0) and raises to crash."""


class MemoryChannel:
    """A LineChannel to a fake bot running in the same event loop."""

    def __init__(self, bot: FakeBot, nursery: trio.Nursery, limits: Limits = Limits()) -> None:
        self.limits = limits
        to_bot, self._bot_inbox = trio.open_memory_channel[bytes](math.inf)
        self._bot_outbox, self._from_bot = trio.open_memory_channel[bytes](math.inf)
        self._to_bot = to_bot
        self._buf = bytearray()
        self._done = False
        self._outcome = "exited (exit code 0)"
        self._scope = trio.CancelScope()
        self._ended = trio.Event()
        self.cpu_used: float | None = None
        """The CPU time a test says the fake bot has used (None: not measured)."""
        nursery.start_soon(self._run, bot)

    async def _run(self, bot: FakeBot) -> None:
        with self._scope:
            try:
                async with self._bot_outbox:
                    await bot(FakeBotIO(self._bot_inbox, self._bot_outbox))
            except Exception as exc:  # the fake bot crashed: that is its exit
                self._outcome = f"crashed ({type(exc).__name__}: {exc})"
        self._done = True
        self._ended.set()

    @property
    def pgid(self) -> int | None:
        return None

    @property
    def running(self) -> bool:
        return not self._done

    @property
    def buffered(self) -> bool:
        return bool(self._buf)

    async def write(self, data: bytes, deadline: float) -> None:
        if self._done:
            raise self._gone()
        try:
            self._to_bot.send_nowait(data)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise BotFault(Termination.CLOSED_PIPE, "the bot closed its stdin (stopped reading its input) "
                                                    "but is still running") from None

    async def read_line(self, deadline: float) -> bytes:
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                line = bytes(self._buf[:end])
                del self._buf[: end + 1]
                return line
            if len(self._buf) > self.limits.max_line_bytes:
                raise BotFault(Termination.OVERSIZED_LINE,
                               f"the bot wrote more than {self.limits.max_line_bytes} bytes without a newline")
            with trio.move_on_at(deadline):
                try:
                    self._buf += await self._from_bot.receive()
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    await trio.lowlevel.checkpoint()  # let the bot's task record how it ended
                    raise self._gone() from None
                continue
            raise BotFault(Termination.TIME_OUT, "no answer in time")

    def _gone(self) -> BotFault:
        return BotFault(Termination.CRASH, f"the bot {self._outcome}")

    def stderr_tail(self) -> str:
        return ""

    def unsolicited(self) -> bool:
        if self._buf:
            return True
        try:
            self._buf += self._from_bot.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            return False
        return True

    def close_input(self) -> None:
        self._to_bot.close()

    def kill(self) -> None:
        self._scope.cancel()
        self._to_bot.close()
        self._done = True
        self._ended.set()

    async def exited(self) -> None:
        await self._ended.wait()

    def cpu_seconds(self) -> float | None:
        return self.cpu_used

    async def count_tree(self) -> None:
        await trio.lowlevel.checkpoint()

    def limits_hit(self) -> tuple[bool, bool]:
        return False, False

    def limits_per_process(self) -> bool:
        return False

    async def clear_scratch(self) -> bool:
        return True  # a fake bot has no folders


def memory_launcher(bots: dict[str, FakeBot]) -> Launcher:
    """A Launcher that starts, for each bot name, the fake bot of that name."""

    async def launch(launch: Launch, nursery: trio.Nursery) -> LineChannel:
        return MemoryChannel(bots[launch.spec.name], nursery, launch.limits)

    return launch
