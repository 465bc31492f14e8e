"""Playing prepared matches: each finished game appended to the record file as it ends
(a game voided by the arena's own error logged instead), several tables of one match
played at once and their results merged, and Trio run from synchronous code so that
every bot is killed and reaped however the run ends."""

from __future__ import annotations

import contextlib
import shutil
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import trio

from arena import records
from arena.errors import ArenaError
from arena.process.spec import BotSpec
from arena.records.files import append
from arena.referee.match import (
    AsyncGameDone,
    GameDone,
    MatchConfig,
    MatchResult,
    PlannedGame,
    planned_games,
    play_match,
)
from arena.referee.outcome import GameOutcome
from arena.referee.referee import Watcher
from arena.session.request import PreparedMatch

T = TypeVar("T")

ERRORS_LOG = "arena-errors.log"
"""Where the tracebacks of void games go, in the log folder."""


class RecordWriteError(ArenaError):
    """The records file could not be appended to in the middle of a match."""


def save_record(out: Path, outcome: GameOutcome, log_dir: Path | None) -> None:
    """Append a finished game to the records file; if that fails (a full disk), keep the
    game in the log folder and stop the match with a RecordWriteError."""
    try:
        append(out, outcome.record)
        return
    except OSError as exc:
        problem = exc.strerror or str(exc)
    kept = ""
    if log_dir is not None:
        try:
            append(log_dir / "unsaved-games.pgn", outcome.record)
            kept = f"; this game was saved in {log_dir / 'unsaved-games.pgn'}"
        except OSError:
            pass
    raise RecordWriteError(f"cannot append to {out} ({problem}){kept}; the match was stopped")


def log_void_game(log_dir: Path | None, index: int, outcome: GameOutcome) -> None:
    """The traceback and the partial record of a game voided by the arena's own error."""
    if log_dir is None:
        return
    with contextlib.suppress(OSError), (log_dir / ERRORS_LOG).open("a", encoding="utf-8") as log:
        log.write(f"--- game {index + 1}\n{outcome.error}\n{records.write(outcome.record)}\n")


def keeping(out: Path | None, log_dir: Path | None, then: GameDone | None = None) -> GameDone:
    """A game-done callback that keeps each game (its record appended to `out`, or, for
    a void game, its traceback logged) before `then` sees it."""

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool | None:
        if outcome.void:
            log_void_game(log_dir, index, outcome)
        elif out is not None:
            save_record(out, outcome, log_dir)
        return None if then is None else then(index, outcome, seats)

    return done


async def play_prepared(match: PreparedMatch, on_game: GameDone | None = None,
                        watcher: Watcher | None = None, concurrency: int = 1) -> MatchResult:
    """Play a prepared match, keeping each game as it ends; `on_game` sees each game
    after it is kept (returning True stops the match), `watcher` every ply. With
    `concurrency` above 1, that many seat rotations are played at once, each table with
    its own bots and log folder; `on_game` then sees each game by its number in the
    match, and the result holds the games in match order."""
    config = match.config
    tables = rotation_tables(config, len(match.specs), concurrency)
    if len(tables) < 2:
        return await play_match(config, match.specs, keeping(match.out, config.log_dir, on_game), watcher)
    logs = config.log_dir
    hidden = config.hidden + ((logs,) if logs is not None else ())
    configs = [replace(config, games=len(table), plan=tuple(planned for _, planned in table), openings=(),
                       log_dir=None if logs is None else logs / f"table-{k + 1}", hidden=hidden)
               for k, table in enumerate(tables)]
    numbers = [[number for number, _ in table] for table in tables]

    def table_done(table: int) -> GameDone:
        def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool | None:
            return None if on_game is None else on_game(numbers[table][index], outcome, seats)

        return keeping(match.out, logs, done)

    return await play_tables(configs, match.specs, table_done, numbers, watcher)


