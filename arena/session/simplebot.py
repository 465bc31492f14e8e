"""One bot, asked for one decision at a time, as python-chess's engines are: `Bot` for
code in a Trio loop, `SimpleBot` for everyone else (a Trio loop in a background thread,
as chess.engine.SimpleEngine runs asyncio in one).

A bot is started the way the referee starts one (the same launcher: its sandbox and
limits by default), and asked through the referee's own handshake and Decisions: each
`play` is a game of one decision (start, request, action, end). Its faults are the
referee's BotFault (time-out, crash, malformed line, illegal action...); a bot that
faulted is killed and started afresh at the next `play`, as in a match."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import trio

from arena import games
from arena.errors import ArenaError
from arena.games.base import CHANCE, TERMINAL, Game, GameError, State
from arena.process.botnames import PER_GAME, BotNameError, resolve_bot
from arena.process.faults import BotFault
from arena.process.reaper import process_reaper
from arena.process.secret import secret_path
from arena.process.spec import BotSpec, Limits
from arena.referee.decision import Answer, ask_once
from arena.referee.player import BotPlayer, Timing
from arena.referee.seeds import derived_bot_seed, random_seed
from arena.termination import Termination
from arena.timecontrol import SeatClocks, Time, time_control
from protocol.messages import End, Event, Request, ResultInfo, Start

T = TypeVar("T")


def events_to(state: State, game: Game, moves: Sequence[str], seat: int) -> list[Event]:
    """The events `seat` would have been told of `moves` (the actions from the game's
    start, chance outcomes included) in a game: what it may see of each. ValueError
    when the moves are not legal or do not lead to `state` as `seat` sees it."""
    replayed = game.new_state(state.num_seats, state.options)
    events = []
    for ply, action in enumerate(moves, 1):
        actor = replayed.current()
        shown = replayed.visible_action(action, actor, seat) if game.has_hidden_information else action
        try:
            replayed.apply(action)
        except GameError as exc:
            raise ValueError(f"moves[{ply - 1}] {action!r}: {exc}") from None
        if shown is not None:
            events.append(Event(ply, actor, shown))
    if replayed.current() != seat or replayed.legal_actions() != state.legal_actions() \
            or replayed.observation(seat) != state.observation(seat):
        raise ValueError("the moves do not lead to the state: give the actions played from the game's start")
    return events


class NoHistory(ArenaError, ValueError):
    """`play` got a state that does not know the actions that led to it (a
    determinisation, a position built directly) and no `moves`: a bot that follows the
    game from its events would be told of an empty game and answer for the wrong
    position."""

    def __init__(self, game: str) -> None:
        super().__init__(f"the {game} state has no history (it was not played from the game's start): pass "
                         "moves=[the actions from the start, chance outcomes included], play the state from "
                         "game.new_state() so that it keeps its history, or pass moves=[] to tell the bot no "
                         "events (only for a bot that plays from its observation)")
        self.game = game

    def __reduce__(self) -> tuple[type[NoHistory], tuple[str]]:
        return type(self), (self.game,)


class Bot:
    """A running bot for code in a Trio loop: `async with Bot.popen("greedy", game="btt")
    as bot: answer = await bot.play(state, 0.5)`."""

    def __init__(self, player: BotPlayer, nursery: trio.Nursery) -> None:
        self.player = player
        self.nursery = nursery
        self.games = 0
        """Games (decisions) played by this bot, numbering the next `start`."""

    @classmethod
    @asynccontextmanager
    async def popen(cls, command: str | Sequence[str] | BotSpec, *, game: str | None = None,
                    limits: Limits | None = None, sandbox: bool = True, timing: Timing = Timing(),
                    bot_seed: int | None = None, log: Path | None = None) -> AsyncIterator[Bot]:
        """Start the bot (a shipped bot's name, which needs `game` for per-game bots
        such as greedy; a command line; an argv list; or a BotSpec) and complete its
        handshake; it is quit and killed when the block ends. BotFault if it does not
        start."""
        async with trio.open_nursery() as nursery:
            bot = await cls.start(command, nursery, game=game, limits=limits, sandbox=sandbox, timing=timing,
                                  bot_seed=bot_seed, log=log)
            try:
                yield bot
            finally:
                with trio.CancelScope(shield=True):
                    await bot.quit()
                nursery.cancel_scope.cancel()

    @classmethod
    async def start(cls, command: str | Sequence[str] | BotSpec, nursery: trio.Nursery, *, game: str | None = None,
                    limits: Limits | None = None, sandbox: bool = True, timing: Timing = Timing(),
                    bot_seed: int | None = None, log: Path | None = None) -> Bot:
        """Start the bot in `nursery` (which must outlive it); see `popen`."""
        if game is not None:
            games.get(game)  # an unknown game is a GameError before anything starts
        if game is None and isinstance(command, str) and command.strip() in PER_GAME:
            raise BotNameError(f"{command.strip()} is a bot per game: give the game, e.g. game=\"btt\"")
        if isinstance(command, BotSpec):  # a copy whole (its ro_paths, name...), as a match takes one
            spec = replace(command, command=list(command.command), env=dict(command.env))
        else:
            spec = resolve_bot(command if isinstance(command, str) else list(command), game or "")
        spec.bot_seed = derived_bot_seed(str(random_seed() if bot_seed is None else bot_seed).encode(), 0)
        base = limits or Limits()
        if base.sandbox != sandbox:
            base = replace(base, sandbox=sandbox)
        # The referee's own default launcher: the bot's sandbox, cgroups and limits.
        player = BotPlayer(spec, log, spec.limits or base, timing, hidden=(secret_path(),))
        bot = cls(player, nursery)
        try:
            await bot._ensure_started()
        except BaseException:
            with trio.CancelScope(shield=True):
                await bot.quit()  # what it started is reaped before the fault is told
            raise
        return bot

    @property
    def name(self) -> str:
        """The name the bot gave in `ready` (its command's name until then)."""
        ready = self.player.ready
        return ready.name if ready is not None else self.player.name

    @property
    def pgids(self) -> list[int]:
        """Every process group this bot has run in (one more after each restart)."""
        return list(self.player.pgids)

    async def _ensure_started(self) -> None:
        player = self.player
        if player.alive:
            return
        try:
            if player.started:
                await player.restart(self.nursery)
            else:
                await player.start(self.nursery)
        except BotFault as fault:
            explained = player.explain(fault)
            player.kill()
            raise explained from None

    async def play(self, state: State, limit: Time, *, moves: Sequence[str] | None = None) -> Answer:
        """The bot's action for the seat to decide in `state`, within `limit` (plus the
        grace of its timing; a TimeControl's clock base is the time left). The actions
        from the game's start that led to `state` are sent as the events of the game,
        as a referee would: a bot that keeps its own copy of the game from the events
        (the shipped greedy and search bots do) needs them. They are the state's own
        `history` unless `moves` gives them; NoHistory for a state without one (a
        determinisation, a puzzle position) and no `moves`, where `moves=[]` sends no
        events (for a bot that plays from its observation). BotFault for a fault, the
        bot then being killed."""
        which = state.game
        seat = state.current()
        if seat in (CHANCE, TERMINAL):
            raise ValueError("the state has no seat to decide (a chance point, or the game is over)")
        if moves is None:
            moves = state.history
            if moves is None:
                raise NoHistory(which.id)
        # no moves for a state without a past: the caller's word that the bot reads its observation
        events = [] if not moves and state.history is None else events_to(state, which, moves, seat)
        control = time_control(limit, "limit")
        clocks = SeatClocks([control] * state.num_seats)
        await self._ensure_started()
        player = self.player
        await player.new_game(self.games, False)
        await self._ensure_started()  # a bot whose folders could not be emptied starts afresh
        try:
            players = [self.name if s == seat else "?" for s in range(state.num_seats)]
            await player.send(Start(game=which.id, options=dict(state.options), seat=seat, seats=state.num_seats,
                                    players=players, time=control.wire(), match_game=self.games))
            self.games += 1
            request = Request(ply=len(moves) + 1, clock=clocks.wire(seat, clocks.limit(seat)), events=events,
                              legal=state.legal_actions() if player.wants_legal else None,
                              observation=state.observation(seat) if player.wants_observation else None)
            answer = await ask_once(player, request, clocks.limit(seat), control)
            if not _is_legal(state, answer.action):
                raise BotFault(Termination.ILLEGAL_ACTION, f"{answer.action[:60]!r} is not legal at ply "
                                                           f"{request.ply}")
        except BotFault as fault:
            explained = player.explain(fault)
            player.kill()
            raise explained from None
        try:
            await player.send(End(result=ResultInfo(ranks=[1] * state.num_seats, scores=[]),
                                  termination=Termination.NORMAL.value))
        except BotFault:
            player.kill()  # it answered; it starts afresh for the next decision
        return answer

    async def quit(self) -> None:
        """Ask the bot to exit, then kill it and everything it started, and wait until
        every process it ran is reaped (as a match does before it returns)."""
        await self.player.quit()
        self.player.dispose()
        await process_reaper().settle(self.player.pgids)


def _is_legal(state: State, action: str) -> bool:
    try:
        return state.is_legal(action)
    except GameError:
        return False


class SimpleBot:
    """A running bot for synchronous code (a context manager; `quit()` ends it):

        with SimpleBot.popen("greedy", game="btt") as bot:
            answer = bot.play(state, 0.5)

    Its Trio loop runs in a background thread; every call waits for its answer."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._bot: Bot | None = None
        self._stop: trio.Event | None = None
        self._started = threading.Event()
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._pgids: list[int] = []
        self._lock = threading.Lock()

    @classmethod
    def popen(cls, command: str | Sequence[str] | BotSpec, *, game: str | None = None, limits: Limits | None = None,
              sandbox: bool = True, timing: Timing = Timing(), bot_seed: int | None = None,
              log: Path | None = None) -> SimpleBot:
        """Start the bot and complete its handshake (the arguments are Bot.popen's);
        BotFault if it does not start."""
        settings = {"game": game, "limits": limits, "sandbox": sandbox, "timing": timing, "bot_seed": bot_seed,
                    "log": log}
        simple = cls()
        simple._thread = threading.Thread(target=simple._serve, args=(command, settings), daemon=True,
                                          name="arena-simplebot")
        simple._thread.start()
        simple._started.wait()
        if simple._failure is not None:
            simple._thread.join()
            raise simple._failure
        return simple

    def _serve(self, command: str | Sequence[str] | BotSpec, settings: dict[str, Any]) -> None:
        async def serve() -> None:
            self._token = trio.lowlevel.current_trio_token()
            self._stop = trio.Event()
            async with Bot.popen(command, **settings) as bot:
                self._bot = bot
                self._started.set()
                await self._stop.wait()

        try:
            trio.run(serve)
        except BaseException as exc:  # handed to the caller of popen, or lost with the thread
            self._failure = _unwrapped(exc)
        finally:
            self._started.set()

    def _call(self, work: Callable[[Bot], Awaitable[T]]) -> T:
        if self._bot is None or self._token is None or self._thread is None or not self._thread.is_alive():
            raise RuntimeError("the bot has quit")
        bot = self._bot

        async def call() -> T:
            return await work(bot)

        try:
            with self._lock:  # one request at a time, whichever thread asks
                return trio.from_thread.run(call, trio_token=self._token)
        except BaseExceptionGroup as group:
            raise _unwrapped(group) from None

    @property
    def name(self) -> str:
        """The name the bot gave in `ready`."""
        if self._bot is None:
            raise RuntimeError("the bot has quit")
        return self._bot.name

    @property
    def pgids(self) -> list[int]:
        """Every process group the bot has run in (see Bot.pgids); kept after quit."""
        return list(self._bot.pgids) if self._bot is not None else self._pgids

    def play(self, state: State, limit: Time, *, moves: Sequence[str] | None = None) -> Answer:
        """The bot's action for the seat to decide in `state`, which is told the game
        so far from `state.history` (or `moves`); see Bot.play."""
        return self._call(lambda bot: bot.play(state, limit, moves=moves))

    def quit(self) -> None:
        """Ask the bot to exit, kill what is left of it, and end the background thread."""
        thread, token, stop = self._thread, self._token, self._stop
        if thread is None or token is None or stop is None:
            return
        if thread.is_alive():
            try:
                trio.from_thread.run_sync(stop.set, trio_token=token)
            except trio.RunFinishedError:
                pass
        thread.join()
        if self._bot is not None:
            self._pgids = self._bot.pgids
        self._bot = None

    close = quit

    def __enter__(self) -> SimpleBot:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.quit()


def _unwrapped(error: BaseException) -> BaseException:
    """The one error inside nested exception groups of one error (a BotFault, say)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
