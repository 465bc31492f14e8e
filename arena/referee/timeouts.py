"""Games decided by time, for the summaries of matches and leagues (one module, so both
say the same): counted per bot, each time-out told in a few words for a progress line,
and a warning when the time-outs look like the machine's doing rather than the bots':
too many of them, or a burst. A wall-clock limit charges a bot for every moment it
waits for a core, so an overloaded machine decides games by time that a quiet one
would not (`greedy` lost 11 of 96 games on time at 100 ms beside a busy machine, and
an SPRT accepted H1 partly on those losses)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena.referee.outcome import GameOutcome
from arena.termination import Termination
from arena.timecontrol import BACKSTOP_EXTRA_S, BACKSTOP_FACTOR, Basis

TIME_OUT_SHARE = 0.03
"""More than this share of the games decided by wall-clock time-outs (3%) draws the
warning: bots that fit their limit lose a game on time only now and then, so more
points to the machine (or to a limit too tight for a bot)."""
BURST_COUNT = 3
BURST_WINDOW = 10
"""BURST_COUNT games decided by wall-clock time-outs among any BURST_WINDOW games in a
row (in the order the games ended) draw the warning too, however few they are in all:
a burst is the mark of a moment the machine was busy (a backup, a build), not of a bot."""

Kind = Literal["wall", "cpu", "backstop"]
"""What ran out: wall time (the wall basis), the bot's own CPU time (the CPU basis),
or the CPU basis's wall backstop (a bot that used its wall time without its CPU)."""

Context = Literal["match", "league"]
"""Where the remedies are set: the match's options, or the league file."""

_REMEDIES: dict[Context, tuple[str, str]] = {
    "match": ("--time-basis cpu", "a lower --concurrency"),
    "league": ('basis = "cpu" under [time] in the league file', "a lower concurrency in the league file"),
}


def time_out_kind(detail: str, basis: Basis = "wall") -> Kind:
    """The kind of a time-out from its fault's detail (the referee's words: "wall
    backstop", "CPU basis"); on the CPU basis any other (a game clock run out) is the
    bot's CPU time."""
    if "wall backstop" in detail:
        return "backstop"
    if "CPU basis" in detail or basis == "cpu":
        return "cpu"
    return "wall"


_BACKSTOP = re.compile(r"after (\d+) ms of wall time.*wall backstop of (\d+) ms")
_CPU = re.compile(r"used (\d+) ms of CPU \(limit (\d+ ms)")
_ANSWERED = re.compile(r"answered after (\d+) ms \(limit (\d+ ms)")
_SILENT = re.compile(r"^no answer in time \(limit (\d+ ms)")
_UNREAD = re.compile(r"did not read its input in time \(limit (\d+ ms)")
SHORT_DETAIL = 60
"""Most characters of a detail the short form does not know, in a progress line."""


def short_time_out(name: str, detail: str) -> str:
    """Who timed out and by how much, in a few words for a progress line ("greedy
    answered after 419 ms, limit 100 ms"), from the fault's detail."""
    if found := _BACKSTOP.search(detail):
        return f"{name} took {found[1]} ms of wall time, past the {found[2]} ms backstop"
    if found := _CPU.search(detail):
        return f"{name} used {found[1]} ms of CPU, limit {found[2]}"
    if found := _ANSWERED.search(detail):
        return f"{name} answered after {found[1]} ms, limit {found[2]}"
    if found := _SILENT.search(detail):
        return f"{name} gave no answer within {found[1]}"
    if found := _UNREAD.search(detail):
        return f"{name} did not read its request within {found[1]}"
    if "game clock had run out" in detail:
        return f"{name}'s game clock ran out"
    shown = detail if len(detail) <= SHORT_DETAIL else detail[:SHORT_DETAIL - 3] + "..."
    return f"{name}: {shown}"


def seat_names(outcome: GameOutcome) -> tuple[str, ...]:
    """The bots of a game by seat, as its record names them."""
    return tuple(outcome.record.tags.get(f"Player{seat}", f"seat {seat}") for seat in range(len(outcome.ranks)))


def time_out_note(outcome: GameOutcome) -> str:
    """Every time-out of a game in short ("" without one), for its progress line."""
    names = seat_names(outcome)
    return "; ".join(short_time_out(names[f.seat], f.detail) for f in outcome.faults
                     if f.reason == Termination.TIME_OUT)


def termination_text(outcome: GameOutcome) -> str:
    """A game's termination for its progress line: `time-out: greedy answered after
    419 ms, limit 100 ms` for a game ended on time, else the reason alone."""
    note = time_out_note(outcome) if outcome.termination == Termination.TIME_OUT else ""
    return f"{outcome.termination}: {note}" if note else str(outcome.termination)


@dataclass(frozen=True)
class TimedGame:
    """A finished game as the count sees it: its bots by seat, and the seat and detail
    of each of its time-outs."""

    bots: tuple[str, ...]
    time_outs: tuple[tuple[int, str], ...] = ()


def timed_game(outcome: GameOutcome) -> TimedGame | None:
    """A game's bots and time-outs (None for a void game, which counts for nothing)."""
    if outcome.void:
        return None
    return TimedGame(seat_names(outcome), tuple((f.seat, f.detail) for f in outcome.faults
                                                 if f.reason == Termination.TIME_OUT))


@dataclass
class BotTimeOuts:
    """One bot's games, and how many of them it lost on time (of those, past the wall
    backstop)."""

    games: int = 0
    time_outs: int = 0
    backstop: int = 0


