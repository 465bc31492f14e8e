"""`arena match A B --game G --sprt elo0=0 elo1=10`: a two-bot match in pairs of games
(same seed, colours swapped) that stops as soon as the SPRT decides, like fastchess."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import trio
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arena.cli.common import (
    BotSeedArg,
    BotsFileArg,
    ClockArg,
    CpusArg,
    GraceArg,
    JsonArg,
    LogProtocolArg,
    MatchSeedArg,
    MaxProcessesArg,
    MemoryArg,
    NoSandboxArg,
    OpeningsArg,
    OptionArg,
    OutArg,
    RandomOpeningArg,
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
    json_output,
    load_game,
    log_void_game,
    openings_from,
    parse_options,
    print_json,
    registry_from,
    run_trio,
    save_record,
    seat_time_controls,
)
from arena.cli.summary import match_document, match_table
from arena.errors import ArenaError, excerpt
from arena.referee.match import MatchConfig, MatchResult, PlannedGame, opening_of_cycle, play_match
from arena.referee.openings import Opening
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import cycle_seed, installation_key, random_seed, rotated
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
    concurrency: Annotated[int, typer.Option(
        "--concurrency", "-c", min=1, max=256, help="Games played at once (each pair of games on one table of "
        "its own bots); default 1.")] = 1,
    json_flag: JsonArg = False,
    log_protocol: LogProtocolArg = False,
    openings: OpeningsArg = None,
    random_opening: RandomOpeningArg = 0,
) -> None:
    """Play A against B in pairs of games with colours swapped and the same seed; print
    B's Elo over A with its 95% interval, the likelihood of superiority and the
    pentanomial counts of the pairs. With --sprt, stop when the test decides."""
    with json_output(json_flag):
        _match(args, game_id, games, sprt, seed, bot_seed, out, time_per_move, clock, startup_time, grace, option,
               memory_mb, max_processes, cpus, scratch_mb, no_sandbox, bots_file, quiet, concurrency, json_flag,
               log_protocol, openings, random_opening)


def _plans(games: int, seed: int, tables: int, book: tuple[Opening, ...] = ()) -> list[tuple[PlannedGame, ...]]:
    """The match's games, pair by pair (same seed and opening, seats swapped), dealt to
    `tables` tables: pair k goes to table k mod tables."""
    plans: list[list[PlannedGame]] = [[] for _ in range(tables)]
    for pair in range(games // 2):
        for second in (0, 1):
            index = 2 * pair + second
            plans[pair % tables].append(PlannedGame(rotated((0, 1), second), cycle_seed(seed, pair), str(index + 1),
                                                    opening_of_cycle(book, pair)))
    return [tuple(plan) for plan in plans if plan]


def _match(args: list[str], game_id: str, games: int, sprt: bool, seed: int | None, bot_seed: int | None,
           out: Path | None, time_per_move: str | None, clock: str | None, startup_time: str, grace: str,
           option: list[str] | None, memory_mb: int, max_processes: int, cpus: float, scratch_mb: int,
           no_sandbox: bool, bots_file: Path | None, quiet: bool, concurrency: int, json_flag: bool,
           log_protocol: bool, openings: Path | None, random_opening: int) -> None:
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
    book = openings_from(openings, random_opening, game, 2, options)
    logs = Path(tempfile.mkdtemp(prefix="arena-logs-"))
    plans = _plans(games, seed, concurrency, book)
    configs = [MatchConfig(game, options, tc, seed, len(plan), event="arena match", log_dir=logs / f"table-{k + 1}",
                           timing=timing, limits=limits, plan=plan, chance_key=installation_key(),
                           hidden=(out, logs) if out else (logs,), log_protocol=log_protocol,
                           random_opening=random_opening)
               for k, plan in enumerate(plans)]
    stats = PairStats()
    pairs: dict[str, list[float]] = {}
    """Points of B in each pair under way, by its seed; a void game is not part of a pair."""
    decision: list[str] = []
    voided: list[int] = []
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=True,
                        disable=quiet or not console.is_terminal)
    task = progress.add_task("games", total=games)
    played = [0]

    def done_for(table: int) -> Callable[[int, GameOutcome, list[int]], bool]:
        def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
            progress.advance(task)
            played[0] += 1
            if outcome.void:
                log_void_game(logs, played[0] - 1, outcome)
                voided.append(index)
                return bool(decision)
            if out is not None:
                save_record(out, outcome, logs)
            points = pairs.setdefault(str(plans[table][index].seed), [])
            points.append(b_points(outcome, seats))
            if len(points) < 2:
                return bool(decision)
            stats.add_pair(sum(points))
            del pairs[str(plans[table][index].seed)]
            if not quiet:
                progress.console.print(describe_stats(stats, params), highlight=False)
            if params is not None and not decision and (verdict := stats.decision(params)):
                decision.append(verdict)
            return bool(decision)

        return done

    async def all_tables() -> MatchResult:
        results: list[MatchResult] = [MatchResult([]) for _ in configs]

        async def table(k: int) -> None:
            results[k] = await play_match(configs[k], [replace(s) for s in specs], done_for(k))

        async with trio.open_nursery() as nursery:
            for k in range(len(configs)):
                nursery.start_soon(table, k)
        merged = MatchResult(results[0].names)
        for part in results:
            merged.outcomes += part.outcomes
            merged.seatings += part.seatings
            merged.pgids += part.pgids
            merged.never_ready.update(part.never_ready)
        return merged

    try:
        with progress:
            result = run_trio(all_tables)
    except KeyboardInterrupt:
        raise fail("interrupted: every bot was stopped", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
    console.print(match_table(result, game))
    names = result.names
    console.print(f"{names[1]} vs {names[0]}: " + describe_stats(stats, params), highlight=False)
    verdict_text = None
    if params is not None:
        if decision == ["H1"]:
            verdict_text = f"H1 accepted: {names[1]} is stronger than {names[0]} (elo1 = {params.elo1:g})"
        elif decision == ["H0"]:
            verdict_text = f"H0 accepted: {names[1]} is not stronger than {names[0]} by elo0 = {params.elo0:g}"
        else:
            verdict_text = f"no decision after {len(result.outcomes)} games (raise --games)"
        console.print(f"SPRT elo0={params.elo0:g} elo1={params.elo1:g} alpha={params.alpha:g} "
                      f"beta={params.beta:g}: {verdict_text}", highlight=False)
    if json_flag:
        elo, low, high = stats.elo()
        document = {**match_document(result, game, options), "records": None if out is None else str(out),
                    "elo": {"candidate": names[1], "baseline": names[0], "elo": elo, "low": low, "high": high,
                            "los": stats.los(), "pairs": stats.pairs, "pentanomial": list(stats.counts)}}
        if params is not None:
            document["sprt"] = {"elo0": params.elo0, "elo1": params.elo1, "alpha": params.alpha, "beta": params.beta,
                                "llr": stats.llr(params), "lower": params.lower_bound, "upper": params.upper_bound,
                                "decision": decision[0] if decision else None, "verdict": verdict_text}
        print_json(document)
    finish_match(result, logs, keep_logs=log_protocol)
