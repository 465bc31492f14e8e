"""Game records: the model and the PGN-like text format (docs/records.md).

One module holds both the writer and the reader so that the two cannot drift apart:
every record the writer accepts reads back equal, and a file the writer produced is
written again byte for byte. The reader never trusts its input: any problem is a
RecordSyntaxError naming the line, the column and what is wrong.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Final

from arena.errors import excerpt

__all__ = [
    "Ply", "GameRecord", "RecordSyntaxError", "STANDARD_TAGS", "LINE_WIDTH",
    "turn_numbers", "format_ranks", "format_scores", "parse_ranks", "parse_scores", "parse_options",
    "write_record", "write_records", "read_records", "iter_records", "read_record_file", "iter_record_file",
    "append_record", "MAX_LINE_CHARS", "MAX_PLIES",
]

LINE_WIDTH: Final = 79
"""Move text lines are wrapped to this width (a single longer token gets a line of its own)."""

STANDARD_TAGS: Final = (
    "Event", "Site", "Date", "Round", "Game", "Options", "Seats",
    # Player0 .. PlayerN-1 go here, by seat number
    "Seed", "TimeControl", "Ranks", "Scores", "Termination", "TerminationDetail", "Plies",
)
"""The writer's tag order; Player tags follow Seats, any other tag comes last."""

_PLAYERS_AFTER: Final = "Seats"


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
    """Free text such as "12ms score=0.31"; the writer turns '}' into ')'."""


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


class RecordSyntaxError(ValueError):
    """A record file that cannot be read; line and column are 1-based."""

    def __init__(self, line: int, column: int, message: str, path: str | None = None) -> None:
        where = f"line {line}, column {column}"
        super().__init__(f"{path}: {where}: {message}" if path else f"{where}: {message}")
        self.line = line
        self.column = column
        self.message = message
        self.path = path


def turn_numbers(actors: Iterable[int]) -> list[int]:
    """The turn number of each ply, given who acted (a seat, or CHANCE = -1): a new turn
    starts exactly when the actor changes."""
    numbers: list[int] = []
    turn = 0
    previous: int | None = None
    for actor in actors:
        if actor != previous:
            turn += 1
            previous = actor
        numbers.append(turn)
    return numbers


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


# ---- shared lexical rules ----------------------------------------------------------------

_TAG_NAME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PLAYER_TAG_RE: Final = re.compile(r"Player(0|[1-9][0-9]{0,5})")
_TO_ESCAPE_RE: Final = re.compile(r'[\\"\x00-\x1f\x7f]')
_ESCAPES: Final = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES: Final = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_ESCAPE_SEQ_RE: Final = re.compile(r"\\(x[0-9A-Fa-f]{2}|.)")
_TURN_LIKE_RE: Final = re.compile(r"\d+\.")
_NEEDS_QUOTES_RE: Final = re.compile(r'[\s"{}\x00-\x1f\x7f]')
_COMMENT_BAD_RE: Final = re.compile(r"[}\x00-\x1f\x7f]")


def _escape(text: str) -> str:
    """Backslash-escape what cannot stand inside double quotes on one line."""
    if _TO_ESCAPE_RE.search(text) is None:
        return text
    return _TO_ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def _needs_quotes(action: str) -> bool:
    """Whether a bare action would read back as something else (or not at all)."""
    return (
        not action
        or action[0] in "~[;"
        or _NEEDS_QUOTES_RE.search(action) is not None
        or _TURN_LIKE_RE.match(action) is not None
    )


def _tag_value_problem(name: str, value: str) -> str | None:
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


# ---- writing -----------------------------------------------------------------------------


def write_record(game: GameRecord) -> str:
    """One game as text: tag lines, a blank line, the move text lines (each line ends
    with a newline). ValueError if the record could not be read back as it is."""
    _check_tags(game.tags)
    lines = [f'[{name} "{_escape(game.tags[name])}"]' for name in _ordered_tag_names(game.tags)]
    lines.append("")
    lines.extend(_wrap(_movetext_units(game.plies)))
    return "\n".join(lines) + "\n"


def write_records(games: Iterable[GameRecord]) -> str:
    """Several games, a blank line between them."""
    return "\n".join(write_record(game) for game in games)


def _ordered_tag_names(tags: dict[str, str]) -> list[str]:
    """Standard tags in the standard order (players by seat after Seats), then the rest
    in insertion order."""
    players = sorted((name for name in tags if _PLAYER_TAG_RE.fullmatch(name)), key=lambda n: int(n[6:]))
    ordered: list[str] = []
    for name in STANDARD_TAGS:
        if name in tags:
            ordered.append(name)
        if name == _PLAYERS_AFTER:
            ordered.extend(players)
    known = set(ordered)
    ordered.extend(name for name in tags if name not in known)
    return ordered


