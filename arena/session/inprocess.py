"""Python bots in the referee's own process: an object with `act(state, legal, clock)`
seated by `arena.play` and `arena.match` beside bots that are processes.

Such a bot is the user's own code, so it runs without a sandbox, but under the rest of
what a process bot gets: the referee speaks the real protocol with it (hello, start,
request, end, quit) through an in-memory channel, so its clock, faults and records are
the referee's. Its bot side follows each game from the requests (the events of a game
with perfect information; what the seat observes in one with hidden information, the
rest drawn at random) and calls the object's methods in a worker thread, which the
referee's deadline abandons: Python cannot stop a thread, so an `act` that overruns
loses on time and its thread runs on, its answer thrown away."""

from __future__ import annotations

import random
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar, runtime_checkable

import msgspec
import trio

from arena import games
from arena.errors import EXCERPT_CHARS
from arena.games.base import Game, Result, State
from arena.process.channel import FakeBotIO, Launch, Launcher, LineChannel, MemoryChannel
from arena.process.spec import BotSpec, Limits
from arena.session.setup import SetupError
from protocol.codec import decode_referee
from protocol.messages import End, Event, Hello, Info, Quit, Request, Start

T = TypeVar("T")

MARK = "arena-python"
"""The first word of an in-process bot's command: never run (the rest is its key)."""

WHAT_A_BOT_IS = ('a shipped bot\'s name ("greedy"), a command line ("python3 mybot.py"), an arena.BotSpec, or a '
                 "Python object with act(state, legal, clock) (arena.PythonBot)")
"""What `arena.play` and `arena.match` take for a bot, as their errors say it."""


@dataclass(frozen=True)
class Clock:
    """One decision's time, as its request gives it, with what else the request brought:
    the seat to play, the ply, and, in a game with hidden information, what the seat
    observes (the state `act` gets is one guess consistent with it)."""

    move_s: float | None
    """The hard limit of this decision in seconds (None: no limit); answering later is a
    time-out. The referee's grace (20 ms) is for the hand-over, not for thinking."""
    remaining_s: float | None = None
    """The seat's game clock before this decision (None without a game clock)."""
    increment_s: float | None = None
    """What the game clock gains after each decision (None: nothing)."""
    basis: str = "wall"
    """What the limits count: "wall" time, or "cpu" time (the CPU time of the thread that
    runs `act`)."""
    seat: int = 0
    ply: int = 0
    """The number of the ply this decision plays (from 1)."""
    observation: dict[str, Any] | None = None
    """What the seat observes (`state.observation(seat)` of the true position), in a game
    with hidden information (The Tree); None in the others."""
    started: float = field(default_factory=time.perf_counter)
    """When `act` was called (`time.perf_counter()`)."""

    def left(self) -> float | None:
        """Seconds of the move limit left now, on the wall clock (None: no limit); plan
        to answer well before 0."""
        if self.move_s is None:
            return None
        return self.move_s - (time.perf_counter() - self.started)


@runtime_checkable
class PythonBot(Protocol):
    """A bot written in Python and played in the referee's process (docs/library.md).

    `act(state, legal, clock)` returns the action to play: a string from `legal`, or
    `(action, info)` where info is a mapping of the protocol's info fields (score,
    depth, nodes, pv, comment), kept in the record; or any object with `action` and
    `info` attributes. `state` is the bot's own copy of the position, to search or spoil
    as it likes. Optional hooks: `start(game, seat, seats, options)` before each game,
    `end(result)` after it (an arena.games.Result), and a `name` attribute (default: the
    class's name). Every call runs in a worker thread."""

    def act(self, state: State, legal: list[str], clock: Clock) -> Any:
        """The action for the seat to play in `state`, one of `legal`."""


def is_python_bot(bot: object) -> bool:
    """Whether `bot` is an object (or a class) with a callable `act`, not a bot's name."""
    return not isinstance(bot, str | bytes | BotSpec) and callable(getattr(bot, "act", None))


def bot_name(bot: object) -> str:
    """What records call a Python bot: its `name` attribute, else its class's name (or
    the class's or module's own, for a class or a module given as the bot)."""
    name = getattr(bot, "name", None)
    if isinstance(name, str) and name.strip():
        return name.strip()
    if isinstance(bot, type | ModuleType):  # a class, or a module with a function `act`
        return bot.__name__.rpartition(".")[2]
    return type(bot).__name__


def python_spec(bot: object, key: str) -> BotSpec:
    """The BotSpec that seats Python bot `bot` (known to the launcher by `key`); it runs
    unsandboxed (it is the user's own code), so no sandbox check looks at it."""
    return BotSpec(bot_name(bot), [MARK, key], limits=Limits(sandbox=False))


