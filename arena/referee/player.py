"""The referee's side of the protocol with one bot: handshake, requests, answers.

A BotPlayer owns one BotProcess at a time; `restart` replaces a process that faulted.
Every failure surfaces as a BotFault whose reason is the record's termination code.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import trio

from arena import __version__
from arena.referee.process import BotFault, BotProcess, BotSpec, Limits
from protocol import PROTOCOL_VERSION
from protocol.codec import ProtocolError, decode_bot, encode
from protocol.messages import Action, End, Hello, Quit, Ready, Request, Start

FEATURES = ["no-legal", "no-observation", "info"]
"""What a bot may ask for in its Ready message (sent in Hello)."""


@dataclass(frozen=True)
class Timing:
    """Start-up limit, grace for pipe latency, and how long a quitting bot may linger."""

    startup_s: float = 10.0
    grace_s: float = 0.02
    quit_s: float = 0.2


class BotPlayer:
    """A bot as the referee sees it: a name, a live process, its opt-outs."""

    def __init__(self, spec: BotSpec, log_path: Path | None, limits: Limits, timing: Timing) -> None:
        self.spec = spec
        self.log_path = log_path
        self.limits = limits
        self.timing = timing
        self.process: BotProcess | None = None
        self.ready: Ready | None = None
        self.restarts = 0
        self.started = False
        self.handshakes = 0
        """Start-ups that reached `ready`."""
        self.last_startup_fault: BotFault | None = None
        self.pgids: list[int] = []

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def wants_legal(self) -> bool:
        return self.ready is None or self.ready.legal

    @property
    def wants_observation(self) -> bool:
        return self.ready is None or self.ready.observation

    @property
    def alive(self) -> bool:
        return self.process is not None and self.ready is not None and self.process.running

    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the bot and complete the handshake within the start-up limit."""
        self.started = True
        self.process = BotProcess(self.spec, self.log_path, self.limits)
        self.process.spawn(nursery)
        self.pgids.append(self.process.pgid)
        deadline = trio.current_time() + self.timing.startup_s
        hello = Hello(protocol=PROTOCOL_VERSION, arena=__version__, features=FEATURES)
        try:
            await self.process.write(encode(hello), deadline)
            line = await self.process.read_line(deadline)
        except BotFault as fault:
            if fault.reason == "time-out":
                raise BotFault(
                    "startup-timeout",
                    f"no ready message within {self.timing.startup_s:g} s of hello "
                    "(raise --startup-time if the bot is slow to load)",
                ) from None
            raise BotFault("startup-failure", fault.detail) from None
        try:
            message = self._decode(line)
        except BotFault as fault:
            raise BotFault("startup-failure", f"its answer to hello is malformed: {fault.detail}") from None
        if not isinstance(message, Ready):
            raise BotFault("startup-failure", f"expected a ready message, got {type(message).__name__.lower()}")
        self.ready = message
        self.handshakes += 1

    async def restart(self, nursery: trio.Nursery) -> None:
        """Replace a faulted process by a fresh one (the match goes on)."""
        self.kill()
        self.restarts += 1
        await self.start(nursery)

    def _decode(self, line: bytes) -> Ready | Action:
        try:
            return decode_bot(line)
        except ProtocolError as exc:
            shown = line[:80].decode("utf-8", "replace")
            raise BotFault("malformed", f"{exc} in line {shown!r}") from None

    async def send(self, message: Start | End | Quit, timeout_s: float = 1.0) -> None:
        """Send a message that needs no answer."""
        assert self.process is not None
        await self.process.write(encode(message), trio.current_time() + timeout_s)

    async def ask(self, request: Request, limit_s: float, scope: trio.CancelScope) -> tuple[Action, float]:
        """Send a request and return the bot's action and the seconds it took, measured
        from the request written to the answer's line complete.

        The caller has set `scope`'s deadline to the time limit and handles its
        cancellation (see `interrupted`); the bot's death cancels it too."""
        process = self.process
        assert process is not None
        if process.pending_line():
            raise BotFault("unexpected-message", "the bot wrote output it was not asked for")
        process.interrupt = scope
        await process.write(encode(request), math.inf)
        sent = time.perf_counter()
        line = await process.read_line(math.inf)
        elapsed = time.perf_counter() - sent
        message = self._decode(line)
        if process.buffered:
            raise BotFault("unexpected-message", "the bot wrote more than one line for one request")
        if not isinstance(message, Action):
            raise BotFault("unexpected-message", f"expected an action, got a {type(message).__name__.lower()} message")
        if elapsed > limit_s + self.timing.grace_s:
            raise BotFault("time-out", f"answered after {elapsed * 1000:.0f} ms")
        return message, elapsed

    async def interrupted(self, limit_s: float) -> BotFault:
        """The fault of a bot whose request was cancelled by the caller's scope: it died,
        or it did not answer within the limit."""
        process = self.process
        if process is not None and not process.running:
            return await process.gone()
        return BotFault("time-out", f"no answer within {limit_s * 1000:.0f} ms")

    async def quit(self) -> None:
        """Ask the bot to exit, give it a moment, then kill its group whatever it did."""
        process = self.process
        if process is not None and self.ready is not None and process.running:
            try:
                await self.send(Quit(), self.timing.quit_s)
                process.close_stdin()
                with trio.move_on_after(self.timing.quit_s):
                    while process.running:
                        await trio.sleep(0.005)
            except BotFault:
                pass
        self.kill()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
        self.process = None
        self.ready = None

