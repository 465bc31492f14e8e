"""The `arena` command line: play, inspect and verify games between bots."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena import __version__
from arena.cli.common import (
    ERRORS_LOG,
    ClockArg,
    GraceArg,
    MaxProcessesArg,
    MemoryArg,
    OptionArg,
    OutArg,
    PlayersArg,
    SeedArg,
    StartupArg,
    TimePerMoveArg,
    bot_specs,
    check_out_file,
    console,
    errors,
    fail,
    load_game,
    log_void_game,
    new_state,
    parse_options,
    prepare_log_dir,
    run_trio,
    save_record,
    time_settings,
)
from arena.cli.summary import match_table, outcome_line
from arena.errors import ArenaError
from arena.games import GAMES, TERMINAL, GameError
from arena.games.base import CHANCE, State
from arena.games.perft import apply_actions, perft
from arena.records.files import iter_record_file
from arena.records.record import GameRecord, RecordSyntaxError
from arena.records.replay import ReplayError, state_at, turn_frames, verify
from arena.records.viewer import viewer_html
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.spec import BotSpec, Limits
from arena.render import ViewError, render_state
from arena.termination import Termination

app = typer.Typer(
    rich_markup_mode="markdown",
    help="A referee for bots playing tree-growing strategy games (JSON lines over stdin/stdout).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
@app.callback(invoke_without_command=True)
def root(
    version: Annotated[bool, typer.Option("--version", help="Print the arena's version and exit.")] = False,
) -> None:
    if version:
        console.print(f"arena {__version__}")
        raise typer.Exit()


@app.command("games")
def games_command() -> None:
    """List the games with their seat counts and variant options."""
    table = Table(title="Games")
    for column in ("id", "name", "seats", "chance", "hidden info"):
        table.add_column(column)
    options = Table(title="Variant options (--option NAME=VALUE)")
    for column in ("game", "option", "default", "values", "meaning"):
        options.add_column(column)
    for game in GAMES.values():
        seats = str(game.min_seats) if game.min_seats == game.max_seats else f"{game.min_seats}-{game.max_seats}"
        table.add_row(game.id, game.name, seats, "yes" if game.has_chance else "no",
                      "yes" if game.has_hidden_information else "no")
        for o in game.options:
            options.add_row(game.id, o.name, o.default or '""', ", ".join(o.choices) or "-", o.help)
    console.print(table)
    console.print(options)


DealArg = Annotated[str | None, typer.Option(
    "--deal", help="The opening chance outcome, given explicitly (The Tree: the 36 tiles in dealt order, "
    "comma-separated); default: drawn from --seed.")]


def with_deal(state: State, deal: str | None, actions: list[str] | None) -> list[str]:
    """The action list with an explicit deal first, once the game accepts that deal."""
    if deal is None:
        return list(actions or [])
    if state.current() != CHANCE:
        raise fail("--deal: this game does not open with a chance decision; drop --deal")
    try:
        state.clone().apply(deal)
    except GameError as exc:
        raise fail(f"--deal: {exc}") from None
    return [deal, *(actions or [])]


@app.command("legal")
def legal_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt.")],
    actions: Annotated[list[str] | None, typer.Argument(help="Actions played so far, one argument each.")] = None,
    players: PlayersArg = None,
    option: OptionArg = None,
    seed: SeedArg = 0,
    deal: DealArg = None,
) -> None:
    """Print the legal actions after ACTIONS, one per line in ASCII order.

    An illegal action in the list exits with code 1, naming the action and its index.
    At a chance point a listed action the game accepts is the outcome; otherwise one
    is drawn from --seed."""
    game = load_game(game_id)
    state = new_state(game, players, parse_options(game, option))
    try:
        apply_actions(state, with_deal(state, deal, actions), seed)
    except GameError as exc:
        raise fail(str(exc), 1) from None
    if state.current() == TERMINAL:
        result = state.result()
        errors.print(f"game over: ranks {list(result.ranks)}, scores {list(result.scores)}")
        return
    sys.stdout.write("".join(a + "\n" for a in state.legal_actions()))


@app.command("perft")
def perft_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt.")],
    depth: Annotated[int, typer.Argument(min=1, help="Deepest level to count.")],
    actions: Annotated[list[str] | None, typer.Argument(help="Actions to play first (count from there).")] = None,
    players: PlayersArg = None,
    option: OptionArg = None,
    seed: SeedArg = 0,
    deal: DealArg = None,
) -> None:
    """Print `DEPTH COUNT` for every depth 1..DEPTH: the number of legal action
    sequences of exactly that length (chance points are resolved from --seed)."""
    game = load_game(game_id)
    state = new_state(game, players, parse_options(game, option))
    try:
        ply = apply_actions(state, with_deal(state, deal, actions), seed)
    except GameError as exc:
        raise fail(str(exc), 1) from None
    for level, count in enumerate(perft(state, depth, seed, ply), start=1):
        sys.stdout.write(f"{level} {count}\n")


@app.command("play")
def play_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt (see `arena games`).")],
    bots: Annotated[list[str], typer.Argument(
        metavar="BOT...",
        help="One bot per seat: a shipped bot's short name (random, random-js, greedy, search, zoo/NAME) "
        "or a command line in quotes, e.g. \"python3 mybot.py\".")],
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games in the match; seats rotate each game.")] = 1,
    seed: SeedArg = 0,
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
    memory_mb: MemoryArg = None,
    max_processes: MaxProcessesArg = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final table.")] = False,
) -> None:
    """Play a game or a match between bots and print the results.

    Exit code 0 when the games were played (a bot's fault is a result), 1 when a game
    was void by an error of the arena, 2 on a mistake in the command or when a bot
    never started (its command cannot work)."""
    game = load_game(game_id)
    options = parse_options(game, option)
    tc, timing = time_settings(time_per_move, clock, startup_time, grace)
    specs = bot_specs(game, bots, seed, options)
    if out is not None:
        check_out_file(out)
    logs = prepare_log_dir(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="arena-logs-"))
    limits = Limits(memory_bytes=memory_mb * (1 << 20) if memory_mb else None, processes=max_processes)
    config = MatchConfig(game, options, tc, seed, games, event="arena play", log_dir=logs,
                         limits=limits, timing=timing)
    try:
        result = _run_match(config, specs, out, watch, quiet)
    except BaseException:
        if log_dir is None and not any(logs.glob("arena-*")):
            shutil.rmtree(logs, ignore_errors=True)
        raise
    console.print(match_table(result, game))
    void = [o for o in result.outcomes if o.void]
    keep_logs = log_dir is not None or void or any(o.faults for o in result.outcomes)
    if keep_logs:
        console.print(f"bot logs (stderr): {logs}")
    else:
        shutil.rmtree(logs, ignore_errors=True)
    if out is not None:
        console.print(f"records appended to {out}")
    for name, fault in result.never_ready.items():
        raise fail(f"{name} never started ({fault}); check its command")
    if void:
        raise fail(f"{len(void)} game(s) were stopped by an error of the arena (a bug: please report it); they are "
                   f"void, not scored, and left out of the records; tracebacks: {logs / ERRORS_LOG}", 1)


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


def _records(path: Path) -> Iterator[GameRecord]:
    """The games of a record file one by one; a file that cannot be read is a clear
    error (exit 2), one that is not a record file names its line and column (exit 1)."""
    try:
        yield from iter_record_file(path)
    except FileNotFoundError:
        raise fail(f"no such record file: {path}") from None
    except IsADirectoryError:
        raise fail(f"{path} is a folder; give a record file, e.g. {path / 'league.pgn'}") from None
    except OSError as exc:
        raise fail(f"cannot read {path} ({exc.strerror})") from None
    except RecordSyntaxError as exc:
        raise fail(str(exc), 1) from None


def _nth_record(path: Path, number: int) -> GameRecord:
    count = 0
    for count, record in enumerate(_records(path), 1):
        if count == number:
            return record
    if count == 0:
        raise fail(f"{path} holds no game: it is empty or has no tag lines", 1)
    raise fail(f"{path} holds {count} game(s); --game must be 1..{count}")


@app.command("replay")
def replay_command(
    path: Annotated[Path, typer.Argument(metavar="FILE", help="A record file written by `arena play`.")],
    game_number: Annotated[int, typer.Option("--game", "-g", min=1, help="Which game of the file (from 1).")] = 1,
    ply: Annotated[int | None, typer.Option("--ply", "-k", min=0, help="Show only the board after this ply.")] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter between turns.")] = False,
    level: Annotated[int | None, typer.Option(
        "--level", min=0, help="Draw only this level (games built in levels, e.g. blox).")] = None,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write the game as one self-contained HTML page to step through (arrow keys, "
        "slider) instead of drawing it here.")] = None,
) -> None:
    """Draw the board turn by turn (or at one ply) for a recorded game, or export it as
    a self-contained HTML viewer."""
    record = _nth_record(path, game_number)
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
    console.print(f"ranks {tags.get('Ranks', '?')}  scores {tags.get('Scores', '-')}  "
                  f"termination {tags.get('Termination', '?')}")


def _write_viewer(record: GameRecord, level: int | None, out: Path) -> None:
    page = viewer_html(record, level)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise fail(f"--html {out}: cannot write it ({exc.strerror}); choose a writable path") from None
    console.print(f"wrote {out}: open it in a browser and step with the arrow keys")


@app.command("verify")
def verify_command(
    paths: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Record files to check.")],
) -> None:
    """Replay every game of the files through the rules; exit 1 on any illegal action,
    result that does not match the record, or file that holds no game."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bad = 0
    total = 0
    empty: list[Path] = []
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}: {task.completed} game(s)"),
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


