"""The requests for actions of one game: each request out, its answer back, under its
deadline.

A game's Decisions owns everything about the clock of its requests: when each started
(the first byte of the request), its deadline (limit plus grace), the time the answer
took, and every way a request can fail (a request the bot does not read, no answer, a
dead bot, a malformed or unexpected line, an answer late by the measured time). Nothing
else in the referee touches deadlines.

Deadlines are Trio cancel scopes, and entering one costs more than a pipe round trip
(about 5 us, where a whole decision should cost 25). So one scope spans all the
requests of a game (`run`), and a request moves its deadline only when the one set does
not lie just after its own, within its slack (50 ms, or a tenth of the limit when that
is less): a fast bot's requests share one deadline. An answer's time is still checked
exactly against the limit; the slack only delays noticing a bot that does not answer at
all. When the deadline passes, the scope ends the game's loop, the channel says why
the bot did not answer (no answer, a dead bot, a closed pipe), the seat faults, and the
loop goes on from where the game is.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import trio

from arena.referee.channel import LineChannel
from arena.referee.faults import BotFault
from arena.referee.player import BotPlayer, decode_line
from arena.termination import Termination
from protocol.codec import encode
from protocol.messages import Action, Info, Request

SLACK_S = 0.05
"""How late past its deadline a request that gets no answer at all may be noticed (at
most a tenth of its limit when that is less)."""


class Answer(NamedTuple):
    """A bot's action with its info and the seconds it took on the referee's clock."""

    action: str
    info: Info | None
    elapsed_s: float
    cpu_s: float | None = None
    """The bot's CPU time since its previous answer (its whole process tree where
    cgroups count it; one reading per decision, so thinking between requests counts
    towards the next), to tell a slow bot from an overloaded machine."""
    legal: bool | None = None
    """Whether the bot asked for the legal actions in the rest of the game's requests
    (None: it did not say)."""


Play = Callable[[], Awaitable[None]]
"""The game's loop over its decisions: it asks through `Decisions.ask` and returns when
the game is over; called again after a request's deadline passed."""
Fault = Callable[[int, BotFault], None]
"""What the referee does with the fault of the seat whose request went unanswered."""


class Decisions:
    """Ask the bots of one game for actions, each within its limit plus grace."""

    def __init__(self) -> None:
        self._scope = trio.CancelScope()
        self._deadline = math.inf
        """The scope's deadline (kept here: reading the scope's own costs a call)."""
        self._seat = -1
        """The seat whose request is pending (-1: none)."""
        self._channel: LineChannel | None = None
        self._started = 0.0
        self._limit_s = 0.0
        self._cpu_before: float | None = None
        self._now: Callable[[], float] = trio.current_time
        """Trio's clock, read without the two calls trio.current_time adds."""

    async def run(self, play: Play, fault: Fault) -> None:
        """Run `play` under the game's deadline scope; each time a request's deadline
        passes, fault its seat and run `play` again."""
        self._now = trio.lowlevel.current_clock().current_time
        while True:
            with trio.CancelScope() as scope:
                self._scope, self._deadline = scope, math.inf
                await play()
                return
            seat, self._seat = self._seat, -1
            if seat >= 0:
                fault(seat, await self._overdue())

    async def ask(self, seat: int, player: BotPlayer, request: Request, limit_s: float) -> Answer:
        """The bot's answer, or the BotFault that ends its part in the game. Only
        within `run`, which holds the deadline."""
        channel = player.channel
        if channel is None or player.ready is None or not channel.running:
            raise BotFault(Termination.CRASH, "the bot was not running at its turn")
        if channel.unsolicited():
            raise BotFault(Termination.UNEXPECTED_MESSAGE, f"the bot wrote output it was not asked for"
                                                           f"{await _extra_line(channel)} (a line after start, end or "
                                                           "its last answer; they need no answer)")
        now = self._now
        started = now()
        allowed = limit_s + player.timing.grace_s
        due = started + allowed
        slack = SLACK_S if limit_s >= 10 * SLACK_S else limit_s / 10
        if not due < self._deadline <= due + slack:
            self._scope.deadline = self._deadline = due + slack
        self._seat, self._channel, self._started, self._limit_s = seat, channel, started, limit_s
        self._cpu_before = cpu_before = player.cpu_mark
        try:
            await channel.write(encode(request), due)  # a write has its own deadline only when the pipe is full
            line = await channel.read_line(math.inf)  # the scope's deadline holds the read
        except BotFault as fault:
            self._seat = -1
            raise self._explained(fault) from None
        elapsed = now() - started
        self._seat = -1
        player.cpu_mark = cpu_after = channel.cpu_seconds()
        message = decode_line(line)
        if channel.buffered:
            raise BotFault(Termination.UNEXPECTED_MESSAGE, f"the bot wrote more than one line for one request"
                                                           f"{await _extra_line(channel)} (a line written after start "
                                                           "or end, which need no answer, is taken for the answer when "
                                                           "it comes with the request)")
        if not isinstance(message, Action):
            raise BotFault(Termination.UNEXPECTED_MESSAGE,
                           f"expected an action, got a {type(message).__name__.lower()} message")
        if elapsed > allowed:
            raise BotFault(Termination.TIME_OUT, f"answered after {elapsed * 1000:.0f} ms (limit {self._limit_ms()})")
        cpu = None if cpu_before is None or cpu_after is None else max(0.0, cpu_after - cpu_before)
        return Answer(message.action, message.info, elapsed, cpu, message.legal)

    async def _overdue(self) -> BotFault:
        """The fault of the pending request, whose deadline passed: the channel, asked
        for a line by a deadline already gone, says why none came."""
        channel = self._channel
        assert channel is not None
        try:
            await channel.read_line(trio.current_time())
        except BotFault as fault:
            return self._explained(fault)
        elapsed = trio.current_time() - self._started
        return BotFault(Termination.TIME_OUT, f"answered after {elapsed * 1000:.0f} ms (limit {self._limit_ms()})")

    def _explained(self, fault: BotFault) -> BotFault:
        """A time-out names the limit and the CPU the bot used meanwhile."""
        if fault.reason != Termination.TIME_OUT:
            return fault
        assert self._channel is not None
        after, before = self._channel.cpu_seconds(), self._cpu_before
        cpu = "" if after is None or before is None else f"; it used {max(0.0, after - before) * 1000:.0f} ms of CPU"
        return BotFault(Termination.TIME_OUT, f"{fault.detail} (limit {self._limit_ms()}{cpu})")

    def _limit_ms(self) -> str:
        return f"{self._limit_s * 1000:.0f} ms"


async def _extra_line(channel: LineChannel) -> str:
    """`: '<the line>'`, the start of a line the bot wrote beyond what it was asked for,
    when it is there whole (read, so a traffic log shows it too); else "". Never waits."""
    try:
        line = await channel.read_line(trio.current_time())
    except BotFault:
        return ""
    return f": {line[:80].decode('utf-8', 'replace')!r}"


async def ask_once(player: BotPlayer, request: Request, limit_s: float) -> Answer:
    """One request outside a game's loop (arena.Bot asks one decision at a time): the
    bot's answer, or the BotFault of its seat."""
    decisions = Decisions()
    answers: list[Answer] = []
    faults: list[BotFault] = []

    async def one() -> None:
        if not faults:
            answers.append(await decisions.ask(0, player, request, limit_s))

    await decisions.run(one, lambda seat, fault: faults.append(fault))
    if faults:
        raise faults[0]
    return answers[0]