def seat_python_bots(bots: Iterable[object]) -> tuple[list[str | BotSpec], dict[str, object]]:
    """The bots of a library call with each Python bot replaced by its spec, and the
    Python bots by key; SetupError for anything that is no bot, saying what is."""
    given = list(bots) if isinstance(bots, Iterable) and not isinstance(bots, str | bytes | BotSpec) \
        and not is_python_bot(bots) else None
    if given is None:
        raise SetupError(f"bots={shown(bots)}: give a list of bots, one per seat, each {WHAT_A_BOT_IS}")
    named: list[str | BotSpec] = []
    objects: dict[str, object] = {}
    for index, bot in enumerate(given):
        if isinstance(bot, str | BotSpec):
            named.append(bot)
        elif is_python_bot(bot):
            key = str(index)
            objects[key] = bot
            named.append(python_spec(bot, key))
        else:
            raise SetupError(f"bots[{index}]: {shown(bot)} ({type(bot).__name__}) is not a bot; give "
                             f"{WHAT_A_BOT_IS}")
    return named, objects


def inprocess_launcher(bots: Mapping[str, object], observe: bool, others: Launcher) -> Launcher:
    """A Launcher that seats the Python bots `bots` (by the key in their spec) on an
    in-memory channel, and starts every other bot with `others`. `observe`: the game
    hides information, so the bots ask for each request's observation."""

    async def launch(launch: Launch, nursery: trio.Nursery) -> LineChannel:
        command = launch.spec.command
        if command[:1] != [MARK]:
            return await others(launch, nursery)
        seat = PythonSeat(bots[command[1]], launch.spec, launch.log_path, observe)
        return InProcessChannel(seat.serve, nursery, launch.limits, seat.cpu)

    return launch


class ThreadCpu:
    """The CPU time of the threads that ran a bot's calls, counted while they run too (a
    thread's CPU clock), so the CPU basis times an in-process bot as it times a process."""

    def __init__(self) -> None:
        self.done = 0.0
        self._running: tuple[int, float] | None = None

    def call(self, work: Callable[[], T]) -> T:
        """Run `work` in this thread, counting its CPU time (where the system cannot
        read a thread's clock from another, only once it has returned)."""
        begun = time.thread_time()
        if hasattr(time, "pthread_getcpuclockid"):
            clock = time.pthread_getcpuclockid(threading.get_ident())
            self._running = (clock, time.clock_gettime(clock))
        try:
            return work()
        finally:
            self._running = None
            self.done += time.thread_time() - begun

    def total(self) -> float:
        running = self._running
        if running is None:
            return self.done
        try:
            return self.done + time.clock_gettime(running[0]) - running[1]
        except OSError:  # the call ended in the meantime
            return self.done


class InProcessChannel(MemoryChannel):
    """A MemoryChannel whose bot's CPU time is that of the threads running its calls."""

    def __init__(self, bot: Callable[[FakeBotIO], Any], nursery: trio.Nursery, limits: Limits,
                 cpu: ThreadCpu) -> None:
        super().__init__(bot, nursery, limits)
        self._cpu = cpu

    def cpu_seconds(self) -> float | None:
        return self._cpu.total()


class BotCallError(Exception):
    """A Python bot's method broke the protocol's contract (returned no action); the
    seat crashes, as a process that failed would."""