def rotation_tables(config: MatchConfig, bots: int, tables: int) -> list[list[tuple[int, PlannedGame]]]:
    """The match's games dealt to `tables` tables a seat rotation at a time, in turn
    (rotation k to table k mod tables), each with its number in the match, which it
    tells the bots (so a seeded bot plays it alike at any concurrency)."""
    dealt: list[list[tuple[int, PlannedGame]]] = [[] for _ in range(max(1, tables))]
    for number, planned in enumerate(planned_games(config, bots)):
        own = planned if planned.match_game is not None else replace(planned, match_game=number)
        dealt[number // bots % len(dealt)].append((number, own))
    return [table for table in dealt if table]


def settle_logs(match: PreparedMatch, result: MatchResult) -> Path | None:
    """The bots' log folder once the match is over, or None where it was a temporary
    folder no game needs (no fault, no void game, nothing asked to be kept): removed."""
    if match.keep_logs or any(o.void or o.faults for o in result.outcomes):
        return match.logs
    shutil.rmtree(match.logs, ignore_errors=True)
    return None


def void_games(result: MatchResult) -> list[GameOutcome]:
    """The games an error of the arena stopped (void, not scored, not recorded)."""
    return [o for o in result.outcomes if o.void]


async def play_tables(configs: Sequence[MatchConfig], specs: Sequence[BotSpec],
                      on_game: Callable[[int], GameDone | AsyncGameDone],
                      numbers: Sequence[Sequence[int]] | None = None, watcher: Watcher | None = None) -> MatchResult:
    """Play one match on several tables at once, each with its own copies of the bots;
    `on_game(table)` is table `table`'s game-done callback, `watcher` sees the plies of
    every table. The results are merged in table order, or in the order of the games'
    `numbers` in the match (one list per table) where given."""
    results: list[MatchResult] = [MatchResult([]) for _ in configs]

    async def table(k: int) -> None:
        results[k] = await play_match(configs[k], [replace(s) for s in specs], on_game(k), watcher)

    async with trio.open_nursery() as nursery:
        for k in range(len(configs)):
            nursery.start_soon(table, k)
    merged = MatchResult(results[0].names)
    games: list[tuple[int, GameOutcome, list[int]]] = []
    for k, part in enumerate(results):
        order = numbers[k] if numbers is not None else range(len(games), len(games) + len(part.outcomes))
        games += zip(order, part.outcomes, part.seatings, strict=False)
        merged.never_ready.update(part.never_ready)
    games.sort(key=lambda game: game[0])
    merged.outcomes = [outcome for _, outcome, _ in games]
    merged.seatings = [seats for _, _, seats in games]
    return merged


def run_sync(main: Callable[[], Awaitable[T]], *, stop_on_signals: bool = False) -> T:
    """Run async work from synchronous code; an ArenaError raised inside comes out as
    itself, not wrapped in exception groups, and Ctrl-C (with `stop_on_signals`, also
    SIGTERM and SIGHUP) comes out as KeyboardInterrupt. In every case the bots are
    killed and reaped before this returns or raises."""
    results: list[T] = []
    interrupted = False

    async def guarded() -> None:
        nonlocal interrupted
        if not stop_on_signals:
            results.append(await main())
            return
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    nonlocal interrupted
                    async for _ in signals:
                        interrupted = True
                        nursery.cancel_scope.cancel()

                nursery.start_soon(watch)
                results.append(await main())
                nursery.cancel_scope.cancel()

    try:
        trio.run(guarded, restrict_keyboard_interrupt_to_checkpoints=True)
    except BaseExceptionGroup as group:
        interrupts, rest = group.split(KeyboardInterrupt)
        if rest is not None:
            arena_errors, others = rest.split(ArenaError)
            if others is None and arena_errors is not None:
                raise first_leaf(arena_errors) from None
            raise
        raise KeyboardInterrupt from None
    if interrupted or not results:
        raise KeyboardInterrupt
    return results[0]


def first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first exception of a (nested) group, for a group made of one kind of error."""
    first = group.exceptions[0]
    return first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
