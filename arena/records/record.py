"""Game records: the model (plies, tags), the values its tags hold, and one ply's step
through the rules (`apply_ply`), which replay, verify and `GameRecord.actors()` share.

The text format (docs/records.md) is read by arena.records.reader and written by
arena.records.writer, which share this model and the lexical rules of
arena.records.syntax, so that every record the writer accepts reads back equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from arena import games
from arena.errors import ArenaError, excerpt
from arena.games.base import CHANCE, TERMINAL, GameError, State
from arena.records.syntax import COMMENT_CAP as COMMENT_CAP  # the comment's rules, known here too
from arena.records.syntax import cap_comment as cap_comment
from arena.records.syntax import info_text as info_text
from arena.termination import Termination
from protocol.messages import Info

STANDARD_TAGS: Final = (
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "Game", "Options", "Seats",
    # Player0 .. PlayerN-1 go here, by seat number
    "Seed", "Cycle", "Rotation", "BotSeeds", "TimeControl", "Ranks", "Places", "Scores", "Termination",
    "TerminationDetail", "Plies",
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


SIDE_SEPARATOR: Final = ":"
"""Between the names of several players on one side of PGN's White or Black tag, as
PGN writes a consultation game's ("A:B")."""


def pgn_sides(names: Sequence[str]) -> tuple[str, str]:
    """PGN's White and Black for any number of seats, so that a PGN tool's game list
    names every player: White is seat 0, Black seat 1, and with more seats Black holds
    seats 1 to N-1 joined as PGN joins several players of a side ("random:mcts");
    "?" (unknown, as PGN writes it) where there is no one."""
    white = names[0] if names else "?"
    black = SIDE_SEPARATOR.join(names[1:]) if len(names) > 1 else "?"
    return white, black


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def format_places(names: Sequence[str], ranks: Sequence[int]) -> str:
    """The Places tag: every player with its place, first to last, as people read a
    result that PGN's Result cannot hold ("1st greedy, 2nd mcts, 3rd random"; tied
    players share the better place, in seat order: "1st a, 1st c, 3rd b")."""
    order = sorted(range(len(ranks)), key=lambda seat: (ranks[seat], seat))
    return ", ".join(f"{ordinal(ranks[seat])} {names[seat] if seat < len(names) else '?'}" for seat in order)



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
    """The seat that decided, or CHANCE (-1). A file does not say which seat: None after
    reading until `GameRecord.actors()` (or replay, or verify) replays the rules once
    and fills every ply's."""
    forced: bool = False
    """Whether the referee played it for a seat removed after a fault."""
    elapsed_ms: float | None = None
    """The bot's thinking time on the referee's clock."""
    cpu_ms: float | None = None
    """The CPU time the bot's processes used for this decision, where it was measured."""
    info: Info | None = None
    """What the bot reported with its action (score, depth, nodes, pv, comment); read
    back from the comment by the reader (`comment_fields`)."""

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
    def places(self) -> str | None:
        """Who came where ("1st greedy, 2nd mcts, 3rd random"): the Places tag, else made
        from the Player and Ranks tags (a record of two seats, or one written before the
        tag existed); None without Ranks, and for a void game (its ranks are no result)."""
        if "Places" in self.tags:
            return self.tags["Places"]
        ranks = self.ranks
        if ranks is None or self.termination == Termination.INFRASTRUCTURE_ERROR:
            return None
        return format_places(self.players, ranks)

    @property
    def scores(self) -> tuple[float, ...] | None:
        text = self.tags.get("Scores")
        return None if text is None else parse_scores(text)

    @property
    def termination(self) -> str | None:
        return self.tags.get("Termination")

    def actors(self) -> list[int]:
        """Who decided each ply, a seat or CHANCE (-1), also kept in each ply's `actor`.
        A file does not say which seat played: the first call on a record read from one
        replays the rules once (`apply_ply`); a record whose plies all know
        their actor (one the referee made, or already asked) is not replayed.
        ReplayError when the rules cannot follow the record (earlier plies stay filled)."""
        if any(ply.actor is None for ply in self.plies):
            state = initial_state(self)
            for index, ply in enumerate(self.plies, 1):
                ply.actor = apply_ply(state, ply, index)
        return [CHANCE if ply.actor is None else ply.actor for ply in self.plies]


class RecordSyntaxError(ArenaError, ValueError):
    """A record file that cannot be read; line and column are 1-based."""

    def __init__(self, line: int, column: int, message: str, path: str | None = None) -> None:
        where = f"line {line}, column {column}"
        super().__init__(f"{path}: {where}: {message}" if path else f"{where}: {message}")
        self.line = line
        self.column = column
        self.message = message
        self.path = path


class ReplayError(ArenaError):
    """A record the rules cannot follow; `ply` is the 1-based number of the ply that
    failed (0 when the game cannot even be set up)."""

    def __init__(self, ply: int, message: str) -> None:
        super().__init__(f"ply {ply}: {message}" if ply else message)
        self.ply = ply
        self.message = message


# ---- one ply through the rules: what replay, verify and GameRecord.actors() share ---------


def initial_state(record: GameRecord) -> State:
    """The starting position for the record's game, seat count and variant options."""
    try:
        game = games.get(record.game_id)
        return game.new_state(record.seats, record.options)
    except KeyError as exc:
        raise ReplayError(0, f"the record has no {exc.args[0]} tag") from None
    except ValueError as exc:  # GameError, or a malformed Seats / Options tag
        raise ReplayError(0, str(exc)) from None


def apply_ply(state: State, ply: Ply, index: int) -> int:
    """Apply ply `index` (1-based), checking it is the right kind of decision; returns
    the actor, kept in the ply when it did not know it (read from a file)."""
    actor = state.current()
    what = f"chance outcome {ply.action!r}" if ply.chance else f"action {ply.action!r}"
    if actor == TERMINAL:
        raise ReplayError(index, f"{what} after the game is over")
    if ply.chance and actor != CHANCE:
        raise ReplayError(index, f"{what} where seat {actor} is to decide")
    if not ply.chance and actor == CHANCE:
        raise ReplayError(index, f"{what} where a chance outcome is due (chance outcomes are marked '~')")
    try:
        state.apply(ply.action)
    except GameError as exc:
        raise ReplayError(index, str(exc)) from None
    except Exception as exc:  # a rules bug met on odd input must not stop a verify run
        raise ReplayError(index, f"the rules failed on {what}: {type(exc).__name__}: {exc}") from None
    if ply.actor is None:
        ply.actor = actor
    return actor


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
