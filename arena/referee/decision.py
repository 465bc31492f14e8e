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

On the CPU basis (TimeControl.basis "cpu") the same deadline is the first check: a bot
on one core cannot use more CPU than wall time, so nothing need be looked at before.
When it passes, `_overdue` reads the bot's CPU time and waits on for the answer, until
either the CPU time passes the limit plus grace or the wall clock passes the backstop;
an answer that comes meanwhile is held, and `ask`, called again for the same decision
by the game's loop, returns it without a second request. A fast bot costs the CPU basis
nothing beyond the CPU reading every answer already makes.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import trio

from arena.process.channel import LineChannel
from arena.process.faults import BotFault
from arena.referee.player import BotPlayer, decode_line
from arena.termination import Termination
from arena.timecontrol import TimeControl
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
    charged_s: float
    """What the seat's clock is charged: `elapsed_s` on the wall basis, `cpu_s` on the
    CPU basis (wall time where the CPU time cannot be read)."""
    cpu_s: float | None = None
    """The bot's CPU time for the decision (its whole process tree where cgroups count
    it), to tell a slow bot from an overloaded machine: on the wall basis since its
    previous answer (one reading per decision, so thinking between requests counts
    towards the next), on the CPU basis since the request."""
    legal: bool | None = None
    """Whether the bot asked for the legal actions in the rest of the game's requests
    (None: it did not say)."""


Play = Callable[[], Awaitable[None]]
"""The game's loop over its decisions: it asks through `Decisions.ask` and returns when
the game is over; called again after a request's deadline passed."""
Fault = Callable[[int, BotFault], None]
"""What the referee does with the fault of the seat whose request went unanswered."""


WALL = TimeControl(basis="wall")
MIN_CHECK_S = 0.002
"""The least wait between two readings of an overdue bot's CPU time on the CPU basis."""


