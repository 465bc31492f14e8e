"""The referee: plays one game between live bots under the rules and the clock.

It knows the game only through the State interface. Every decision: list the legal
actions, ask the bot through the game's Decisions (which own the deadlines), check and
apply the answer in one place (`_accept`), and append it to the record. A bot that breaks the
contract forfeits (2 seats) or is removed and ranked last while the referee plays its
remaining decisions (3 or more seats).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.games.base import CHANCE, TERMINAL, GameError, State
from arena.process.faults import BotFault, SeatFault
from arena.records.record import GameRecord, Ply, TurnCounter
from arena.referee.decision import Answer, Decisions
from arena.referee.openings import random_opening_action, random_opening_rng
from arena.referee.outcome import (
    GameOutcome,
    GameSetup,
    fault_detail,
    game_tags,
    ranks_after_faults,
    void_outcome,
)
from arena.referee.player import BotPlayer
from arena.referee.seeds import chance_seed
from arena.termination import Termination
from arena.timecontrol import SeatClocks
from protocol.messages import End, Event, Request, ResultInfo, Start

OPENING_COMMENT = "opening"
"""The comment of a ply the referee played as part of an opening."""

Watcher = Callable[[State, int, Ply], None]
"""Called after every ply with the state, the ply's number and the ply (for --watch and
the live league page); a turn ends where `state.current()` is no longer `ply.actor`."""


class Referee:
    """Plays one game; bots must already be started (the match owns their lifetimes)."""

    def __init__(self, setup: GameSetup, players: list[BotPlayer], watcher: Watcher | None = None,
                 startup_faults: dict[int, BotFault] | None = None) -> None:
        self.setup = setup
        self.startup_faults = startup_faults or {}
        self.players = players
        self.watcher = watcher
        self.state = setup.game.new_state(len(players), setup.options)
        self.rng = random.Random(chance_seed(setup.chance_key, setup.seed))
        self.plies: list[Ply] = []
        self.faults: list[SeatFault] = []
        self.removed: set[int] = set()
        self.clocks = SeatClocks(list(setup.time_controls))
        n = len(players)
        self.hidden = setup.game.has_hidden_information
        # Perfect information: all seats share one event list, each with its own cursor.
        shared: list[Event] = []
        self.events: list[list[Event]] = [shared] * n if not self.hidden else [[] for _ in range(n)]
        self.cursor = [0] * n
        self.turns = TurnCounter()
        self.decisions = Decisions()
        self.asks: list[tuple[bool, bool]] = []
        """Per seat, whether its requests carry the legal actions and the observation."""

    # ---- the game ----------------------------------------------------------------------

    async def play(self) -> GameOutcome:
        """Play the game to its end (or to the forfeit that ends it)."""
        await self._start()
        self._play_opening()
        self.asks = [(p.wants_legal, p.wants_observation) for p in self.players]  # fixed for the game
        await self.decisions.run(self._play_decisions, self._fault)
        outcome = self._outcome()
        await self._finish(outcome)
        return outcome

    async def _play_decisions(self) -> None:
        """Every decision to the end of the game (or to the forfeit that ends it)."""
        removed = self.removed
        while not (removed and self._game_over_by_faults()):
            state = self.state  # rebuilt after a refused action
            seat = state.current()
            if seat == TERMINAL:
                break
            if seat == CHANCE:
                self._record(Ply(0, state.sample_chance(self.rng), chance=True, actor=CHANCE))
            elif seat in removed:
                self._record(Ply(0, state.forced_action(), actor=seat, forced=True))
            else:
                await self._decide(seat)

    def _play_opening(self) -> None:
        """The opening's plies, played by the referee before any bot decides; each is
        marked `opening` in the record, and the bots learn them from the events."""
        setup = self.setup
        if setup.opening:
            for action in setup.opening:
                actor = self.state.current()
                if actor == TERMINAL:
                    return
                self._record(Ply(0, action, chance=actor == CHANCE, actor=actor, comment=OPENING_COMMENT))
        elif setup.random_opening:
            rng = random_opening_rng(setup.chance_key, setup.opening_seed)
            for _ in range(setup.random_opening):
                state = self.state
                actor = state.current()
                if actor == TERMINAL:
                    return
                drawn = random_opening_action(state, rng)
                if drawn is None:
                    self._record(Ply(0, state.sample_chance(self.rng), chance=True, actor=CHANCE))
                else:
                    self._record(Ply(0, drawn, actor=actor, comment=OPENING_COMMENT))

    async def _start(self) -> None:
        setup = self.setup
        names = [p.name for p in self.players]
        for seat, player in enumerate(self.players):
            message = Start(
                game=setup.game.id, options=setup.options, seat=seat, seats=len(self.players),
                players=names, time=setup.time_controls[seat].wire(), match_game=setup.match_game,
            )
            try:
                if seat in self.startup_faults:
                    raise self.startup_faults[seat]
                if not player.alive:
                    raise BotFault(Termination.CRASH, "the bot was not running at the start of the game")
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

    # ---- one decision ------------------------------------------------------------------

    async def _decide(self, seat: int) -> None:
        state = self.state
        player = self.players[seat]
        limit, clock = self.clocks.request(seat)
        if limit <= 0:
            self._fault(seat, BotFault(Termination.TIME_OUT, "its game clock had run out before this decision"))
            return
        number = len(self.plies) + 1
        events = self.events[seat]
        start, self.cursor[seat] = self.cursor[seat], len(events)
        legal, observation = self.asks[seat]
        request = Request(
            ply=number, clock=clock, events=events[start:], legal=state.legal_actions() if legal else None,
            observation=state.observation(seat) if observation else None,
        )
        try:
            answer = await self.decisions.ask(seat, player, request, limit, self.clocks.controls[seat])
            if answer.legal is not None and player.choose_legal(answer.legal):  # the bot's word for this game
                self.asks[seat] = (player.wants_legal, observation)
            self._accept(seat, answer, number)
        except BotFault as fault:
            self._fault(seat, fault)
            return
        self.clocks.charge(seat, answer.charged_s)

    def _accept(self, seat: int, answer: Answer, number: int) -> None:
        """The one place a bot's action meets the rules: legal where it is played, and
        applied; BotFault illegal-action otherwise."""
        action, cpu_s = answer.action, answer.cpu_s
        if not _is_legal(self.state, action):
            raise BotFault(Termination.ILLEGAL_ACTION, f"{action[:60]!r} is not legal at ply {number}")
        try:
            self._record(Ply(0, action, actor=seat, elapsed_ms=round(answer.elapsed_s * 1000, 1),
                             cpu_ms=None if cpu_s is None else round(cpu_s * 1000, 1), info=answer.info))
        except GameError as exc:
            raise BotFault(Termination.ILLEGAL_ACTION,
                           f"the rules refused {action[:60]!r} at ply {number}: {str(exc)[:200]}") from None

    # ---- bookkeeping -------------------------------------------------------------------

    def _record(self, ply: Ply) -> None:
        """Apply a ply's action and record it; a GameError from the rules leaves the state
        and the record as they were."""
        assert ply.actor is not None
        actor, action = ply.actor, ply.action
        number = len(self.plies) + 1
        seen: list[str | None] = []
        if self.hidden:
            seen = [self.state.visible_action(action, actor, seat) for seat in range(len(self.players))]
        try:
            self.state.apply(action)
        except GameError:
            self._rebuild_state()  # apply may have changed part of the state before it refused
            raise
        ply.turn = self.turns.next(actor)
        if self.hidden:
            for events, shown in zip(self.events, seen):
                if shown is not None:
                    events.append(Event(number, actor, shown))
        else:
            self.events[0].append(Event(number, actor, action))
        self.plies.append(ply)
        if self.watcher is not None:
            self.watcher(self.state, number, ply)

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
        fault = self.players[seat].explain(fault)
        self.faults.append(SeatFault(seat, fault.reason, fault.detail, ply))
        self.removed.add(seat)
        self.players[seat].kill()

    # ---- the end -------------------------------------------------------------------------

    def _outcome(self) -> GameOutcome:
        names = [p.name for p in self.players]
        scores: tuple[float, ...] | None = None
        base = [1] * len(self.players)
        if self.state.current() == TERMINAL:
            result = self.state.result()
            scores, base = result.scores, list(result.ranks)
        ranks = ranks_after_faults(base, self.faults)
        termination = self.faults[0].reason if self.faults else Termination.NORMAL
        tags = game_tags(self.setup, names, ranks, scores, termination, fault_detail(self.faults, names),
                         len(self.plies))
        decisions = sum(1 for p in self.plies if not p.chance and not p.forced and p.comment != OPENING_COMMENT)
        return GameOutcome(GameRecord(tags=tags, plies=self.plies), ranks, scores, list(self.faults), termination,
                           decisions)

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
            message = End(result=info, termination=outcome.termination.value, events=self._new_events(seat))
            try:
                await player.send(message)
            except BotFault:
                player.kill()


def _is_legal(state: State, action: str) -> bool:
    """The rules' word on a bot's action; a GameError while checking means no."""
    try:
        return state.is_legal(action)
    except GameError:
        return False
