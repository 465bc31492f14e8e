"""What every `arena` command prints through: the consoles, the one-line error exit,
the JSON document of --json, the warnings of what this machine cannot enforce, and the
last words of a match."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arena.errors import ArenaError
from arena.process.spec import Limits
from arena.referee.match import MatchResult
from arena.session.request import PreparedMatch, isolation_notes
from arena.session.runner import ERRORS_LOG, settle_logs, void_games

WORD = re.compile(r"\S+(?: ± \S+)?")
"""What a table's cell must not be wrapped within: a word, or a rating with its error (`+35 ± 20`)."""


def uncut(table: Table, width: int) -> Table:
    """A table that no terminal cuts: no column narrower than its longest word (a header
    such as "decisions/s" or "OpenSkill", a cell such as "time-out"), words longer than
    that folded rather than cut, a rating with its error (`+35 ± 20`) kept whole as one
    word; and when the table would not fit `width` so, drawn
    without vertical rules or padding (a space between columns). A column already set
    to fold keeps its own minimum width (a long bot name may be folded)."""
    needed = 1
    for column in table.columns:
        if column.overflow != "fold":
            cells = [column.header, *column.cells]
            words = [len(word) for cell in cells for word in WORD.findall(_plain(cell))]
            column.min_width = max(column.min_width or 0, *words, 1)
            column.overflow = "fold"
        needed += (column.min_width or 1) + 3
    if needed > width and table.box is not None and table.box.head_vertical != " ":
        table.box, table.padding, table.pad_edge = box.SIMPLE_HEAD, (0, 0, 0, 0), False
    return table


def _plain(cell: object) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return cell if isinstance(cell, str) else ""


class ArenaConsole(Console):
    """The arena's consoles: every table printed is made uncut for the terminal's width.
    Strings are text, not Rich markup (a bot's line "[/x]" or a path "bots[2]" is printed
    as it is, never a MarkupError): styled output says markup=True, or is a Text."""

    def __init__(self, **options: Any) -> None:
        super().__init__(markup=False, **options)

    def print(self, *objects: Any, **options: Any) -> None:
        for item in objects:
            if isinstance(item, Table):
                uncut(item, self.width)
        super().print(*objects, **options)


console = ArenaConsole(soft_wrap=True)
errors = ArenaConsole(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error that names the problem and the fix; the caller raises the result."""
    errors.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)  # "arena[rl]" is text
    return typer.Exit(code)


@contextmanager
def arena_errors() -> Iterator[None]:
    """A problem the library reports (an ArenaError: its message names the fix) ends
    the command with that message and exit code 2, never a traceback."""
    try:
        yield
    except ArenaError as exc:
        raise fail(str(exc)) from None


def warn(note: str) -> None:
    """A warning: something the user should know, that does not stop the command."""
    errors.print(f"[yellow]warning:[/] {escape(note)}", markup=True, highlight=False)


def warn_isolation(limits: Limits) -> None:
    """One warning per run for a sandbox or cgroups that are wanted and missing."""
    for note in isolation_notes(limits):
        warn(note)


@contextmanager
def json_output(enabled: bool) -> Iterator[None]:
    """While a --json command runs, everything for people goes to stderr, so stdout
    holds the JSON document alone."""
    if not enabled:
        yield
        return
    previous = console._file  # None: whatever sys.stdout is at each write
    console.file = sys.stderr
    try:
        yield
    finally:
        console._file = previous  # not sys.stdout as it is now: a caller's stdout may be gone later


def print_json(document: object) -> None:
    """The document on stdout as strict JSON: a figure that is not finite (an Elo of a
    match one bot won every game of) is null."""
    sys.stdout.write(json.dumps(_finite(document), indent=1, allow_nan=False) + "\n")
    sys.stdout.flush()


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def interrupted(match: PreparedMatch, recorded: int) -> typer.Exit:
    """The last words of a match stopped by Ctrl-C (or SIGTERM, SIGHUP), exit 130: what
    became of the games that had finished. A record file made for the match that no
    game reached is removed, not left empty."""
    removed = match.discard_empty_records()
    if match.out is None:
        kept = f"{recorded} game(s) had finished (not recorded: no --out)" if recorded else "no game had finished"
    elif recorded:
        kept = f"the {recorded} game(s) that finished are in {match.out}"
    else:
        kept = "no game had finished, so none was recorded" + (f" (no empty {match.out} is left)" if removed else "")
    return fail(f"interrupted: every bot was stopped; {kept}", 130)


def finish_match(match: PreparedMatch, result: MatchResult) -> None:
    """What `play` and `match` say after a match: where the bots' logs are (a temporary
    folder is removed when no game needs it), then exit 2 for a bot that never started,
    or 1 for games an error of the arena voided."""
    logs = settle_logs(match, result)
    if logs is not None:
        console.print(f"bot logs (stderr): {logs}")
    for name, fault in result.never_ready.items():
        raise fail(f"{name} never started ({fault}); check its command")
    void = void_games(result)
    if void:
        raise fail(f"{len(void)} game(s) were stopped by an error of the arena (a bug: please report it); they are "
                   f"void, not scored, and left out of the records; tracebacks: {match.logs / ERRORS_LOG}", 1)
