"""`arena play`: a game or a match between bots, with its records and a summary."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

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
    prepare_log_dir,
    print_json,
    registry_from,
    run_trio,
    save_record,
    seat_time_controls,
)
from arena.cli.summary import match_document, match_table, outcome_line
from arena.errors import ArenaError
from arena.games.base import CHANCE, State
from arena.people.launch import MARK as PERSON
from arena.people.launch import UNHURRIED, people_launcher
from arena.people.seat import Person
from arena.records.record import Ply
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import installation_key, random_seed
from arena.referee.spec import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, DEFAULT_SCRATCH_MB, BotSpec
from arena.render import render_state

if TYPE_CHECKING:
    from arena.people.web import WebPerson


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
    bots_file: BotsFileArg = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final table.")] = False,
    web_host: Annotated[str, typer.Option(
        "--web-host", help="Where the page of a human-web seat listens (only this machine by default).")] = "127.0.0.1",
    web_port: Annotated[int, typer.Option(
        "--web-port", min=0, max=65535, help="Port of the page of a human-web seat (0: a free one).")] = 0,
    open_page: Annotated[bool, typer.Option(
        "--open/--no-open", help="Open the page of a human-web seat in the browser.")] = True,
    json_flag: JsonArg = False,
    log_protocol: LogProtocolArg = False,
    openings: OpeningsArg = None,
    random_opening: RandomOpeningArg = 0,
) -> None:
    """Play a game or a match between bots and print the results.

    A person can take a seat: `human` plays in this terminal (the board is drawn, the
    legal actions are numbered; type a number or the action), `human-web` in the
    browser (click the board or an action). Without --time-per-move or --clock a person
    has no time limit while the bots keep theirs (5 s a move).

    Exit code 0 when the games were played (a bot's fault is a result), 1 when a game
    was void by an error of the arena, 2 on a mistake in the command or when a bot
    never started (its command cannot work)."""
    with json_output(json_flag):
        _play(game_id, bots, games, seed, bot_seed, out, time_per_move, clock, startup_time, grace, watch, option,
              log_dir, memory_mb, max_processes, cpus, scratch_mb, no_sandbox, bots_file, quiet, web_host, web_port,
              open_page, json_flag, log_protocol, openings, random_opening)


def _play(game_id: str, bots: list[str], games: int, seed: int | None, bot_seed: int | None, out: Path | None,
          time_per_move: str | None, clock: str | None, startup_time: str, grace: str, watch: bool,
          option: list[str] | None, log_dir: Path | None, memory_mb: int, max_processes: int, cpus: float,
          scratch_mb: int, no_sandbox: bool, bots_file: Path | None, quiet: bool, web_host: str, web_port: int,
          open_page: bool, json_flag: bool, log_protocol: bool, openings: Path | None, random_opening: int) -> None:
    game = load_game(game_id)
    options = parse_options(game, option)
    seed = random_seed() if seed is None else seed
    people: dict[str, Person] = {}
    person_time = UNHURRIED if time_per_move is None and clock is None else None
    limits = bot_limits(memory_mb, max_processes, no_sandbox, cpus, scratch_mb)
    specs = bot_specs(game, bots, random_seed() if bot_seed is None else bot_seed, options, people, person_time,
                      registry_from(bots_file), limits)
    controls, timing = bot_time_settings(time_per_move, clock, startup_time, grace, len(specs))
    tc = seat_time_controls(specs, controls)
    web = [person for person in people.values() if type(person).__name__ == "WebPerson"]
    if len(web) > 1:
        raise fail("only one human-web seat per game: seat the other person with `human` (in the terminal)")
    book = openings_from(openings, random_opening, game, len(specs), options)
    if out is not None:
        check_out_file(out)
        out.touch()  # before any bot starts, so that its sandbox masks it
    logs = prepare_log_dir(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="arena-logs-"))
    config = MatchConfig(game, options, tc, seed, games, event="arena play", log_dir=logs, limits=limits,
                         timing=timing, chance_key=installation_key(), hidden=(out,) if out else (),
                         launcher=people_launcher(people), log_protocol=log_protocol, openings=book,
                         random_opening=random_opening)
    page = _WebSeat(web[0], web_host, web_port, open_page) if web else None  # type: ignore[arg-type]
    try:
        result = _run_match(config, specs, out, watch or bool(people), quiet, page)
    except BaseException:
        if log_dir is None and not any(logs.glob("arena-*")):
            shutil.rmtree(logs, ignore_errors=True)
        raise
    console.print(match_table(result, game))
    if out is not None:
        console.print(f"records appended to {out}")
    if json_flag:
        print_json({**match_document(result, game, options), "records": None if out is None else str(out)})
    finish_match(result, logs, keep_logs=log_dir is not None or log_protocol)


class _WebSeat:
    """The page of a human-web seat: served while the match is played."""

    def __init__(self, person: WebPerson, host: str, port: int, open_page: bool) -> None:
        self.person, self.host, self.port, self.open_page = person, host, port, open_page

    def announce(self, url: str) -> None:
        console.print(f"[bold]your seat is at {url}[/] (open it in a browser)", highlight=False)
        if self.open_page:
            import webbrowser

            webbrowser.open(url)

    async def serve(self, play: Callable[[], Awaitable[MatchResult]]) -> MatchResult:
        from arena.people.web import with_web_person

        return await with_web_person(self.person, self.host, self.port, self.announce, play)


def _run_match(config: MatchConfig, specs: list[BotSpec], out: Path | None, watch: bool, quiet: bool,
               page: _WebSeat | None = None) -> MatchResult:
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

    def show(state: State, number: int, ply: Ply) -> None:
        if state.current() not in (CHANCE, ply.actor):  # the end of a turn
            console.rule(f"ply {number}")
            console.print(render_state(config.game.id, state))

    watching = show if watch and not any(s.command[:1] == [PERSON] for s in specs) else None

    def play() -> Awaitable[MatchResult]:
        return play_match(config, specs, done, watching)

    try:
        with progress:
            return run_trio(play if page is None else lambda: page.serve(play))
    except KeyboardInterrupt:
        raise fail("interrupted: every bot was stopped; finished games are in the record file", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