def _check_tags(tags: dict[str, str]) -> None:
    for name, value in tags.items():
        if _TAG_NAME_RE.fullmatch(name) is None:
            raise ValueError(f"tag name {excerpt(name)} must be a letter then letters, digits or '_'")
        problem = _tag_value_problem(name, value)
        if problem is not None:
            raise ValueError(problem)
    for required in ("Game", "Seats"):
        if required not in tags:
            raise ValueError(f"a record needs a {required} tag")


def _movetext_units(plies: list[Ply]) -> Iterator[list[str]]:
    """Per ply, its tokens: the turn number when a turn starts, the action (chance ones
    prefixed with '~'), the comment. A ply's tokens share a line when they fit."""
    turn = 0
    for index, ply in enumerate(plies, 1):
        if ply.turn < turn or ply.turn < 1:
            raise ValueError(f"ply {index} has turn number {ply.turn} after turn {turn}; "
                             "turn numbers start at 1 and never decrease")
        unit: list[str] = []
        if ply.turn != turn:
            turn = ply.turn
            unit.append(f"{turn}.")
        action = f'"{_escape(ply.action)}"' if _needs_quotes(ply.action) else ply.action
        unit.append("~" + action if ply.chance else action)
        if ply.comment is not None:
            unit.append("{" + _clean_comment(ply.comment) + "}")
        yield unit


def _clean_comment(comment: str) -> str:
    """'}' would end the comment early and control characters would break the line."""
    if _COMMENT_BAD_RE.search(comment) is None:
        return comment
    return _COMMENT_BAD_RE.sub(lambda m: ")" if m.group() == "}" else " ", comment)


def _wrap(units: Iterable[list[str]]) -> list[str]:
    """Greedy wrap with single spaces: a ply's tokens stay on one line when they fit in
    LINE_WIDTH, otherwise they wrap between tokens; only a single token longer than the
    width makes a longer line (alone)."""
    lines: list[str] = []
    current: list[str] = []
    width = -1  # the width of `current` joined, -1 when empty

    def add(text: str) -> None:
        nonlocal current, width
        if current and width + 1 + len(text) > LINE_WIDTH:
            lines.append(" ".join(current))
            current, width = [], -1
        current.append(text)
        width += 1 + len(text)

    for unit in units:
        joined = " ".join(unit)
        if len(joined) <= LINE_WIDTH:
            add(joined)
        else:
            for token in unit:
                add(token)
    if current:
        lines.append(" ".join(current))
    return lines


# ---- reading -----------------------------------------------------------------------------

