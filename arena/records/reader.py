"""Reading records from text. The reader never trusts its input: any problem is a
RecordSyntaxError naming the line, the column and what is wrong, and memory holds one
game at a time however large the input.

Each ply gets back what the writer put in its comment (forced, times, the bot's Info,
free text). The reader is lexical and does not run the rules: each ply's `actor` is
filled by `GameRecord.actors()` (one replay, when asked) or any replay of the record."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from arena.errors import excerpt
from arena.records.record import GameRecord, Ply, RecordSyntaxError, tag_value_problem
from arena.records.syntax import ESCAPE_SEQ_RE, RESULT_MARKERS, TURN_LIKE_RE, UNESCAPES, clean_comment, comment_fields

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
    marker: str | None = None
    """The game termination marker that ended the move text (PGN), if any."""

    def add_tag(self, name: str, value: str, line: int, column: int) -> None:
        if len(self.tags) >= MAX_TAGS:
            raise RecordSyntaxError(line, column, f"more than {MAX_TAGS} tags in one game")
        if name in self.tags:
            raise RecordSyntaxError(line, column, f"duplicate tag {name} (first on line {self.tag_lines[name]})")
        problem = tag_value_problem(name, value)
        if problem is not None:
            raise RecordSyntaxError(line, column, problem)
        self.tags[name] = value
        self.tag_lines[name] = line

    def end_with(self, marker: str, line: int, column: int) -> None:
        """PGN's termination marker: the last token of the move text."""
        self._check_not_ended(line, column)
        self._check_turn_has_action()
        result = self.tags.get("Result")
        if result is not None and result != marker:
            raise RecordSyntaxError(line, column, f"the move text ends with {marker} but the Result tag says {result}")
        self.marker = marker
        self.can_comment = False

    def _check_not_ended(self, line: int, column: int) -> None:
        if self.marker is not None:
            raise RecordSyntaxError(line, column, f"text after the game's termination marker {self.marker}")

    def start_turn(self, number: int, line: int, column: int) -> None:
        self._check_not_ended(line, column)
        self._check_turn_has_action()
        if number <= self.turn:
            raise RecordSyntaxError(line, column, f"turn number {number} after turn {self.turn}: "
                                                  "turn numbers must increase")
        if number < 1:
            raise RecordSyntaxError(line, column, "turn numbers start at 1")
        self.turn, self.turn_pos, self.turn_has_action = number, (line, column), False
        self.can_comment = False

    def add_action(self, action: str, chance: bool, line: int, column: int) -> None:
        self._check_not_ended(line, column)
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
        ply = self.plies[-1]  # the fields the writer renders, read back
        ply.forced, ply.elapsed_ms, ply.cpu_ms, ply.info, ply.comment = comment_fields(clean_comment(comment))
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


def read_text(text: str) -> list[GameRecord]:
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
    for match in ESCAPE_SEQ_RE.finditer(body):
        code = match.group(1)
        parts.append(body[pos:match.start()])
        if code in UNESCAPES:
            parts.append(UNESCAPES[code])
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
        elif kind == "bare" and match.group("chance") is None and match.group("bare") in RESULT_MARKERS:
            game.end_with(match.group("bare"), number, column)
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
    if TURN_LIKE_RE.match(bare):
        raise RecordSyntaxError(number, column,
                                f"an action that looks like a turn number must be quoted: {excerpt(bare)}")
    return bare
