"""`arena play`: a game or a match between bots, with its records and a summary."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    BotSeedArg,
    ClockArg,
    CpusArg,
    GraceArg,
    MatchSeedArg,
    MaxProcessesArg,
    MemoryArg,
    NoSandboxArg,
    OptionArg,
    OutArg,
    ScratchArg,
    StartupArg,
    TimePerMoveArg,
    bot_limits,
    bot_specs,
    check_out_file,
    console,
    fail,
    finish_match,
    load_game,
    log_void_game,
    parse_options,
    prepare_log_dir,
    run_trio,
    save_record,
    time_settings,
)
from arena.cli.summary import match_table, outcome_line
from arena.errors import ArenaError
from arena.games.base import CHANCE, State
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import installation_key, random_seed
from arena.referee.spec import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, DEFAULT_SCRATCH_MB, BotSpec
from arena.render import render_state


def play_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt (see `arena games`).")],
    bots: Annotated[list[str], typer.Argument(
        metavar="BOT...",
        help="One bot per seat: a shipped bot's short name (random, random-js, greedy, search, zoo/NAME) "
        "or a command line in quotes, e.g. \"python3 mybot.py\".")],
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games in the match; seats rotate each game.")] = 1,
    seed: MatchSeedArg = None,
    bot_seed: BotSeedArg = None,
    out: OutArg = None,
    time_per_move: TimePerMoveArg = None,
    clock: ClockArg = None,
    startup_time: StartupArg = "10s",
    grace: GraceArg = "20ms",
    watch: Annotated[bool, typer.Option("--watch", help="Draw the board after every turn.")] = False,
    option: OptionArg = None,
    log_dir: Annotated[Path | None, typer.Option(
        "--log-dir", help="Folder for the bots' stderr logs (default: a temporary folder, removed after a match "
        "without faults).")] = None,
    memory_mb: MemoryArg = DEFAULT_MEMORY_MB,
    max_processes: MaxProcessesArg = DEFAULT_PROCESSES,
    cpus: CpusArg = DEFAULT_CPUS,
    scratch_mb: ScratchArg = DEFAULT_SCRATCH_MB,
    no_sandbox: NoSandboxArg = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final table.")] = False,
) -> None:
    """Play a game or a match between bots and print the results.

    Exit code 0 when the games were played (a bot's fault is a result), 1 when a game
    was void by an error of the arena, 2 on a mistake in the command or when a bot
    never started (its command cannot work)."""
    game = load_game(game_id)
    options = parse_options(game, option)
    tc, timing = time_settings(time_per_move, clock, startup_time, grace)
    seed = random_seed() if seed is None else seed
    specs = bot_specs(game, bots, random_seed() if bot_seed is None else bot_seed, options)
    if out is not None:
        check_out_file(out)
        out.touch()  # before any bot starts, so that its sandbox masks it
    logs = prepare_log_dir(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="arena-logs-"))
    limits = bot_limits(memory_mb, max_processes, no_sandbox, cpus, scratch_mb)
    config = MatchConfig(game, options, tc, seed, games, event="arena play", log_dir=logs, limits=limits,
                         timing=timing, chance_key=installation_key(), hidden=(out,) if out else ())
    try:
        result = _run_match(config, specs, out, watch, quiet)
    except BaseException:
        if log_dir is None and not any(logs.glob("arena-*")):
            shutil.rmtree(logs, ignore_errors=True)
        raise
    console.print(match_table(result, game))
    if out is not None:
        console.print(f"records appended to {out}")
    finish_match(result, logs, keep_logs=log_dir is not None)


def _run_match(config: MatchConfig, specs: list[BotSpec], out: Path | None, watch: bool, quiet: bool) -> MatchResult:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True,
                        disable=watch or quiet or not console.is_terminal)
    task = progress.add_task("games", total=config.games)

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        if outcome.void:
            log_void_game(config.log_dir, index, outcome)
        elif out is not None:
            save_record(out, outcome, config.log_dir)
        if not quiet:
            progress.console.print(outcome_line(index, outcome), markup=False, highlight=False)
        progress.advance(task)

    def show(state: State, ply: int) -> None:
        if state.current() != CHANCE:
            console.rule(f"ply {ply}")
            console.print(render_state(config.game.id, state))

    try:
        with progress:
            return run_trio(lambda: play_match(config, specs, done, show if watch else None))
    except KeyboardInterrupt:
        raise fail("interrupted: every bot was stopped; finished games are in the record file", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
