"""The referee's side of the protocol with one bot: start-up handshake, messages that
need no answer, and quitting. A BotPlayer owns one channel at a time; `restart`
replaces a channel that faulted. Requests for actions go through a Decision."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trio

from arena.errors import excerpt
from arena.process.bot_process import launch_process
from arena.process.channel import Launch, Launcher, LineChannel
from arena.process.faults import OUT_OF_MEMORY, BotFault, said_limit_hit
from arena.process.spec import BotSpec, Limits
from arena.termination import Termination
from arena.version import __version__
from protocol import PROTOCOL_VERSION
from protocol.codec import NotJsonError, ProtocolError, decode_bot, encode
from protocol.messages import Action, End, Hello, Quit, Ready, Start

FEATURES = ("no-legal", "no-observation", "info")
"""What a bot may ask for in its Ready message (sent in Hello). A feature not offered is
not granted: a bot that asks for it anyway gets the field."""


@dataclass(frozen=True)
class Timing:
    """Start-up limit, grace for pipe latency, and how long a quitting bot may linger."""

    startup_s: float = 10.0
    grace_s: float = 0.02
    quit_s: float = 0.2


def decode_line(line: bytes) -> Ready | Action:
    """A bot's line as a message, or the `malformed` fault quoting its start. A line
    that is not JSON and does not even begin like it is most often a bot's debugging
    output: the fault says where that belongs."""
    try:
        return decode_bot(line)
    except ProtocolError as exc:
        shown = line[:80].decode("utf-8", "replace")
        if isinstance(exc, NotJsonError) and not line.lstrip().startswith((b"{", b"[")):
            raise BotFault(Termination.MALFORMED, f"{shown!r} is not JSON: stdout is for protocol lines only: write "
                                                  "debugging output to stderr") from None
        raise BotFault(Termination.MALFORMED, f"{exc}: {shown!r}") from None


class BotPlayer:
    """A bot as the referee sees it: a name, a live channel, its opt-outs."""

    def __init__(self, spec: BotSpec, log_path: Path | None, limits: Limits, timing: Timing,
                 launcher: Launcher = launch_process, hidden: tuple[Path, ...] = (),
                 features: tuple[str, ...] = FEATURES) -> None:
        self.spec = spec
        self.features = features
        self.log_path = log_path
        self.limits = limits
        self.timing = timing
        self.launcher = launcher
        self.hidden = hidden
        self.seen_seeds: set[int] = set()
        """Seeds of the games the current process has played (deals and dice it saw)."""
        self.cpu_mark: float | None = None
        """The bot's CPU time at its last answer (or ready): a decision's CPU is the rise."""
        self.channel: LineChannel | None = None
        self.ready: Ready | None = None
        self.restarts = 0
        self.started = False
        self.handshakes = 0
        """Start-ups that reached `ready`."""
        self.last_startup_fault: BotFault | None = None
        self.game_legal: bool | None = None
        """What the bot's last `legal` in an action of this game asked for (None: its
        `ready` decides); set back at every game."""
        self.pgids: list[int] = []

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def wants_legal(self) -> bool:
        """Whether requests carry the legal actions: the bot's word for this game (an
        action's `legal`), else its `ready`'s; always where `no-legal` is not offered."""
        if "no-legal" not in self.features:
            return True
        if self.game_legal is not None:
            return self.game_legal
        return self.ready is None or self.ready.legal

    def choose_legal(self, legal: bool | None) -> bool:
        """Take an action's `legal` for the rest of the game; whether it changes what
        the requests carry."""
        before = self.wants_legal
        if legal is not None:
            self.game_legal = legal
        return self.wants_legal != before

    @property
    def wants_observation(self) -> bool:
        return self.ready is None or self.ready.observation or "no-observation" not in self.features

    @property
    def alive(self) -> bool:
        return self.channel is not None and self.ready is not None and self.channel.running

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the bot and complete the handshake within the start-up limit."""
        self.started = True
        self.channel = channel = await self.launcher(Launch(self.spec, self.log_path, self.limits, self.hidden),
                                                     nursery)
        if channel.pgid is not None:
            self.pgids.append(channel.pgid)
        deadline = trio.current_time() + self.timing.startup_s
        hello = Hello(protocol=PROTOCOL_VERSION, arena=__version__, features=list(self.features))
        try:
            await channel.write(encode(hello), deadline)
            line = await channel.read_line(deadline)
        except BotFault as fault:
            if fault.reason == Termination.TIME_OUT:
                raise self._out_of_memory(channel) or BotFault(
                    Termination.STARTUP_TIMEOUT, self._startup_silence(channel) + self._log_note()) from None
            raise self._out_of_memory(channel) or BotFault(Termination.STARTUP_FAILURE, fault.detail) from None
        try:
            message = decode_line(line)
        except BotFault as fault:
            raise self._out_of_memory(channel) or BotFault(
                Termination.STARTUP_FAILURE, f"its answer to hello is malformed: {fault.detail}{self._log_note()}") \
                from None
        if not isinstance(message, Ready):
            raise BotFault(Termination.STARTUP_FAILURE,
                           f"expected a ready message, got {type(message).__name__.lower()}")
        self.ready = message
        self.handshakes += 1
        self.cpu_mark = channel.cpu_seconds()

    def _out_of_memory(self, channel: LineChannel) -> BotFault | None:
        """A start-up that failed because the runtime could not get its memory (a JVM
        whose heap does not fit prints '#' lines on stdout, the cause on stderr): the
        memory-limit fault with the limit and the fix, read from the bot's stderr
        before its first line is judged; None when stderr says nothing of memory."""
        tail = channel.stderr_tail()
        if self.limits.memory_bytes is None or not OUT_OF_MEMORY.search(tail):
            return None
        mb = self.limits.memory_bytes >> 20
        scope = "for each of its processes: no cgroup here" if channel.limits_per_process() else "for all its processes"
        return BotFault(Termination.MEMORY_LIMIT,
                        f"it could not get its memory at start-up (limit {mb} MiB {scope}): its stderr says "
                        f"{excerpt(tail, 240)}. Raise the limit (--memory-mb, memory_mb in a league file), or make "
                        f"its runtime ask for less (Java: -Xmx{max(16, mb // 2)}m -Xss512k "
                        f"-XX:ReservedCodeCacheSize=32m){self._log_note()}")

    def _log_note(self) -> str:
        """Where the bot's stderr is, for a message about its start-up."""
        return f" (its stderr: {self.log_path})" if self.log_path is not None else ""

    def _startup_silence(self, channel: LineChannel) -> str:
        """Why no ready came: nothing at all (most likely unflushed output), or a line
        begun and never ended."""
        limit = f"{self.timing.startup_s:g} s"
        if channel.buffered:
            return (f"the bot began a line but did not end it (no newline) within {limit} of hello: end each "
                    "message with a newline and flush")
        return (f"nothing at all came from the bot within {limit} of hello: most likely it does not flush its "
                "output after each line (Python: print(..., flush=True); C: fflush(stdout); node: "
                "process.stdout.write), or it is slow to load (raise --startup-time)")

    async def restart(self, nursery: trio.Nursery) -> None:
        """Replace a faulted bot by a fresh one (the match goes on)."""
        self.kill()
        self.restarts += 1
        await self.start(nursery)

    async def send(self, message: Start | End | Quit, timeout_s: float = 1.0) -> None:
        """Send a message that needs no answer."""
        assert self.channel is not None
        await self.channel.write(encode(message), trio.current_time() + timeout_s)

    async def quit(self) -> None:
        """Ask the bot to exit, give it a moment, then kill it whatever it did."""
        channel = self.channel
        if channel is not None and self.ready is not None and channel.running:
            try:
                await self.send(Quit(), self.timing.quit_s)
                channel.close_input()
                with trio.move_on_after(self.timing.quit_s):
                    await channel.exited()
            except BotFault:
                pass
        self.kill()

    def explain(self, fault: BotFault) -> BotFault:
        """The fault, named for the limit the bot hit when it hit one (a process killed
        for memory looks like a crash; a fork refused, like whatever followed)."""
        if self.channel is None:
            return fault
        memory, processes = self.channel.limits_hit()
        if not (memory or processes) and self.channel.limits_per_process():
            memory, processes = said_limit_hit(fault.detail, self.limits.memory_bytes is not None,
                                               self.limits.processes is not None)
        if memory:
            mb = (self.limits.memory_bytes or 0) >> 20
            if self.channel.limits_per_process():
                return BotFault(Termination.MEMORY_LIMIT, f"it ran out of its memory limit ({mb} MiB for each "
                                                          f"of its processes: no cgroup here); {fault.detail}")
            return BotFault(Termination.MEMORY_LIMIT, f"it went over its memory limit ({mb} MiB for all its "
                                                      f"processes) and was killed; {fault.detail}")
        if processes:
            return BotFault(Termination.PROCESS_LIMIT, f"it tried to run more than {self.limits.processes} processes; "
                                                       f"then: {fault.reason} ({fault.detail})")
        return fault

    async def new_game(self, seed: int, chance: bool) -> None:
        """Before each game: empty the bot's writable folders (off the event loop and
        within a budget: a bot whose folders cannot be reached or emptied is restarted,
        with empty ones); in a game with chance whose seed this process has already
        played (from another seat), end the process so that a fresh one takes the seat:
        it would know the hidden hands (The Tree) or the dice to come (Roots)."""
        self.game_legal = None
        if chance and seed in self.seen_seeds:
            self.kill()
        if self.channel is not None and not await self.channel.clear_scratch():
            self.kill()
        self.seen_seeds.add(seed)

    def dispose(self) -> None:
        """Kill the bot at the end of the match (its folders go with its process)."""
        self.kill()

    def kill(self) -> None:
        """End the bot's process. What it saw goes with it; but the seeds noted for a
        process still to start (new_game kills, then the restart kills again with no
        process) stay: clearing them there let a restarted process play the rest of a
        rotation's games, one deal, from every seat (The Tree with 3 or 4 seats)."""
        if self.channel is not None:
            self.channel.kill()
            self.seen_seeds = set()
        self.channel = None
        self.ready = None