_TAG_HEAD_RE: Final = re.compile(r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]+(?=")')
_QUOTED_RE: Final = re.compile(r'"((?:[^"\\]|\\.)*)"')
_TAG_TAIL_RE: Final = re.compile(r"[ \t]*\]")
_TOKEN_RE: Final = re.compile(
    r"""[ \t]*(?:
        (?P<turn>\d+)\.
      | (?P<chance>~)?(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>[^ \t"{}]+))
      | \{(?P<comment>[^}]*)\}
      | (?P<bad>.)
    )""",
    re.VERBOSE,
)
_BAD_TOKEN: Final = {
    '"': "unterminated quoted action (a quote must close on the same line)",
    "{": "unterminated comment (a comment must close on the same line)",
    "}": "'}' without a '{' before it",
    "~": "'~' must be followed at once by the chance outcome",
}


@dataclass
class _GameBuilder:
    """A game being read: its tags with their line numbers, and its move text so far."""

    first_line: int
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    plies: list[Ply] = field(default_factory=list)
    turn: int = 0
    turn_pos: tuple[int, int] = (0, 0)
    turn_has_action: bool = True
    can_comment: bool = False

    def add_tag(self, name: str, value: str, line: int, column: int) -> None:
        if len(self.tags) >= MAX_TAGS:
            raise RecordSyntaxError(line, column, f"more than {MAX_TAGS} tags in one game")
        if name in self.tags:
            raise RecordSyntaxError(line, column, f"duplicate tag {name} (first on line {self.tag_lines[name]})")
        problem = _tag_value_problem(name, value)
        if problem is not None:
            raise RecordSyntaxError(line, column, problem)
        self.tags[name] = value
        self.tag_lines[name] = line

    def start_turn(self, number: int, line: int, column: int) -> None:
        self._check_turn_has_action()
        if number <= self.turn:
            raise RecordSyntaxError(line, column, f"turn number {number} after turn {self.turn}: "
                                                  "turn numbers must increase")
        if number < 1:
            raise RecordSyntaxError(line, column, "turn numbers start at 1")
        self.turn, self.turn_pos, self.turn_has_action = number, (line, column), False
        self.can_comment = False

    def add_action(self, action: str, chance: bool, line: int, column: int) -> None:
        if self.turn == 0:
            raise RecordSyntaxError(line, column, "the move text must start with a turn number such as '1.'")
        if len(self.plies) >= MAX_PLIES:
            raise RecordSyntaxError(line, column, f"more than {MAX_PLIES} plies in one game")
        self.plies.append(Ply(self.turn, action, chance))
        self.turn_has_action = self.can_comment = True

    def add_comment(self, comment: str, line: int, column: int) -> None:
        if not self.can_comment:
            raise RecordSyntaxError(line, column, "a comment must directly follow an action "
                                                  "(and an action has at most one)")
        self.plies[-1].comment = _clean_comment(comment)  # as the writer would have it
        self.can_comment = False

    def finish(self) -> GameRecord:
        self._check_turn_has_action()
        for required in ("Game", "Seats"):
            if required not in self.tags:
                raise RecordSyntaxError(self.first_line, 1, f"the game starting here has no {required} tag")
        return GameRecord(self.tags, self.plies)

    def _check_turn_has_action(self) -> None:
        if not self.turn_has_action:
            raise RecordSyntaxError(*self.turn_pos, f"turn {self.turn} has no actions")


MAX_LINE_CHARS: Final = 1 << 20
"""Longest line a reader accepts (the writer's lines are under 8 KB; records written
before comments were capped may hold a 1 MB comment)."""

MAX_PLIES: Final = 100_000
"""Most plies one game may hold; no game of the arena comes near it."""

MAX_TAGS: Final = 1000
"""Most tags one game may hold."""


def read_records(text: str) -> list[GameRecord]:
    """Every game in a record text. Accepts a leading BOM and CRLF line ends; raises
    RecordSyntaxError (1-based line and column) on anything else that is not the format."""
    return list(iter_records(text.split("\n")))


def iter_records(lines: Iterable[str]) -> Iterator[GameRecord]:
    """The games of a record text given line by line (newlines optional), each yielded
    as soon as it is complete, so memory holds one game at a time."""
    game: _GameBuilder | None = None
    in_tags = False
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n").rstrip("\r").rstrip(" \t")
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if len(line) > MAX_LINE_CHARS:
            raise RecordSyntaxError(number, 1, f"line of {len(line)} characters; a record line has at most "
                                               f"{MAX_LINE_CHARS}: this is not a record file")
        start = len(line) - len(line.lstrip(" \t"))
        if start == len(line):  # blank: ends a tag block
            in_tags = False
        elif line[start] == "[":
            if game is None or not in_tags:  # a tag after a blank or move text starts a game
                if game is not None:
                    yield game.finish()
                game, in_tags = _GameBuilder(number), True
            _read_tag_line(game, line, number, start)
        else:
            if game is None:
                raise RecordSyntaxError(number, start + 1, "move text before any tag (a game starts with "
                                                           'tag lines such as [Game "btt"])')
            in_tags = False
            _read_movetext_line(game, line, number)
    if game is not None:
        yield game.finish()


def _read_tag_line(game: _GameBuilder, line: str, number: int, start: int) -> None:
    """`[Name "value"]`, spaces allowed around the parts."""
    head = _TAG_HEAD_RE.match(line, start)
    if head is None:
        raise RecordSyntaxError(number, start + 1, 'bad tag line: expected [Name "value"] with a name of '
                                                   "letters, digits and '_' and the value in double quotes")
    value, end = _read_quoted(line, head.end(), number, "tag value")
    tail = _TAG_TAIL_RE.match(line, end)
    if tail is None:
        raise RecordSyntaxError(number, _next_column(line, end), "bad tag line: expected ']' after the value")
    if tail.end() != len(line):
        raise RecordSyntaxError(number, _next_column(line, tail.end()), "bad tag line: text after the ']'")
    game.add_tag(head.group(1), value, number, start + 1)


def _next_column(line: str, pos: int) -> int:
    """1-based column of the first non-blank character at or after `pos`."""
    return len(line) - len(line[pos:].lstrip(" \t")) + 1


def _read_quoted(line: str, pos: int, number: int, what: str) -> tuple[str, int]:
    """The unescaped text of the quoted string opening at `pos`, and the index after it."""
    match = _QUOTED_RE.match(line, pos)
    if match is None:
        raise RecordSyntaxError(number, pos + 1, f"unterminated quoted {what} (it must close on the same line)")
    return _unescape(match.group(1), number, pos + 2), match.end()


def _unescape(body: str, number: int, column: int) -> str:
    """Undo _escape; `column` is the 1-based column of body's first character."""
    if "\\" not in body:
        return body
    parts: list[str] = []
    pos = 0
    for match in _ESCAPE_SEQ_RE.finditer(body):
        code = match.group(1)
        parts.append(body[pos:match.start()])
        if code in _UNESCAPES:
            parts.append(_UNESCAPES[code])
        elif len(code) == 3:
            parts.append(chr(int(code[1:], 16)))
        else:
            raise RecordSyntaxError(number, column + match.start(),
                                    f"unknown escape '\\{code}' (use \\\\, \\\", \\n, \\r, \\t or \\xHH)")
        pos = match.end()
    parts.append(body[pos:])
    return "".join(parts)


def _read_movetext_line(game: _GameBuilder, line: str, number: int) -> None:
    """Feed the tokens of one move text line (trailing blanks already stripped) to the game."""
    for match in _TOKEN_RE.finditer(line):
        kind = match.lastgroup
        column = match.start(kind) + 1 if kind else match.start() + 1
        if kind == "turn":
            digits = match.group("turn")
            if len(digits) > 9:
                raise RecordSyntaxError(number, column, f"turn number {digits[:12]}... is too large")
            game.start_turn(int(digits), number, column)
        elif kind in ("quoted", "bare"):
            chance = match.group("chance") is not None
            action = _action(match, number)
            game.add_action(action, chance, number, match.start("chance") + 1 if chance else column)
        elif kind == "comment":
            game.add_comment(match.group("comment"), number, column - 1)
        else:
            bad = match.group("bad")
            raise RecordSyntaxError(number, column, _BAD_TOKEN.get(bad, f"unexpected {bad!r}"))


def _action(match: re.Match[str], number: int) -> str:
    quoted = match.group("quoted")
    if quoted is not None:
        return _unescape(quoted, number, match.start("quoted") + 1)
    bare = match.group("bare")
    column = match.start("bare") + 1
    if bare == "~" and match.group("chance") is None:
        raise RecordSyntaxError(number, column, _BAD_TOKEN["~"])
    if bare[0] in "~[;":
        raise RecordSyntaxError(number, column, f"an action starting with {bare[0]!r} must be quoted")
    if _TURN_LIKE_RE.match(bare):
        raise RecordSyntaxError(number, column,
                                f"an action that looks like a turn number must be quoted: {excerpt(bare)}")
    return bare


def read_record_file(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every game in a record file; errors name the file. OSError (FileNotFoundError,
    IsADirectoryError...) passes through."""
    return list(iter_record_file(path))


def iter_record_file(path: str | os.PathLike[str]) -> Iterator[GameRecord]:
    """The games of a record file one at a time, read in bounded memory: lines longer
    than MAX_LINE_CHARS, text that is not UTF-8 and games beyond MAX_PLIES are
    RecordSyntaxErrors naming the file, line and column."""
    with open(path, "rb") as handle:
        try:
            yield from iter_records(_decoded_lines(handle))
        except RecordSyntaxError as exc:
            raise RecordSyntaxError(exc.line, exc.column, exc.message, str(path)) from None


def _decoded_lines(handle: BinaryIO) -> Iterator[str]:
    """Lines of a binary file as text; a line too long to be a record's, or bytes that
    are not UTF-8, stop the reading with the line and column."""
    number = 0
    while True:
        data = handle.readline(4 * MAX_LINE_CHARS + 2)
        if not data:
            return
        number += 1
        if not data.endswith(b"\n") and len(data) > 4 * MAX_LINE_CHARS:
            raise RecordSyntaxError(number, 1, f"line longer than {MAX_LINE_CHARS} characters: this is not "
                                               "a record file")
        try:
            yield data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordSyntaxError(number, exc.start + 1, "not UTF-8 text") from None


def append_record(path: str | os.PathLike[str], game: GameRecord) -> None:
    """Append one game to a record file (created if missing) with a single write, then
    fsync, so a crash can at worst tear the game being written, never an earlier one.
    A torn last line left by an earlier crash is ended first, so the new game still
    starts on a line of its own."""
    text = write_record(game).encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _lock(fd)
        size = os.fstat(fd).st_size
        if size:
            last = os.pread(fd, 1, size - 1)
            text = (b"\n" if last == b"\n" else b"\n\n") + text
        view = memoryview(text)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    if size == 0:
        _fsync_directory(Path(path).parent)


def _lock(fd: int) -> None:
    """Serialise appenders from several processes, where the platform can."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd closes


def _fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (a no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