@app.command("demo")
def demo_command(
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo leagues (replaced).")] = Path("arena-demo"),
    seed: SeedArg = 1,
    games: Annotated[int, typer.Option("--games", help="Games per pairing in the 2-seat leagues.", min=2)] = 6,
) -> None:
    """A short round-robin league of the bundled bots (random, greedy, search) in every
    game, with live standings; records and databases go to --out."""
    from arena.cli.demo import clear_demo_output, demo_leagues
    from arena.cli.league import print_tables, run_league
    from arena.league.config import LeagueFileError

    if games % 2:
        raise fail(f"--games {games}: 2-seat games are played in pairs with seats swapped; "
                   f"give an even number such as {games + 1}")
    try:
        leagues = demo_leagues(out, seed, games)
    except LeagueFileError as exc:
        raise fail(f"cannot build the demo: {exc}") from None
    for league in leagues:
        try:
            clear_demo_output(league)
        except ArenaError as exc:
            raise fail(str(exc)) from None
        console.rule(f"{league.game.name}: {', '.join(b.name for b in league.bots)}")
        run_league(league, quiet=False, resume_hint=f"arena demo --out {out}")
        print_tables(league, "table")
    console.print(f"records and results are in {out}/; try `arena replay {out}/btt/league.pgn`, "
                  f"or run your own league: docs/leagues.md")


