"""One decision asked of one bot: the request out, the answer back, under one deadline.

A Decision owns everything about the clock of a single request: when it started (the
first byte of the request), the deadline (limit plus grace), the time the answer
took, and every way it can fail (a request the bot does not read, no answer, a dead
bot, a malformed or unexpected line, an answer late by the measured time). Nothing
else in the referee touches deadlines.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from arena.referee.faults import BotFault
from arena.referee.player import BotPlayer, decode_line
from arena.termination import Termination
from protocol.codec import encode
from protocol.messages import Action, Info, Request


@dataclass(frozen=True)
class Answer:
    """A bot's action with its info and the seconds it took on the referee's clock."""

    action: str
    info: Info | None
    elapsed_s: float
    cpu_s: float | None = None
    """The bot's CPU time since its previous answer (its whole process tree where
    cgroups count it; one reading per decision, so thinking between requests counts
    towards the next), to tell a slow bot from an overloaded machine."""


class Decision:
    """Ask `player` for one action within `limit_s` seconds (plus `grace_s`)."""

    def __init__(self, limit_s: float, grace_s: float) -> None:
        self.limit_s = limit_s
        self.grace_s = grace_s

    async def ask(self, player: BotPlayer, request: Request) -> Answer:
        """The bot's answer, or the BotFault that ends its part in the game."""
        channel = player.channel
        if channel is None or not player.alive:
            raise BotFault(Termination.CRASH, "the bot was not running at its turn")
        if channel.unsolicited():
            raise BotFault(Termination.UNEXPECTED_MESSAGE, "the bot wrote output it was not asked for (a line after "
                                                           "start, end or its last answer; they need no answer)")
        cpu_before = player.cpu_mark
        started = trio.current_time()
        deadline = started + self.limit_s + self.grace_s
        try:
            await channel.write(encode(request), deadline)
            line = await channel.read_line(deadline)
        except BotFault as fault:
            if fault.reason == Termination.TIME_OUT:
                used = _spent(cpu_before, channel.cpu_seconds())
                cpu = "" if used is None else f"; it used {used * 1000:.0f} ms of CPU"
                raise BotFault(Termination.TIME_OUT, f"{fault.detail} (limit {self._limit_ms()}{cpu})") from None
            raise
        elapsed = trio.current_time() - started
        player.cpu_mark = channel.cpu_seconds()
        cpu_used = _spent(cpu_before, player.cpu_mark)
        message = decode_line(line)
        if channel.buffered:
            raise BotFault(Termination.UNEXPECTED_MESSAGE, "the bot wrote more than one line for one request (a line "
                                                           "written after start or end, which need no answer, is "
                                                           "taken for the answer when it comes with the request)")
        if not isinstance(message, Action):
            raise BotFault(Termination.UNEXPECTED_MESSAGE,
                           f"expected an action, got a {type(message).__name__.lower()} message")
        if elapsed > self.limit_s + self.grace_s:
            raise BotFault(Termination.TIME_OUT, f"answered after {elapsed * 1000:.0f} ms (limit {self._limit_ms()})")
        return Answer(message.action, message.info, elapsed, cpu_used)

    def _limit_ms(self) -> str:
        return f"{self.limit_s * 1000:.0f} ms"


def _spent(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else max(0.0, after - before)
