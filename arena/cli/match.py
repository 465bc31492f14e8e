"""`arena match A B --game G --sprt elo0=0 elo1=10`: a two-bot match in pairs of games
(same seed, colours swapped) that stops as soon as the SPRT decides, like fastchess."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.cli.common import (
    BotSeedArg,
    BotsFileArg,
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
    bot_time_settings,
    check_out_file,
    console,
    fail,
    finish_match,
    load_game,
    log_void_game,
    parse_options,
    registry_from,
    run_trio,
    save_record,
    seat_time_controls,
)
from arena.cli.summary import match_table
from arena.errors import ArenaError, excerpt
from arena.referee.match import MatchConfig, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import installation_key, random_seed
from arena.referee.spec import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, DEFAULT_SCRATCH_MB
from arena.stats.sprt import PairStats, SprtParameters

SPRT_ITEM = re.compile(r"^(elo0|elo1|alpha|beta)=\S*$")
SETTING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=[^\s/]*$")
"""A NAME=VALUE argument: an SPRT setting (a bot's command line never looks like this)."""


def b_points(outcome: GameOutcome, seats: list[int]) -> float:
    """Bot B's (bot index 1) points in a 2-seat game: 1, 0.5 or 0."""
    b_seat = seats.index(1)
    mine, theirs = outcome.ranks[b_seat], outcome.ranks[1 - b_seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def describe_stats(stats: PairStats, params: SprtParameters | None) -> str:
    elo, low, high = stats.elo()
    text = (f"pairs {stats.pairs}  penta {stats.counts}  Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}]  "
            f"LOS {stats.los() * 100:.1f}%")
    if params is not None:
        text += f"  LLR {stats.llr(params):.2f} ({params.lower_bound:.2f}, {params.upper_bound:.2f})"
    return text


def match_command(
    args: Annotated[list[str], typer.Argument(
        metavar="A B [elo0=N elo1=N alpha=P beta=P]",
        help="The two bots (A is the baseline, B the candidate), then the SPRT settings with --sprt.")],
    game_id: Annotated[str, typer.Option("--game", "-g", help="Game id (a 2-seat game), e.g. btt.")],
    games: Annotated[int, typer.Option("--games", "-n", min=2, help="Most games to play (pairs of two).")] = 1000,
    sprt: Annotated[bool, typer.Option(
        "--sprt", help="Stop as soon as the SPRT decides whether B is stronger (defaults elo0=0 elo1=10 "
        "alpha=0.05 beta=0.05).")] = False,
    seed: MatchSeedArg = None,
    bot_seed: BotSeedArg = None,
    out: OutArg = None,
    time_per_move: TimePerMoveArg = None,
    clock: ClockArg = None,
    startup_time: StartupArg = "10s",
    grace: GraceArg = "20ms",
    option: OptionArg = None,
    memory_mb: MemoryArg = DEFAULT_MEMORY_MB,
    max_processes: MaxProcessesArg = DEFAULT_PROCESSES,
    cpus: CpusArg = DEFAULT_CPUS,
    scratch_mb: ScratchArg = DEFAULT_SCRATCH_MB,
    no_sandbox: NoSandboxArg = False,
    bots_file: BotsFileArg = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No line per pair.")] = False,
) -> None:
    """Play A against B in pairs of games with colours swapped and the same seed; print
    B's Elo over A with its 95% interval, the likelihood of superiority and the
    pentanomial counts of the pairs. With --sprt, stop when the test decides."""
    settings = [a for a in args if SETTING.match(a)]
    for item in settings:
        if not SPRT_ITEM.match(item):
            raise fail(f"{excerpt(item)} is not an SPRT setting; write elo0=N, elo1=N, alpha=P or beta=P")
    params_items = settings
    bots = [a for a in args if not SETTING.match(a)]
    if params_items and not sprt:
        raise fail(f"{params_items[0]} is an SPRT setting: add --sprt")
    if len(bots) != 2:
        raise fail(f"a match needs exactly two bots, A and B; got {len(bots)}: {' '.join(bots) or 'none'}")
    try:
        params = SprtParameters.parse(params_items) if sprt else None
    except ValueError as exc:
        raise fail(f"--sprt: {exc}") from None
    game = load_game(game_id)
    if not game.min_seats <= 2 <= game.max_seats:
        raise fail(f"{game.id} is not played by 2 seats; a match pits two bots against each other")
    options = parse_options(game, option)
    if games % 2:
        raise fail(f"--games {games}: a match is played in pairs (same seed, seats swapped); "
                   f"give an even number such as {games + 1}")
    seed = random_seed() if seed is None else seed
    limits = bot_limits(memory_mb, max_processes, no_sandbox, cpus, scratch_mb)
    specs = bot_specs(game, bots, random_seed() if bot_seed is None else bot_seed, options,
                      registry=registry_from(bots_file), limits=limits)
    controls, timing = bot_time_settings(time_per_move, clock, startup_time, grace, len(specs))
    tc = seat_time_controls(specs, controls)
    if out is not None:
        check_out_file(out)
        out.touch()  # before any bot starts, so that its sandbox masks it
    logs = Path(tempfile.mkdtemp(prefix="arena-logs-"))
    config = MatchConfig(game, options, tc, seed, games, event="arena match", log_dir=logs, timing=timing,
                         limits=limits, chance_key=installation_key(), hidden=(out,) if out else ())
    stats = PairStats()
    pending: list[float] = []
    """Points of B in the pair under way; a void game is not part of a pair."""
    decision: list[str] = []
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, transient=True, disable=quiet or not console.is_terminal)
    task = progress.add_task("games", total=games)

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
        progress.advance(task)
        if outcome.void:
            log_void_game(logs, index, outcome)
            voided.append(index)
            return False
        if out is not None:
            save_record(out, outcome, logs)
        pending.append(b_points(outcome, seats))
        if len(pending) < 2:
            return False
        stats.add_pair(sum(pending))
        pending.clear()
        if not quiet:
            progress.console.print(describe_stats(stats, params), highlight=False)
        if params is not None and (verdict := stats.decision(params)):
            decision.append(verdict)
            return True
        return False

    voided: list[int] = []
    try:
        with progress:
            result = run_trio(lambda: play_match(config, specs, done))
    except KeyboardInterrupt:
        raise fail("interrupted: every bot was stopped", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
    console.print(match_table(result, game))
    names = result.names
    console.print(f"{names[1]} vs {names[0]}: " + describe_stats(stats, params), highlight=False)
    if params is not None:
        if decision == ["H1"]:
            verdict = f"H1 accepted: {names[1]} is stronger than {names[0]} (elo1 = {params.elo1:g})"
        elif decision == ["H0"]:
            verdict = f"H0 accepted: {names[1]} is not stronger than {names[0]} by elo0 = {params.elo0:g}"
        else:
            verdict = f"no decision after {len(result.outcomes)} games (raise --games)"
        console.print(f"SPRT elo0={params.elo0:g} elo1={params.elo1:g} alpha={params.alpha:g} "
                      f"beta={params.beta:g}: {verdict}", highlight=False)
    finish_match(result, logs, keep_logs=False)