@dataclass
class TimeOutCount:
    """The games of a match or a league decided by time, per bot and in all."""

    basis: Basis = "wall"
    bots: dict[str, BotTimeOuts] = field(default_factory=dict)
    games: int = 0
    decided: int = 0
    """Games with at least one time-out."""
    machine_games: list[int] = field(default_factory=list)
    """Where, in the order the games ended (from 0), the games with a time-out the
    machine's load may have caused: wall time on the wall basis, the backstop on the
    CPU basis (running out of one's own CPU time is the bot's doing)."""

    @classmethod
    def of(cls, games: Iterable[TimedGame | None], basis: Basis = "wall", names: Sequence[str] = ()) -> TimeOutCount:
        """Count `games`, given in the order they ended (None: a void game, skipped);
        `names` lists the bots in the order to show them (others follow as met)."""
        count = cls(basis, {name: BotTimeOuts() for name in names})
        for game in games:
            if game is not None:
                count.add(game)
        return count

    def add(self, game: TimedGame) -> None:
        """Count the game that ended after those counted so far."""
        for bot in game.bots:
            self.bots.setdefault(bot, BotTimeOuts()).games += 1
        kinds = set()
        for seat, detail in game.time_outs:
            kind = time_out_kind(detail, self.basis)
            kinds.add(kind)
            row = self.bots.setdefault(game.bots[seat], BotTimeOuts())
            row.time_outs += 1
            row.backstop += kind == "backstop"
        if game.time_outs:
            self.decided += 1
        if kinds & ({"backstop"} if self.basis == "cpu" else {"wall", "backstop"}):
            self.machine_games.append(self.games)
        self.games += 1

    @property
    def share(self) -> float:
        """The share of the games decided by a time-out the machine may have caused."""
        return len(self.machine_games) / self.games if self.games else 0.0

    def burst(self) -> tuple[int, int] | None:
        """The first BURST_COUNT such games within BURST_WINDOW games in a row, as the
        numbers (from 1, in the order the games ended) of the first and the last."""
        found = self.machine_games
        for k in range(len(found) - BURST_COUNT + 1):
            if found[k + BURST_COUNT - 1] - found[k] < BURST_WINDOW:
                return found[k] + 1, found[k + BURST_COUNT - 1] + 1
        return None

    def line(self) -> str:
        """'time-outs: greedy 11 of 96 games, search 0' (those past the wall backstop
        said apart)."""
        if not self.decided:
            return f"time-outs: none in {self.games} game(s)"
        parts = []
        for name, row in self.bots.items():
            if not row.time_outs:
                parts.append(f"{name} 0")
                continue
            backstop = f" ({row.backstop} past the wall backstop)" if row.backstop else ""
            parts.append(f"{name} {row.time_outs} of {row.games} games{backstop}")
        return "time-outs: " + ", ".join(parts)

    def warning(self, context: Context) -> str | None:
        """Why the machine may have decided games, and what to do about it, when the
        time-outs it may have caused are more than TIME_OUT_SHARE of the games or
        come in a burst; else None."""
        burst = self.burst()
        if self.share > TIME_OUT_SHARE:
            why = f"more than {TIME_OUT_SHARE:.0%} of the games"
        elif burst is not None:
            why = (f"{BURST_COUNT} of them within {BURST_WINDOW} games in a row: games {burst[0]} to {burst[1]} in "
                   "the order they ended")
        else:
            return None
        cpu_fix, concurrency_fix = _REMEDIES[context]
        counted = f"{len(self.machine_games)} of {self.games} games ({self.share:.1%})"
        if self.basis == "cpu":
            return (f"{counted} were decided by the CPU basis's wall backstop ({BACKSTOP_FACTOR}x the limit + "
                    f"{BACKSTOP_EXTRA_S:g} s of wall time; {why}): the machine may be overloaded, so that bots "
                    f"waited for a core far longer than they computed; use {concurrency_fix}{self._one_bot()}")
        return (f"{counted} were decided by time-outs ({why}): the machine may be overloaded, and a bot waiting for "
                f"a core loses wall-clock time it did not use; use {cpu_fix} (each bot is charged its own CPU time) "
                f"or {concurrency_fix}{self._one_bot()}")

    def _one_bot(self) -> str:
        """The other explanation, when every time-out is one bot's: it is too slow (or
        sleeps, or waits) for its limit."""
        culprits = [(name, row) for name, row in self.bots.items() if row.time_outs]
        if len(culprits) != 1 or len(self.bots) < 2:
            return ""
        name, row = culprits[0]
        return (f"; unless {name} is too slow for its limit: every time-out is its own ({row.time_outs} of its "
                f"{row.games} games)")

    def document(self, context: Context) -> dict[str, object]:
        """The count as JSON: per bot and in all, with the warning (null without one)."""
        return {
            "basis": self.basis, "games": self.games, "decided_by_time": self.decided,
            "machine_share": round(self.share, 4),
            "bots": [{"bot": name, "games": row.games, "time_outs": row.time_outs, "backstop": row.backstop}
                     for name, row in self.bots.items()],
            "burst": None if (burst := self.burst()) is None else list(burst),
            "warning": self.warning(context),
        }


def count_outcomes(outcomes: Iterable[GameOutcome], basis: Basis = "wall", names: Sequence[str] = ()) -> TimeOutCount:
    """The time-outs of a match's games, given in the order they ended."""
    return TimeOutCount.of((timed_game(o) for o in outcomes), basis, names)
