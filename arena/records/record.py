"""Game records: the model (plies, tags) and the values its tags hold.

The text format (docs/records.md) is read by arena.records.reader and written by
arena.records.writer, which share this model and the lexical rules of
arena.records.syntax, so that every record the writer accepts reads back equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from arena.errors import ArenaError, excerpt
from protocol.messages import Info

STANDARD_TAGS: Final = (
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "Game", "Options", "Seats",
    # Player0 .. PlayerN-1 go here, by seat number
    "Seed", "Cycle", "Rotation", "BotSeeds", "TimeControl", "Ranks", "Scores", "Termination", "TerminationDetail",
    "Plies",
)
"""The writer's tag order; Player tags follow Seats, any other tag comes last."""

_PLAYERS_AFTER: Final = "Seats"


def pgn_result(ranks: tuple[int, ...] | None) -> str:
    """The PGN Result of a game: 1-0, 0-1 or 1/2-1/2 for two seats, `*` otherwise (more
    seats, or no result)."""
    if ranks is None or len(ranks) != 2:
        return "*"
    if ranks[0] == ranks[1]:
        return "1/2-1/2"
    return "1-0" if ranks[0] < ranks[1] else "0-1"



# ---- the model ---------------------------------------------------------------------------


@dataclass
class Ply:
    """One decision of the game: a seat's action or a chance outcome drawn by the referee."""

    turn: int
    """1-based turn number; a turn is a maximal run of decisions by one actor (a seat, or chance)."""
    action: str
    """The canonical action string, exactly as the game's rules spell it."""
    chance: bool = False
    comment: str | None = None
    """Free text of the move's comment beyond the fields below (what a file held)."""
    actor: int | None = None
    """The seat that decided, or CHANCE (-1); None when read from a file, where
    replaying the rules tells who acted."""
    forced: bool = False
    """Whether the referee played it for a seat removed after a fault."""
    elapsed_ms: float | None = None
    """The bot's thinking time on the referee's clock."""
    cpu_ms: float | None = None
    """The CPU time the bot's processes used for this decision, where it was measured."""
    info: Info | None = None
    """What the bot reported with its action (score, depth, nodes, pv, comment)."""

    def comment_text(self) -> str | None:
        """The move's comment as the record writes it: `forced`, the thinking time, the
        bot's info (capped at COMMENT_CAP bytes), then any free text; None if empty."""
        parts: list[str] = []
        if self.forced:
            parts.append("forced")
        if self.elapsed_ms is not None:
            parts.append(f"{self.elapsed_ms:.1f}ms")
            if self.cpu_ms is not None:
                parts.append(f"cpu={self.cpu_ms:.1f}ms")
        if self.info is not None and (text := info_text(self.info)):
            parts.append(cap_comment(text))
        if self.comment is not None:
            parts.append(self.comment)
        return " ".join(parts) if parts else None


COMMENT_CAP: Final = 1024
"""Most bytes of a move comment built from a bot's info; more is cut, and the cut noted."""

_TIMED: Final = re.compile(r"((?:0|[1-9][0-9]{0,11})\.[0-9])ms(?: cpu=((?:0|[1-9][0-9]{0,11})\.[0-9])ms)?(?: |$)")


def info_text(info: Info) -> str:
    """A bot's info as the comment shows it: `score=0.25 depth=4 nodes=12000 pv=a,b text`."""
    parts = info.scalars()
    if info.pv:
        parts.append("pv=" + ",".join(info.pv))
    if info.comment:
        parts.append(info.comment)
    return " ".join(parts)


def cap_comment(text: str) -> str:
    """At most COMMENT_CAP bytes of `text`, with a note saying how much there was."""
    data = text.encode("utf-8")
    if len(data) <= COMMENT_CAP:
        return text
    kept = data[:COMMENT_CAP].decode("utf-8", "ignore")
    return f"{kept} [arena: cut to {COMMENT_CAP} of {len(data)} bytes]"


def ply_comment_fields(text: str) -> tuple[bool, float | None, float | None, str | None]:
    """The inverse of Ply.comment_text for what a file can tell: (forced, elapsed_ms,
    cpu_ms, the rest as free text); `comment_text` writes the same text back."""
    forced = text == "forced" or text.startswith("forced ")
    if forced:
        text = text[len("forced "):]
        if not text:
            return True, None, None, None
    timed = _TIMED.match(text)
    if timed is None:
        return forced, None, None, text
    rest = text[timed.end():]
    cpu = None if timed.group(2) is None else float(timed.group(2))
    return forced, float(timed.group(1)), cpu, rest if timed.group(0).endswith(" ") else None


