"""Every protocol message as a msgspec Struct, a tagged union on the `type` field.

docs/protocol.md is the human-readable contract; this module is the machine one, and the
two must agree. Optional fields are omitted on the wire when unset.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

Count = Annotated[int, msgspec.Meta(ge=0, le=(1 << 63) - 1)]
"""A non-negative count a bot reports (depth, nodes); larger numbers are malformed."""


class _Message(msgspec.Struct, tag_field="type", omit_defaults=True):
    pass


# ---- referee -> bot -------------------------------------------------------------


class Hello(_Message, tag="hello"):
    """First message of a session: the bot must answer with Ready within the start-up limit."""

    protocol: int
    arena: str
    features: list[str] = []


class TimeControl(msgspec.Struct, omit_defaults=True):
    """Limits of a game, in milliseconds; unset means no such limit."""

    per_move_ms: int | None = None
    base_ms: int | None = None
    increment_ms: int | None = None
    basis: str | None = None
    """"cpu" when the limits count the bot's CPU time rather than wall time (left out:
    wall time)."""


class Start(_Message, tag="start"):
    """A new game begins; no answer is expected."""

    game: str
    options: dict[str, str]
    seat: int
    seats: int
    players: list[str]
    time: TimeControl
    match_game: int = 0


class Event(msgspec.Struct, array_like=False, omit_defaults=True):
    """One action the seat may see: ply number, acting seat (-1 = chance), action."""

    ply: int
    seat: int
    action: str


class Clock(msgspec.Struct, omit_defaults=True):
    """The bot's time for this decision: `move_ms` is the hard limit it must answer in;
    `remaining_ms` its game clock before this decision (when a game clock is used)."""

    move_ms: int | None = None
    remaining_ms: int | None = None
    increment_ms: int | None = None


class Request(_Message, tag="request"):
    """Asks the bot for one action; it must answer with Action before `clock.move_ms`."""

    ply: int
    clock: Clock
    events: list[Event] = []
    legal: list[str] | None = None
    observation: dict[str, Any] | None = None


class ResultInfo(msgspec.Struct):
    ranks: list[int]
    scores: list[float]


class End(_Message, tag="end"):
    """The game is over; no answer is expected. The bot waits for Start or Quit."""

    result: ResultInfo
    termination: str
    events: list[Event] = []


class Quit(_Message, tag="quit"):
    """The session is over: the bot should exit (it is killed after a short grace)."""


RefereeMessage = Hello | Start | Request | End | Quit


# ---- bot -> referee ---------------------------------------------------------------


class Ready(_Message, tag="ready"):
    """Answer to Hello. `legal`/`observation` false opt out of those request fields."""

    name: str
    version: str = ""
    author: str = ""
    legal: bool = True
    observation: bool = True


class Info(msgspec.Struct, omit_defaults=True):
    """Optional analysis a bot attaches to its action; kept in the record as a comment."""

    score: float | None = None
    depth: Count | None = None
    nodes: Count | None = None
    pv: list[str] | None = None
    comment: str | None = None

    def scalars(self) -> list[str]:
        """The scalar fields as a record's comment shows them (`score=0.5`, `depth=3`, ...)."""
        parts = []
        if self.score is not None:
            parts.append(f"score={self.score:g}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        return parts


class Action(_Message, tag="action"):
    """Answer to Request: one action in the game's canonical notation. `legal` (when
    sent) says whether the rest of this game's requests carry the legal actions: a bot
    opts out per game once it knows the game (granted where hello offers `no-legal`)."""

    action: str
    info: Info | None = None
    legal: bool | None = None


BotMessage = Ready | Action
