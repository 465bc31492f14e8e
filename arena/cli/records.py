"""`arena replay` and `arena verify`: record files read back, drawn and checked."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from arena import records
from arena.cli.common import (
    console,
    errors,
    fail,
)
from arena.files import unreadable
from arena.games import TERMINAL, GameError
from arena.games.base import State
from arena.records.files import holds_records
from arena.records.record import GameRecord, RecordSyntaxError
from arena.records.replay import ReplayError, state_at, turn_frames, verify
from arena.render import ViewError, render_state
from arena.termination import Termination


def _records(path: Path) -> Iterator[GameRecord]:
    """The games of a record file one by one; a file that cannot be read, or is not a
    record file at all, is a mistake in the command (exit 2); a record file with a
    flaw names its line and column (exit 1)."""
    try:
        if not holds_records(path):
            raise fail(f"{path} is not a record file: its first line is not a tag such as [Game \"btt\"]; give a "
                       "file written by `arena play --out` or a league's records (league.pgn)")
        yield from records.read(path)
    except OSError as exc:
        raise fail(unreadable(path, exc, "record file", "league.pgn")) from None
    except RecordSyntaxError as exc:
        raise fail(str(exc), 1) from None


def nth_record(path: Path, number: int) -> GameRecord:
    """Game `number` (from 1) of a record file; a clear error when there is none."""
    count = 0
    for count, record in enumerate(_records(path), 1):
        if count == number:
            return record
    if count == 0:
        raise fail(f"{path} holds no game: it is empty or has no tag lines", 1)
    raise fail(f"{path} holds {count} game(s); --game must be 1..{count}")


def replay_command(
    path: Annotated[Path, typer.Argument(metavar="FILE", help="A record file written by `arena play`.")],
    game_number: Annotated[int, typer.Option("--game", "-g", min=1, help="Which game of the file (from 1).")] = 1,
    ply: Annotated[int | None, typer.Option("--ply", "-k", min=0, help="Show only the board after this ply.")] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter between turns.")] = False,
    level: Annotated[int | None, typer.Option(
        "--level", min=0, help="Draw only this level (games built in levels, e.g. blox); with --html, the "
        "highest level the page shows at first.")] = None,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write the game as one self-contained HTML page to step through (arrow keys, "
        "slider) instead of drawing it here.")] = None,
) -> None:
    """Draw the board turn by turn (or at one ply) for a recorded game, or export it as
    a self-contained HTML viewer."""
    record = nth_record(path, game_number)
    try:
        game_id = record.game_id
        if html is not None:
            _write_viewer(record, level, html)
            return
        if ply is not None:
            if ply > len(record.plies):
                raise fail(f"game {game_number} has {len(record.plies)} plies; --ply must be 0..{len(record.plies)}")
            console.print(render_state(game_id, state_at(record, ply), level))
            return
        final: State | None = None
        for title, state in turn_frames(record):
            console.rule(title)
            console.print(render_state(game_id, state, level))
            final = state
            if step and sys.stdin.isatty():
                input()
    except (ReplayError, GameError) as exc:
        raise fail(f"game {game_number}: {exc}", 1) from None
    except ViewError as exc:
        raise fail(str(exc)) from None
    tags = record.tags
    if final is not None and final.current() != TERMINAL and tags.get("Termination") == Termination.NORMAL:
        raise fail(f"game {game_number} ends after ply {len(record.plies)} before the game is over, though its "
                   f"Termination says normal: the record was cut short, and its stored result "
                   f"(ranks {tags.get('Ranks', '?')}) is not the rules' result", 1)
    console.print(f"{record.places or 'ranks ' + tags.get('Ranks', '?')}  scores {tags.get('Scores', '-')}  "
                  f"termination {tags.get('Termination', '?')}", highlight=False)


def _write_viewer(record: GameRecord, level: int | None, out: Path) -> None:
    from arena.web.replay import replay_page

    page = replay_page(record, level)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise fail(f"--html {out}: cannot write it ({exc.strerror}); choose a writable path") from None
    console.print(f"wrote {out}: open it in a browser; step with the arrow keys, or add #ply=N to its address")


def verify_command(
    paths: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Record files to check.")],
) -> None:
    """Replay every game of the files through the rules; exit 1 on any illegal action,
    result that does not match the record, or file that holds no game."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bad = 0
    total = 0
    empty: list[Path] = []
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}: {task.completed} game(s)", markup=False),
                        TimeElapsedColumn(), console=errors, transient=True, disable=not errors.is_terminal)
    with progress:
        for path in paths:
            task = progress.add_task(str(path), total=None)
            games = 0
            for index, record in enumerate(_records(path)):
                total += 1
                games += 1
                problems = verify(record, index)
                for problem in problems:
                    where = "" if problem.ply is None else f" ply {problem.ply}"
                    progress.console.print(f"{path}: game {index + 1}{where}: {problem.message}", highlight=False)
                bad += bool(problems)
                progress.advance(task)
            if games == 0:
                empty.append(path)
    if empty:
        raise fail(f"{', '.join(map(str, empty))}: no game in the file (empty, or no tag lines); "
                   "nothing was verified there", 1)
    if bad:
        raise fail(f"{bad} of {total} game(s) failed verification", 1)
    console.print(f"{total} game(s) verified: every action legal, every result matches")