BENCH_PARTS = ("referee", "engines", "league")


@app.command("bench")
def bench_command(
    decisions: Annotated[int, typer.Option("--decisions", help="Decisions per referee measurement.")] = 4000,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Run only these parts (repeatable): referee, engines, league.")] = None,
    league_games: Annotated[int, typer.Option("--league-games", help="Games per league measurement.", min=2)] = 200,
) -> None:
    """Measure the arena: the referee's CPU and round trip per decision beside a raw
    pipe, decisions per second with 1, 8 and 32 games at once; every rules engine's
    random games per second and mid-game legal-action time; league games per second
    at concurrency 1, 2 and 4 with the referee's share of CPU."""
    parts = only or list(BENCH_PARTS)
    for part in parts:
        if part not in BENCH_PARTS:
            raise fail(f"--only {part!r}: choose from {', '.join(BENCH_PARTS)}")
    if "referee" in parts:
        from arena.bench.referee import run_bench

        run_bench(console, decisions)
    if "engines" in parts:
        from arena.bench.games import engine_table

        console.print(engine_table(console))
    if "league" in parts:
        from arena.bench.league import league_table

        console.print(league_table(league_games + league_games % 2))


def main() -> None:
    """Console-script entry point. An exception that escapes a command is a bug of the
    arena: its traceback goes to a file and the user gets one line saying where."""
    try:
        app()
    except Exception as exc:  # the last net: every expected problem is a message of its own
        import traceback

        with tempfile.NamedTemporaryFile("w", prefix="arena-crash-", suffix=".txt", delete=False) as report:
            traceback.print_exc(file=report)
        errors.print(f"[bold red]internal error:[/] {type(exc).__name__}: {str(exc)[:200]} (a bug of the arena; "
                     f"the traceback is in {report.name}: please report it)", highlight=False)
        sys.exit(70)


def _register_subcommands() -> None:
    from arena.cli.league import league_app
    from arena.cli.match import match_command

    app.add_typer(league_app, name="league")
    app.command("match")(match_command)


_register_subcommands()
