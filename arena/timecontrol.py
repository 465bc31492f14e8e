"""Time controls: a per-decision limit, a game clock with increment, or both."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from arena.errors import ArenaError, excerpt
from protocol.messages import Clock
from protocol.messages import TimeControl as WireTimeControl


class TimeControlError(ArenaError, ValueError):
    """A time control the user wrote that cannot be understood."""


MAX_SECONDS = 7 * 24 * 3600
"""Longest time a limit may be (a week): more is a typo, and would overflow the clock."""


def parse_seconds(text: str, what: str) -> float:
    """'1.5', '1.5s' or '1500ms' as seconds, from 1 ms to a week; a clear error otherwise."""
    raw = text.strip().lower()
    scale = 1.0
    if raw.endswith("ms"):
        raw, scale = raw[:-2], 0.001
    elif raw.endswith("s"):
        raw = raw[:-1]
    try:
        value = float(raw) * scale
    except ValueError:
        raise TimeControlError(f"{what}: {excerpt(text)} is not a time (write e.g. 0.5, 2s or 500ms)") from None
    return checked_seconds(value, what, excerpt(text))


def checked_seconds(value: float, what: str, shown: str) -> float:
    """`value` (seconds) when it is a usable limit, from 1 ms to a week; a clear error
    naming `what` and quoting `shown` (how the user wrote it) otherwise."""
    if not math.isfinite(value):
        raise TimeControlError(f"{what}: {shown} is not a time (write e.g. 0.5, 2s or 500ms)")
    if value <= 0:
        raise TimeControlError(f"{what}: {shown} must be more than zero")
    if value < 0.001:
        raise TimeControlError(f"{what}: {shown} is less than a millisecond; give 1ms or more")
    if value > MAX_SECONDS:
        raise TimeControlError(f"{what}: {shown} is more than a week ({MAX_SECONDS} s); give a shorter time")
    return value


Basis = Literal["wall", "cpu"]
"""What a bot is charged for a decision: the wall time from its request to its answer,
or the CPU time its whole process tree used meanwhile (isolate's --time against
--wall-time)."""
BASES: tuple[Basis, ...] = ("wall", "cpu")

BACKSTOP_FACTOR = 10
BACKSTOP_EXTRA_S = 1.0
"""On the CPU basis a decision still ends on the wall clock, after BACKSTOP_FACTOR times
its limit plus BACKSTOP_EXTRA_S (1.1 s for 10 ms, 2 s for 100 ms, 11 s for 1 s): a bot
that sleeps or waits uses no CPU and would otherwise never time out, while a bot given a
tenth of a core by a loaded machine still has its whole CPU time."""


def parse_basis(text: str, what: str = "--time-basis") -> Basis:
    """'wall' or 'cpu'; a clear error otherwise."""
    value = text.strip().lower()
    if value == "wall":
        return "wall"
    if value == "cpu":
        return "cpu"
    raise TimeControlError(f"{what}: {excerpt(text)} is not a time basis; give wall (real time, the default) "
                           "or cpu (each bot's own CPU time, for a machine that also runs other work)")


@dataclass(frozen=True)
class TimeControl:
    """Limits of one game. A decision's limit is the smaller of the per-move limit and
    the clock's remaining time; the increment is added after each decision. `basis`
    says which time counts against them (see Basis); start-up is always wall time."""

    per_move_s: float | None = 5.0
    base_s: float | None = None
    increment_s: float = 0.0
    basis: Basis = "wall"

    def __post_init__(self) -> None:
        if self.basis not in BASES:
            raise TimeControlError(f"time basis {excerpt(str(self.basis))}: give 'wall' or 'cpu'")

    @property
    def on_cpu(self) -> bool:
        """Whether decisions are charged CPU time."""
        return self.basis == "cpu"

    def backstop_s(self, allowed_s: float) -> float:
        """How long (wall time) a decision allowed `allowed_s` may take at most."""
        if not self.on_cpu:
            return allowed_s
        return BACKSTOP_FACTOR * allowed_s + BACKSTOP_EXTRA_S

    def on(self, basis: Basis) -> TimeControl:
        """The same limits on `basis`."""
        return self if basis == self.basis else TimeControl(self.per_move_s, self.base_s, self.increment_s, basis)

    @classmethod
    def parse(cls, per_move: str | None, clock: str | None,
              names: tuple[str, str] = ("--time-per-move", "--clock"), basis: Basis = "wall") -> TimeControl:
        """From the CLI's --time-per-move and --clock BASE+INC (seconds); `names` are
        what messages call the two (a file's keys, e.g. time.per_move)."""
        per_move_s = parse_seconds(per_move, names[0]) if per_move else None
        base_s: float | None = None
        increment_s = 0.0
        if clock:
            base, _, inc = clock.partition("+")
            base_s = parse_seconds(base, f"{names[1]} base")
            if inc:
                increment_s = 0.0 if inc.strip() in ("0", "0s", "0ms") else parse_seconds(inc, f"{names[1]} increment")
        if per_move_s is None and base_s is None:
            per_move_s = cls.per_move_s
        return cls(per_move_s, base_s, increment_s, basis)

    def describe(self) -> str:
        """The record's TimeControl tag, e.g. 'move=1s clock=60s+0.5s', with
        'basis=cpu backstop=10x+1s' on the CPU basis (the wall basis says nothing, as
        records before the CPU basis did)."""
        parts = []
        if self.per_move_s is not None:
            parts.append(f"move={self.per_move_s:g}s")
        if self.base_s is not None:
            parts.append(f"clock={self.base_s:g}s+{self.increment_s:g}s")
        if self.on_cpu:
            parts.append(f"basis=cpu backstop={BACKSTOP_FACTOR}x+{BACKSTOP_EXTRA_S:g}s")
        return " ".join(parts) or "none"

    def wire(self) -> WireTimeControl:
        def ms(s: float | None) -> int | None:
            return None if s is None else round(s * 1000)

        return WireTimeControl(
            per_move_ms=ms(self.per_move_s),
            base_ms=ms(self.base_s),
            increment_ms=ms(self.increment_s) if self.base_s is not None else None,
            basis="cpu" if self.on_cpu else None,
        )


Time = float | str | TimeControl
"""A time control as the library takes it (arena.Time): seconds per decision (0.5, or
"500ms" as --time-per-move reads it), or a TimeControl (per move, game clock, increment)."""


def time_control(value: Time, what: str = "time") -> TimeControl:
    """The time control a library caller means (arena.play's `time`, SimpleBot.play's
    limit): a TimeControl as it is, or seconds per decision as a number or a text;
    TimeControlError naming `what` otherwise. The one conversion of library values,
    as TimeControl.parse is the command line's and a file's."""
    if isinstance(value, TimeControl):
        return value
    if isinstance(value, str):
        return TimeControl(per_move_s=parse_seconds(value, what))
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimeControlError(f"{what}: {excerpt(repr(value))} is not a time (give seconds, e.g. 0.5 or \"500ms\", "
                               "or a TimeControl)")
    try:
        seconds = float(value)
    except OverflowError:  # an int past float's range: more than a week, or less than nothing
        seconds = 2.0 * MAX_SECONDS if value > 0 else -1.0
    return TimeControl(per_move_s=checked_seconds(seconds, what, excerpt(str(value), 40)))


def own_time_control(per_move: str | float | None, clock: str | None, key: str = "",
                     basis: Basis = "wall") -> TimeControl | None:
    """A bot's own time control from a file's `time_per_move` and `clock` (None when it
    gives neither) on the match's `basis`; TimeControlError as parse raises, naming the
    keys under `key`."""
    if per_move is None and clock is None:
        return None
    prefix = f"{key}." if key else ""
    return TimeControl.parse(None if per_move is None else str(per_move), clock,
                             (f"{prefix}time_per_move", f"{prefix}clock"), basis)


class SeatClocks:
    """Every seat's game clock during one game: the limit of its next decision, the
    clock state sent with a request, and the charge for each answer."""

    def __init__(self, controls: list[TimeControl]) -> None:
        self.controls = controls
        """Each seat's time control (seats may differ: a handicap match, a person)."""
        self.remaining: list[float | None] = [control.base_s for control in controls]
        self._last: list[tuple[float, Clock] | None] = [None] * len(controls)
        """Each seat's last `request` (reused while the seat has no game clock)."""

    def limit(self, seat: int) -> float:
        """The smaller of the per-move limit and what is left on the seat's clock (0
        once the clock has run out)."""
        remaining = self.remaining[seat]
        per_move = self.controls[seat].per_move_s
        if remaining is None:
            assert per_move is not None
            return per_move
        return remaining if per_move is None else min(per_move, remaining)

    def wire(self, seat: int, limit: float) -> Clock:
        """The `clock` of a request for this seat."""
        remaining = self.remaining[seat]
        return Clock(
            move_ms=max(0, round(limit * 1000)),
            remaining_ms=None if remaining is None else max(0, round(remaining * 1000)),
            increment_ms=None if remaining is None else round(self.controls[seat].increment_s * 1000),
        )

    def request(self, seat: int) -> tuple[float, Clock]:
        """The limit of the seat's next decision and the `clock` its request sends, in
        one call per decision; under a per-move limit alone both are the same for every
        request of a seat, made once (encode the clock, never change it)."""
        last = self._last[seat]
        remaining = self.remaining[seat]
        if last is not None and remaining is None:
            return last
        limit = self.limit(seat)
        made = limit, self.wire(seat, limit)
        self._last[seat] = made
        return made

    def charge(self, seat: int, elapsed_s: float) -> None:
        """Take an answer's time (on the seat's basis) off the seat's clock, never below
        zero (an answer late by less than the grace empties the clock), then add the
        increment."""
        remaining = self.remaining[seat]
        if remaining is not None:
            self.remaining[seat] = max(0.0, remaining - elapsed_s) + self.controls[seat].increment_s