class PythonSeat:
    """The bot side of one in-process bot's channel: the protocol spoken for the
    object, one game followed at a time."""

    def __init__(self, bot: object, spec: BotSpec, log_path: Path | None, observe: bool) -> None:
        self.factory = bot if isinstance(bot, type) else None
        self.bot: Any = None if self.factory is not None else bot
        self.name = spec.name
        self.bot_seed = spec.bot_seed
        self.log_path = log_path
        self.observe = observe
        self.cpu = ThreadCpu()
        self.limiter = trio.CapacityLimiter(1)
        self.game: FollowedGame | None = None

    async def serve(self, io: FakeBotIO) -> None:
        """Answer the referee until quit; an exception of the bot's code is logged with
        its traceback and ends the bot (a crash)."""
        while (line := await io.read_line()) is not None:
            message = decode_referee(line)
            if isinstance(message, Hello):
                if self.factory is not None:
                    self.bot = await self._call(self.factory, "creating the bot")
                await io.write(msgspec.json.encode({"type": "ready", "name": self.name, "legal": True,
                                                    "observation": self.observe}) + b"\n")
            elif isinstance(message, Start):
                self.game = FollowedGame(message, self.bot_seed)
                hook = getattr(self.bot, "start", None)
                if callable(hook):
                    await self._call(partial(hook, message.game, message.seat, message.seats, dict(message.options)),
                                     "start")
            elif isinstance(message, Request) and self.game is not None:
                await io.write(await self._call(partial(self._act, message), f"act at ply {message.ply}"))
            elif isinstance(message, End) and self.game is not None:
                self.game.follow(message.events)
                hook = getattr(self.bot, "end", None)
                if callable(hook):
                    result = Result(tuple(message.result.ranks), tuple(message.result.scores))
                    await self._call(partial(hook, result), "end")
            elif isinstance(message, Quit):
                return

    def _act(self, request: Request) -> bytes:
        """The bot's answer to `request` as a protocol line (in the worker thread)."""
        assert self.game is not None
        state = self.game.view(request)
        game = self.game
        clock = Clock(ms(request.clock.move_ms), ms(request.clock.remaining_ms), ms(request.clock.increment_ms),
                      game.basis, game.seat, request.ply, request.observation)
        chosen = self.bot.act(state, list(request.legal or []), clock)
        action, info = answer_of(chosen)
        message: dict[str, Any] = {"type": "action", "action": action}
        if info is not None:
            message["info"] = info
        return msgspec.json.encode(message, enc_hook=plain) + b"\n"

    async def _call(self, work: Callable[[], T], what: str) -> T:
        """`work` in a worker thread (abandoned if the referee stops waiting); an
        exception is logged with its traceback, then ends the bot."""

        def run() -> T:
            try:
                return self.cpu.call(work)
            except SystemExit as exit:
                raise BotCallError(f"{what} called sys.exit({exit.code!r})") from exit

        try:
            return await trio.to_thread.run_sync(run, abandon_on_cancel=True, limiter=self.limiter)
        except Exception as error:
            self._log(what, error)
            raise

    def _log(self, what: str, error: BaseException) -> None:
        """The traceback of the bot's exception, in its log (as a process's stderr)."""
        if self.log_path is None:
            return
        text = "".join(traceback.format_exception(error))
        try:
            with self.log_path.open("a", encoding="utf-8") as log:
                log.write(f"[arena: {self.name} raised an exception in {what}]\n{text}")
        except OSError:
            pass


class FollowedGame:
    """One game as a Python bot's seat knows it: the position followed from the events
    (perfect information), or guessed from each request's observation (hidden
    information: never the true hidden state, which the seat is not told)."""

    def __init__(self, start: Start, bot_seed: int | None) -> None:
        self.game: Game = games.get(start.game)
        self.seat = start.seat
        self.basis = start.time.basis or "wall"
        self.state = self.game.new_state(start.seats, dict(start.options))
        self.applied = 0
        self.rng = random.Random(f"{bot_seed}/{start.match_game}/{start.seat}")

    def follow(self, events: list[Event]) -> None:
        """Apply the events not seen yet (hidden information: nothing to apply)."""
        for event in events:
            if event.ply > self.applied:
                self.applied = event.ply
                if not self.game.has_hidden_information:
                    self.state.apply(event.action)

    def view(self, request: Request) -> State:
        """The bot's own copy of the position of `request`."""
        self.follow(request.events)
        if self.game.has_hidden_information:
            if request.observation is None:
                raise BotCallError("the request holds no observation")
            return self.game.determinize(request.observation, self.rng)
        return self.state.clone()


def shown(value: object) -> str:
    """`value` as Python shows it, cut to EXCERPT_CHARS characters."""
    text = repr(value)
    return text if len(text) <= EXCERPT_CHARS else f"{text[:EXCERPT_CHARS]}... ({len(text)} characters)"


def ms(value: int | None) -> float | None:
    return None if value is None else value / 1000


def answer_of(chosen: Any) -> tuple[str, Any]:
    """The action and info of what `act` returned: an action, (action, info), or an
    object with `action` and `info`."""
    info: Any = None
    if isinstance(chosen, tuple) and len(chosen) == 2:
        chosen, info = chosen
    elif not isinstance(chosen, str) and hasattr(chosen, "action"):
        chosen, info = chosen.action, getattr(chosen, "info", None)
    if not isinstance(chosen, str):
        raise BotCallError(f"act returned {shown(chosen)} ({type(chosen).__name__}): return an action "
                           "string from `legal`, or (action, info)")
    if info is not None and not isinstance(info, Mapping | Info):
        raise BotCallError(f"act returned the info {shown(info)} ({type(info).__name__}): give a dict such "
                           'as {"score": 0.5, "depth": 3}')
    return chosen, dict(info) if isinstance(info, Mapping) else info


def plain(value: Any) -> Any:
    """Numbers of numpy and the like as Python's, for the JSON line."""
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    raise TypeError(f"info holds {type(value).__name__}, which JSON cannot hold")
