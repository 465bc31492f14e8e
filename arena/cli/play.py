"""`arena play`: a game or a match between bots, with its records and a summary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ClassVar

import typer

from arena.cli.common import (
    arena_errors,
    console,
    fail,
    finish_match,
    interrupted,
    json_output,
    print_json,
    warn,
)
from arena.cli.options import (
    BotSetup,
    EventArg,
    JsonArg,
    LogProtocolArg,
    Openings,
    OptionArg,
    OutArg,
    Seeds,
    Times,
    event_tag,
    match_request,
    takes,
)
from arena.cli.summary import match_document, match_table, match_time_outs, outcome_line, print_time_outs
from arena.errors import ArenaError
from arena.games.base import CHANCE, State
from arena.people.launch import MARK as PERSON
from arena.records.record import Ply
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.render import render_state
from arena.session.request import MatchRequest, PreparedMatch, prepare_match
from arena.session.runner import play_prepared, run_sync

if TYPE_CHECKING:
    from arena.people.web import WebPerson


@dataclass(frozen=True)
class WebSeatOptions:
    """Where the page of a human-web seat is served, and whether it opens by itself."""

    PANEL: ClassVar[str] = "A person's seat in the browser (human-web)"

    web_host: Annotated[str, typer.Option(
        "--web-host", help="Where the page of a human-web seat listens (only this machine by default).")] = "127.0.0.1"
    web_port: Annotated[int, typer.Option(
        "--web-port", min=0, max=65535, help="Port of the page of a human-web seat (0: a free one).")] = 0
    no_open: Annotated[bool, typer.Option(
        "--no-open", help="Do not open the page of a human-web seat in the browser (it opens by itself).")] = False


@dataclass(frozen=True)
class PlayOptions:
    """Everything `arena play` takes, in the order its help lists it."""

    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt (see `arena games`).")]
    bots: Annotated[list[str], typer.Argument(
        metavar="BOT...",
        help="One bot per seat: a shipped bot's short name (random, random-js, greedy, search, mcts, zoo/NAME) "
        "or a command line in quotes, e.g. \"python3 mybot.py\".")]
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games in the match; seats rotate each game.")] = 1
    seeds: Seeds = Seeds()
    out: OutArg = None
    event: EventArg = None
    times: Times = Times()
    watch: Annotated[bool, typer.Option("--watch", help="Draw the board after every turn.")] = False
    option: OptionArg = None
    log_dir: Annotated[Path | None, typer.Option(
        "--log-dir", help="Folder for the bots' stderr logs (default: a temporary folder, removed after a match "
        "without faults).")] = None
    setup: BotSetup = BotSetup()
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final table.")] = False
    web: WebSeatOptions = WebSeatOptions()
    json_flag: JsonArg = False
    log_protocol: LogProtocolArg = False
    book: Openings = Openings()

    def request(self) -> MatchRequest:
        return match_request(self, self.bots, out=self.out, log_dir=self.log_dir, log_protocol=self.log_protocol,
                             people=True, event=event_tag(self.event, "arena play"))


@takes(PlayOptions)
def play_command(options: PlayOptions) -> None:
    """Play a game or a match between bots and print the results.

    A person can take a seat: `human` plays in this terminal (the board is drawn, the
    legal actions are numbered; type a number or the action), `human-web` in the
    browser (click the board or an action). Without --time-per-move or --clock a person
    has no time limit while the bots keep theirs (5 s a move).

    Exit code 0 when the games were played (a bot's fault is a result), 1 when a game
    was void by an error of the arena, 2 on a mistake in the command or when a bot
    never started (its command cannot work)."""
    with json_output(options.json_flag):
        with arena_errors():
            match = prepare_match(options.request(), notes=warn)
        _warn_unbalanced(options.games, len(options.bots))
        try:
            result = _run_match(match, options.watch or bool(match.people), options.quiet, _web_seat(match, options))
        except BaseException:
            match.discard_logs()
            raise
        finally:
            match.discard_empty_records()
        console.print(match_table(result, match.game))
        time_outs = match_time_outs(result, match.basis)
        print_time_outs(time_outs, always=False)
        if match.out is not None and match.out.exists():
            console.print(f"records appended to {match.out} (`arena rerun {match.out} --game N` plays a game again "
                          "with the same chance)", highlight=False)
        if options.json_flag:
            print_json({**match_document(result, match.game, match.options, time_outs),
                        "records": None if match.out is None else str(match.out)})
        finish_match(match, result)


def _warn_unbalanced(games: int, seats: int) -> None:
    """Seats rotate each game, so a count that is not a multiple of the seats gives
    some bots a seat more often (a league file refuses such a count; here a warning)."""
    if seats > 1 and games > 1 and games % seats:
        fair = games + seats - games % seats
        warn(f"--games {games} with {seats} seats: the seats rotate each game, so some bots play the first seat "
             f"more often than others; give a multiple of {seats} (e.g. --games {fair}) for balanced seats")


def _web_seat(match: PreparedMatch, options: PlayOptions) -> _WebSeat | None:
    from arena.people.web import WebPerson

    web = [person for person in match.people.values() if isinstance(person, WebPerson)]
    return _WebSeat(web[0], options.web) if web else None


class _WebSeat:
    """The page of a human-web seat: served while the match is played."""

    def __init__(self, person: WebPerson, options: WebSeatOptions) -> None:
        self.person, self.options = person, options

    def announce(self, url: str) -> None:
        console.print(f"[bold]your seat is at {url}[/] (open it in a browser)", markup=True, highlight=False)
        if not self.options.no_open:
            import webbrowser

            webbrowser.open(url)

    async def serve(self, play: Callable[[], Awaitable[MatchResult]]) -> MatchResult:
        from arena.people.web import with_web_person

        return await with_web_person(self.person, self.options.web_host, self.options.web_port, self.announce, play)


def _run_match(match: PreparedMatch, watch: bool, quiet: bool, page: _WebSeat | None = None) -> MatchResult:
    """Play the match with a progress bar and a line per game (or the board every turn)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True,
                        disable=watch or quiet or not console.is_terminal)
    task = progress.add_task("games", total=match.config.games)
    recorded = 0

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        nonlocal recorded
        recorded += not outcome.void  # kept (in the record file, with --out) before this is called
        if not quiet:
            progress.console.print(outcome_line(index, outcome), markup=False, highlight=False)
        progress.advance(task)

    def show(state: State, number: int, ply: Ply) -> None:
        if state.current() not in (CHANCE, ply.actor):  # the end of a turn
            console.rule(f"ply {number}")
            console.print(render_state(match.game.id, state))

    watching = show if watch and not any(s.command[:1] == [PERSON] for s in match.specs) else None

    def play() -> Awaitable[MatchResult]:
        return play_prepared(match, done, watching)

    try:
        with progress:
            return run_sync(play if page is None else lambda: page.serve(play), stop_on_signals=True)
    except KeyboardInterrupt:
        raise interrupted(match, recorded) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
