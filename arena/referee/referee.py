"""The referee: plays one game between live bots under the rules and the clock.

It knows the game only through the State interface. Every decision: list the legal
actions, send a request, read the answer under the time limit, check it, apply it, and
append it to the record. A bot that breaks the contract forfeits (2 seats) or is removed
and ranked last while the referee plays its remaining decisions (3 or more seats).
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import trio

from arena.games.base import CHANCE, TERMINAL, Game, GameError, State, competition_ranks
from arena.records.record import GameRecord, Ply, format_ranks, format_scores
from arena.referee.player import BotPlayer
from arena.referee.process import BotFault
from arena.referee.timecontrol import TimeControl
from protocol.messages import Action, Clock, End, Event, Request, ResultInfo, Start


@dataclass(frozen=True)
class SeatFault:
    """Why a seat was forfeited or removed, and at which ply."""

    seat: int
    reason: str
    detail: str
    ply: int


INFRASTRUCTURE_ERROR = "infrastructure-error"
"""Termination of a game stopped by an error of the arena itself (a bug of ours, not a
bot's fault): the game is void, never scored, and played again."""

COMMENT_CAP = 1024
"""Most bytes of a move comment built from a bot's info; more is cut, and the cut noted."""


@dataclass
class GameOutcome:
    """What the match and the league need from a finished game."""

    record: GameRecord
    ranks: tuple[int, ...]
    scores: tuple[float, ...] | None
    faults: list[SeatFault]
    termination: str
    decisions: int
    error: str | None = None
    """The traceback of an infrastructure error (the game is then void)."""

    @property
    def void(self) -> bool:
        """Whether the game was stopped by the arena's own error and must not be scored."""
        return self.termination == INFRASTRUCTURE_ERROR


@dataclass(frozen=True)
class GameSetup:
    """Everything that fixes a game before it starts."""

    game: Game
    options: dict[str, str]
    time_control: TimeControl
    seed: int
    event: str = "arena"
    round: str = "1"
    match_game: int = 0


Watcher = Callable[[State, int], None]
"""Called at the end of every turn (the actor changes) with the state and the ply
number (for --watch)."""


def _comment(elapsed: float, action: Action) -> str:
    text = f"{elapsed * 1000:.1f}ms"
    info = action.info
    if info is None:
        return text
    if info.score is not None:
        text += f" score={info.score:g}"
    if info.depth is not None:
        text += f" depth={info.depth}"
    if info.nodes is not None:
        text += f" nodes={info.nodes}"
    if info.pv:
        text += " pv=" + ",".join(info.pv)
    if info.comment:
        text += " " + info.comment.replace("}", ")").replace("\n", " ")
    return cap_comment(text)


def _when(ply: int) -> str:
    return "at start-up" if ply == 0 else f"at ply {ply}"


def _is_legal(state: State, action: str) -> bool:
    """The rules' word on a bot's action; a GameError while checking means no."""
    try:
        return state.is_legal(action)
    except GameError:
        return False


def cap_comment(text: str) -> str:
    """At most COMMENT_CAP bytes of `text`, with a note saying how much there was."""
    data = text.encode("utf-8")
    if len(data) <= COMMENT_CAP:
        return text
    kept = data[:COMMENT_CAP].decode("utf-8", "ignore")
    return f"{kept} [arena: cut to {COMMENT_CAP} of {len(data)} bytes]"


def game_tags(
    setup: GameSetup,
    names: list[str],
    ranks: tuple[int, ...],
    scores: tuple[float, ...] | None,
    termination: str,
    detail: str,
    plies: int,
) -> dict[str, str]:
    """The record's tag pairs, in the standard order."""
    tags = {
        "Event": setup.event,
        "Date": date.today().strftime("%Y.%m.%d"),
        "Round": setup.round,
        "Game": setup.game.id,
        "Options": ",".join(f"{k}={v}" for k, v in setup.options.items()),
        "Seats": str(len(names)),
    }
    for seat, name in enumerate(names):
        tags[f"Player{seat}"] = name
    tags["Seed"] = str(setup.seed)
    tags["TimeControl"] = setup.time_control.describe()
    tags["Ranks"] = format_ranks(ranks)
    if scores is not None:
        tags["Scores"] = format_scores(scores)
    tags["Termination"] = termination
    if detail:
        tags["TerminationDetail"] = detail
    tags["Plies"] = str(plies)
    return tags


class Referee:
    """Plays one game; bots must already be started (the match owns their lifetimes)."""

    def __init__(
        self,
        setup: GameSetup,
        players: list[BotPlayer],
        watcher: Watcher | None = None,
        startup_faults: dict[int, BotFault] | None = None,
    ) -> None:
        self.setup = setup
        self.startup_faults = startup_faults or {}
        self.players = players
        self.watcher = watcher
        self.state = setup.game.new_state(len(players), setup.options)
        self.rng = random.Random(setup.seed)
        self.plies: list[Ply] = []
        self.faults: list[SeatFault] = []
        self.removed: set[int] = set()
        tc = setup.time_control
        self.remaining = [tc.base_s for _ in players]
        n = len(players)
        self.hidden = setup.game.has_hidden_information
        # Perfect information: all seats share one event list, each with its own cursor.
        shared: list[Event] = []
        self.events: list[list[Event]] = [shared] * n if not self.hidden else [[] for _ in range(n)]
        self.cursor = [0] * n
        self._turn = 0
        self._last_actor: int | None = None
        self._scope = trio.CancelScope()
        self._asking = (0, 0.0)

    # ---- bookkeeping ---------------------------------------------------------------

    def _record_ply(self, actor: int, action: str, comment: str | None) -> None:
        """Apply an action and record it; a GameError from the rules leaves the state
        and the record as they were."""
        ply = len(self.plies) + 1
        seen: list[str | None] = []
        if self.hidden:
            seen = [self.state.visible_action(action, actor, seat) for seat in range(len(self.players))]
        try:
            self.state.apply(action)
        except GameError:
            self._rebuild_state()  # apply may have changed part of the state before it refused
            raise
        if actor != self._last_actor:
            self._turn += 1
            self._last_actor = actor
        if self.hidden:
            for events, shown in zip(self.events, seen):
                if shown is not None:
                    events.append(Event(ply, actor, shown))
        else:
            self.events[0].append(Event(ply, actor, action))
        self.plies.append(Ply(self._turn, action, actor == CHANCE, comment))
        if self.watcher is not None and self.state.current() != actor:
            self.watcher(self.state, ply)

    def _rebuild_state(self) -> None:
        """The state after the recorded plies, built afresh from the rules."""
        state = self.setup.game.new_state(len(self.players), self.setup.options)
        for ply in self.plies:
            state.apply(ply.action)
        self.state = state

    def _new_events(self, seat: int) -> list[Event]:
        events = self.events[seat]
        start = self.cursor[seat]
        self.cursor[seat] = len(events)
        return events[start:]

    def _fault(self, seat: int, fault: BotFault, at_start: bool = False) -> None:
        ply = 0 if at_start else len(self.plies) + 1
        self.faults.append(SeatFault(seat, fault.reason, fault.detail, ply))
        self.removed.add(seat)
        self.players[seat].kill()

    # ---- one decision ----------------------------------------------------------------

    def _limit(self, seat: int) -> float:
        tc = self.setup.time_control
        remaining = self.remaining[seat]
        if remaining is None:
            assert tc.per_move_s is not None
            return tc.per_move_s
        if tc.per_move_s is None:
            return remaining
        return min(tc.per_move_s, remaining)

    async def _decide(self, seat: int) -> None:
        state = self.state
        player = self.players[seat]
        limit = self._limit(seat)
        if limit <= 0:
            self._fault(seat, BotFault("time-out", "its game clock had run out before this decision"))
            return
        legal = state.legal_actions()
        remaining = self.remaining[seat]
        tc = self.setup.time_control
        request = Request(
            ply=len(self.plies) + 1,
            clock=Clock(
                move_ms=max(0, round(limit * 1000)),
                remaining_ms=None if remaining is None else max(0, round(remaining * 1000)),
                increment_ms=None if remaining is None else round(tc.increment_s * 1000),
            ),
            events=self._new_events(seat),
            legal=legal if player.wants_legal else None,
            observation=state.observation(seat) if player.wants_observation else None,
        )
        try:
            if not player.alive:
                raise BotFault("crash", "the bot was not running at its turn")
            self._asking = (seat, limit)
            scope = self._scope
            due = trio.current_time() + limit + player.timing.grace_s
            if not due <= scope.deadline <= due + min(0.05, 0.1 * limit):
                # Moving a deadline costs more than a pipe round trip, so a fast bot's
                # decisions share one, at most a few ms late; the answer's own elapsed
                # time is still checked exactly.
                scope.deadline = due + min(0.05, 0.1 * limit) / 2
            answer, elapsed = await player.ask(request, limit, scope)
            if not _is_legal(state, answer.action):
                shown = answer.action[:60]
                raise BotFault("illegal-action", f"{shown!r} is not legal at ply {len(self.plies) + 1}")
        except BotFault as fault:
            if fault.reason == "time-out":
                fault = BotFault("time-out", f"{fault.detail} (limit {limit * 1000:.0f} ms)")
            self._fault(seat, fault)
            return
        try:
            self._record_ply(seat, answer.action, _comment(elapsed, answer))
        except GameError as exc:
            self._fault(seat, BotFault("illegal-action", f"the rules refused {answer.action[:60]!r} at ply "
                                                         f"{len(self.plies) + 1}: {str(exc)[:200]}"))
            return
        if remaining is not None:
            self.remaining[seat] = max(0.0, remaining - elapsed) + tc.increment_s

    # ---- the game ------------------------------------------------------------------

    async def _start(self) -> None:
        setup = self.setup
        names = [p.name for p in self.players]
        for seat, player in enumerate(self.players):
            message = Start(
                game=setup.game.id, options=setup.options, seat=seat, seats=len(self.players),
                players=names, time=setup.time_control.wire(), match_game=setup.match_game,
            )
            try:
                if seat in self.startup_faults:
                    raise self.startup_faults[seat]
                if not player.alive:
                    raise BotFault("crash", "the bot was not running at the start of the game")
                await player.send(message)
            except BotFault as fault:
                self._fault(seat, fault, at_start=True)

    def _game_over_by_faults(self) -> bool:
        """A solo game ends when its only seat faults; two seats when either does; more
        seats play on until one seat is left."""
        seats = len(self.players)
        if seats <= 2:
            return bool(self.removed)
        return seats - len(self.removed) <= 1

    async def play(self) -> GameOutcome:
        """Play the game to its end (or to the forfeit that ends it).

        One cancel scope spans many decisions, its deadline moved to each decision's
        limit, because entering a scope per decision costs more than the pipe itself.
        When it fires, the seat being asked timed out or died."""
        await self._start()
        while True:
            self._scope = trio.CancelScope()
            with self._scope:
                await self._play_decisions()
                break
            seat, limit = self._asking
            self._fault(seat, await self.players[seat].interrupted(limit))
        outcome = self._outcome()
        await self._finish(outcome)
        return outcome

    async def _play_decisions(self) -> None:
        while not self._game_over_by_faults():
            state = self.state  # rebuilt after a refused action
            seat = state.current()
            if seat == TERMINAL:
                return
            if seat == CHANCE:
                self._record_ply(CHANCE, state.sample_chance(self.rng), None)
            elif seat in self.removed:
                self._record_ply(seat, state.forced_action(), "forced")
            else:
                await self._decide(seat)

    def _ranks(self) -> tuple[tuple[int, ...], tuple[float, ...] | None]:
        """The game's ranks, overridden by faults: faulted seats last, the first to
        fault lowest; the others keep the game's order among themselves."""
        n = len(self.players)
        scores: tuple[float, ...] | None = None
        if self.state.current() == TERMINAL:
            result = self.state.result()
            scores = result.scores
            base = list(result.ranks)
        else:
            base = [1] * n
        if not self.faults:
            return tuple(base), scores
        if n == 1:
            return (2,), scores  # a solo seat that faulted has not won
        ranks = [0] * n
        survivors = [s for s in range(n) if s not in self.removed]
        survivor_ranks = competition_ranks([-base[s] for s in survivors])
        for s, r in zip(survivors, survivor_ranks, strict=True):
            ranks[s] = r
        next_rank = len(survivors) + 1
        for fault in reversed(self.faults):
            ranks[fault.seat] = next_rank
            next_rank += 1
        return tuple(ranks), scores

    def _outcome(self) -> GameOutcome:
        setup = self.setup
        ranks, scores = self._ranks()
        termination = self.faults[0].reason if self.faults else "normal"
        detail = "; ".join(
            f"seat {f.seat} ({self.players[f.seat].name}) {f.reason} {_when(f.ply)}: {f.detail}" for f in self.faults
        )
        tags = game_tags(setup, [p.name for p in self.players], ranks, scores, termination, detail, len(self.plies))
        record = GameRecord(tags=tags, plies=self.plies)
        decisions = sum(1 for p in self.plies if not p.chance and p.comment != "forced")
        return GameOutcome(record, ranks, scores, list(self.faults), termination, decisions)

    def void_outcome(self, error: BaseException) -> GameOutcome:
        """The outcome of a game stopped by an error of the arena: its plies so far, no
        ranking (every seat level), the traceback for the log."""
        return void_outcome(self.setup, [p.name for p in self.players], self.plies, error)

    async def _finish(self, outcome: GameOutcome) -> None:
        """Tell every live bot the result; a bot that cannot take it faults for the next game."""
        info = ResultInfo(ranks=list(outcome.ranks), scores=list(outcome.scores or ()))
        for seat, player in enumerate(self.players):
            if seat in self.removed or not player.alive:
                continue
            message = End(result=info, termination=outcome.termination, events=self._new_events(seat))
            try:
                await player.send(message)
            except BotFault:
                player.kill()


def void_outcome(setup: GameSetup, names: list[str], plies: list[Ply], error: BaseException) -> GameOutcome:
    """A game that the arena's own error stopped: void, every seat level, not scored."""
    detail = f"the arena failed ({type(error).__name__}: {str(error)[:200]}); the game is void and is played again"
    ranks = tuple(1 for _ in names)
    tags = game_tags(setup, names, ranks, None, INFRASTRUCTURE_ERROR, detail, len(plies))
    trace = "".join(traceback.format_exception(error))
    return GameOutcome(GameRecord(tags=tags, plies=list(plies)), ranks, None, [], INFRASTRUCTURE_ERROR, 0, trace)