@dataclass
class GameRecord:
    """The tags (name to value, in order) and the plies of one game."""

    tags: dict[str, str] = field(default_factory=dict)
    plies: list[Ply] = field(default_factory=list)

    @property
    def game_id(self) -> str:
        return self.tags["Game"]

    @property
    def seats(self) -> int:
        return int(self.tags["Seats"])

    @property
    def options(self) -> dict[str, str]:
        return parse_options(self.tags.get("Options", ""))

    @property
    def players(self) -> list[str]:
        """Player names by seat; "?" where a Player tag is missing."""
        return [self.tags.get(f"Player{seat}", "?") for seat in range(self.seats)]

    @property
    def ranks(self) -> tuple[int, ...] | None:
        text = self.tags.get("Ranks")
        return None if text is None else parse_ranks(text)

    @property
    def scores(self) -> tuple[float, ...] | None:
        text = self.tags.get("Scores")
        return None if text is None else parse_scores(text)

    @property
    def termination(self) -> str | None:
        return self.tags.get("Termination")


class RecordSyntaxError(ArenaError, ValueError):
    """A record file that cannot be read; line and column are 1-based."""

    def __init__(self, line: int, column: int, message: str, path: str | None = None) -> None:
        where = f"line {line}, column {column}"
        super().__init__(f"{path}: {where}: {message}" if path else f"{where}: {message}")
        self.line = line
        self.column = column
        self.message = message
        self.path = path


class TurnCounter:
    """Turn numbers as plies are played: a new turn starts exactly when the actor changes."""

    def __init__(self) -> None:
        self.turn = 0
        self._actor: int | None = None

    def next(self, actor: int) -> int:
        """The turn number of a ply by `actor` (a seat, or CHANCE = -1)."""
        if actor != self._actor:
            self.turn += 1
            self._actor = actor
        return self.turn


def turn_numbers(actors: Iterable[int]) -> list[int]:
    """The turn number of each ply, given who acted."""
    counter = TurnCounter()
    return [counter.next(actor) for actor in actors]


# ---- tag values: ranks, scores, options --------------------------------------------------


def format_ranks(ranks: Iterable[int]) -> str:
    """Ranks as the Ranks tag holds them: "1,2,2"."""
    return ",".join(str(int(rank)) for rank in ranks)


def format_scores(scores: Iterable[float]) -> str:
    """Scores as the Scores tag holds them: whole numbers without a fraction ("4", not
    "4.0"), others in Python's shortest round-trip form ("0.5")."""
    return ",".join(_format_score(float(score)) for score in scores)


def _format_score(score: float) -> str:
    if score.is_integer() and abs(score) < 1e15:
        return str(int(score))
    return repr(score)


def parse_ranks(text: str) -> tuple[int, ...]:
    """The inverse of format_ranks; ValueError on anything but comma-separated integers."""
    if not text.strip():
        return ()
    return tuple(int(_number_item(item, "rank", _INT_RE)) for item in text.split(","))


def parse_scores(text: str) -> tuple[float, ...]:
    """The inverse of format_scores; ValueError on anything but comma-separated numbers."""
    if not text.strip():
        return ()
    return tuple(float(_number_item(item, "score", _NUMBER_RE)) for item in text.split(","))


def parse_options(text: str) -> dict[str, str]:
    """Variant options from "k=v,k=v" ("" means none); ValueError on an item without '='."""
    options: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"option {excerpt(item.strip())} is not name=value")
        options[name.strip()] = value.strip()
    return options


_INT_RE: Final = re.compile(r"-?\d{1,18}")
_NUMBER_RE: Final = re.compile(r"-?(?:\d{1,300}(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d{1,4})?|-?inf|nan")


def _number_item(item: str, what: str, pattern: re.Pattern[str]) -> str:
    item = item.strip()
    if pattern.fullmatch(item) is None:
        raise ValueError(f"{what} {excerpt(item)} is not a number")
    return item


def tag_value_problem(name: str, value: str) -> str | None:
    """Why a standard tag's value is malformed, or None: the GameRecord properties
    parse these tags, so neither the reader nor the writer lets a bad one through."""
    try:
        if name == "Seats":
            if _INT_RE.fullmatch(value.strip()) is None or int(value) < 1:
                return f"Seats must be a positive whole number, not {excerpt(value)}"
        elif name == "Plies":
            if _INT_RE.fullmatch(value.strip()) is None or int(value) < 0:
                return f"Plies must be a whole number, not {excerpt(value)}"
        elif name == "Ranks":
            parse_ranks(value)
        elif name == "Scores":
            parse_scores(value)
        elif name == "Options":
            parse_options(value)
    except ValueError as exc:
        return f"bad {name} tag: {exc}"
    return None