class _Held(NamedTuple):
    """An answer that came while `_overdue` waited on the CPU basis, for the decision's
    second `ask`."""

    seat: int
    line: bytes
    elapsed_s: float


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
        self._control = WALL
        self._allowed_s = 0.0
        """The pending request's limit plus grace."""
        self._player: BotPlayer | None = None
        self._held: _Held | None = None
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
            seat = self._seat
            if seat >= 0:
                overdue = await self._overdue()
                self._seat = -1
                if overdue is not None:
                    fault(seat, overdue)

    async def ask(self, seat: int, player: BotPlayer, request: Request, limit_s: float,
                  control: TimeControl = WALL) -> Answer:
        """The bot's answer, or the BotFault that ends its part in the game. Only
        within `run`, which holds the deadline. `control` gives the basis."""
        held = self._held
        if held is not None:
            self._held = None
            if held.seat == seat:
                return await self._answer(self._channel, held.line, held.elapsed_s)
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
        self._control, self._player, self._allowed_s = control, player, allowed
        # On the CPU basis a decision is charged from its request on (pondering between
        # requests is free, as on the wall basis): one reading more than the wall basis.
        self._cpu_before = channel.cpu_seconds() if control.on_cpu else player.cpu_mark
        try:
            await channel.write(encode(request), due)  # a write has its own deadline only when the pipe is full
            line = await channel.read_line(math.inf)  # the scope's deadline holds the read
        except BotFault as fault:
            self._seat = -1
            raise self._explained(fault) from None
        elapsed = now() - started
        self._seat = -1
        return await self._answer(channel, line, elapsed)

    async def _answer(self, channel: LineChannel | None, line: bytes, elapsed: float) -> Answer:
        """The answer `line`, which came `elapsed` seconds after its request, checked
        against the limit on the decision's basis."""
        assert channel is not None and self._player is not None
        self._player.cpu_mark = cpu_after = channel.cpu_seconds()
        cpu_before = self._cpu_before
        cpu = None if cpu_before is None or cpu_after is None else max(0.0, cpu_after - cpu_before)
        message = decode_line(line)
        if channel.buffered:
            raise BotFault(Termination.UNEXPECTED_MESSAGE, f"the bot wrote more than one line for one request"
                                                           f"{await _extra_line(channel)} (a line written after start "
                                                           "or end, which need no answer, is taken for the answer when "
                                                           "it comes with the request)")
        if not isinstance(message, Action):
            raise BotFault(Termination.UNEXPECTED_MESSAGE,
                           f"expected an action, got a {type(message).__name__.lower()} message")
        allowed = self._allowed_s
        control = self._control
        if control.on_cpu and cpu is not None:
            if cpu > allowed:
                raise BotFault(Termination.TIME_OUT, f"used {cpu * 1000:.0f} ms of CPU (limit {self._limit_ms()}, "
                                                     f"CPU basis; {elapsed * 1000:.0f} ms of wall time)")
            if elapsed > control.backstop_s(allowed):
                raise BotFault(Termination.TIME_OUT, self._past_backstop(elapsed, cpu))
            return Answer(message.action, message.info, elapsed, cpu, cpu, message.legal)
        if elapsed > allowed:
            raise BotFault(Termination.TIME_OUT, f"answered after {elapsed * 1000:.0f} ms (limit {self._limit_ms()})")
        return Answer(message.action, message.info, elapsed, elapsed, cpu, message.legal)

    def _past_backstop(self, elapsed: float, cpu: float | None) -> str:
        used = "" if cpu is None else f", using {cpu * 1000:.0f} ms of CPU"
        backstop = self._control.backstop_s(self._allowed_s)
        return (f"answered after {elapsed * 1000:.0f} ms of wall time{used}: past the CPU basis's wall backstop "
                f"of {backstop * 1000:.0f} ms (limit {self._limit_ms()} of CPU)")

    async def _overdue(self) -> BotFault | None:
        """The fault of the pending request, whose deadline passed: the channel, asked
        for a line by a deadline already gone, says why none came. On the CPU basis,
        first wait on while the bot's CPU time and the backstop allow; an answer that
        comes meanwhile is held for `ask` (None: no fault)."""
        channel = self._channel
        assert channel is not None
        if self._control.on_cpu:
            line = await self._wait_on_cpu(channel)
            if line is not None:
                self._held = _Held(self._seat, line, trio.current_time() - self._started)
                return None
        try:
            await channel.read_line(trio.current_time())
        except BotFault as fault:
            return self._explained(fault)
        elapsed = trio.current_time() - self._started
        return BotFault(Termination.TIME_OUT, f"answered after {elapsed * 1000:.0f} ms (limit {self._limit_ms()})")

    async def _wait_on_cpu(self, channel: LineChannel) -> bytes | None:
        """The answer, if it comes before the bot's CPU time or the wall clock's
        backstop runs out; None when either ran out (or the CPU time cannot be read,
        or the bot failed otherwise: the caller then names why)."""
        allowed = self._allowed_s
        end = self._started + self._control.backstop_s(allowed)
        before = self._cpu_before
        if before is None:
            return None
        await channel.count_tree()
        while True:
            now = trio.current_time()
            cpu = channel.cpu_seconds()
            if cpu is None or cpu - before > allowed or now >= end:
                return None
            check = min(end, now + max(MIN_CHECK_S, allowed - (cpu - before)))
            try:
                return await channel.read_line(check)
            except BotFault as fault:
                if fault.reason != Termination.TIME_OUT:
                    return None
            await channel.count_tree()

    def _explained(self, fault: BotFault) -> BotFault:
        """A time-out names the limit and the CPU the bot used meanwhile."""
        if fault.reason != Termination.TIME_OUT:
            return fault
        assert self._channel is not None
        after, before = self._channel.cpu_seconds(), self._cpu_before
        used = None if after is None or before is None else max(0.0, after - before)
        if self._control.on_cpu:
            elapsed = trio.current_time() - self._started
            if used is not None and used > self._allowed_s:
                return BotFault(Termination.TIME_OUT, f"{fault.detail}: used {used * 1000:.0f} ms of CPU (limit "
                                                      f"{self._limit_ms()}, CPU basis; {elapsed * 1000:.0f} ms of "
                                                      "wall time)")
            return BotFault(Termination.TIME_OUT, f"{fault.detail}: {self._past_backstop(elapsed, used)}")
        cpu = "" if used is None else f"; it used {used * 1000:.0f} ms of CPU"
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


async def ask_once(player: BotPlayer, request: Request, limit_s: float, control: TimeControl = WALL) -> Answer:
    """One request outside a game's loop (arena.Bot asks one decision at a time): the
    bot's answer, or the BotFault of its seat."""
    decisions = Decisions()
    answers: list[Answer] = []
    faults: list[BotFault] = []

    async def one() -> None:
        if not faults and not answers:
            answers.append(await decisions.ask(0, player, request, limit_s, control))

    await decisions.run(one, lambda seat, fault: faults.append(fault))
    if faults:
        raise faults[0]
    return answers[0]
