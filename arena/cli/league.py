"""`arena league run|table`: run a league from its TOML file, resumable, and print
its leaderboard."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.live import Live
from rich.markup import escape

from arena.cli.common import arena_errors, console, errors, fail, warn, warn_isolation
from arena.errors import ArenaError
from arena.league.config import League, LeagueFileError, load_league
from arena.league.live import LiveLeagueView, PlainProgress, progress_line
from arena.league.standings import rich_tables, time_out_warnings, to_csv, to_json, to_markdown
from arena.referee.scheduling import allowed_cores, concurrency_refusal
from arena.session.league import LeagueSession, league_standings
from arena.session.runner import run_sync
from arena.session.setup import SetupError

league_app = typer.Typer(
    rich_markup_mode="markdown",
    help="Round-robin and gauntlet leagues from a TOML file (see docs/leagues.md): run, resume, leaderboard.",
    no_args_is_help=True,
)

LeagueFileArg = Annotated[Path, typer.Argument(metavar="LEAGUE.toml", help="The league file.")]
HostArg = Annotated[str, typer.Option(
    "--host", help="Where the live page listens: 127.0.0.1 (this machine only) unless you mean to share it.")]


REPORT_EVERY = 10
"""Games between two plain progress lines of a league whose output is not a terminal."""

REPORT_EVERY_S = 60.0
"""Seconds after which a plain progress line is printed even if fewer games ended."""


def load(path: Path) -> League:
    try:
        return load_league(path)
    except LeagueFileError as exc:
        raise fail(str(exc)) from None


@league_app.command("run")
def run_command(
    path: LeagueFileArg,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live view; the final table only.")] = False,
    serve: Annotated[int | None, typer.Option(
        "--serve", min=0, max=65535, metavar="PORT",
        help="Serve a live page of the league (standings, boards of the games under way, faults, every finished "
        "game's replay) on this port while it runs (0: a free port).")] = None,
    host: HostArg = "127.0.0.1",
    cluster: Annotated[str | None, typer.Option(
        "--cluster", metavar="ADDRESS",
        help="Play the games on a Dask cluster: its scheduler file (`dask scheduler --scheduler-file FILE`), "
        "tcp://HOST:PORT, or local:N for N worker processes on this machine (see docs/cluster.md). Default: the "
        "league file's [cluster] address, else this machine.")] = None,
    force_concurrency: Annotated[bool, typer.Option(
        "--force-concurrency", help="Run the league file's concurrency even above this machine's cores on the wall "
        "basis (refused otherwise: bots waiting for a core lose on time).")] = False,
    affinity: Annotated[bool, typer.Option(
        "--affinity", help="Pin each table's bots to cores of their own (as the league file's `affinity = true`).")]
    = False,
    report_every: Annotated[int, typer.Option(
        "--report-every", metavar="N", min=1,
        help="When the output is not a terminal (a log file): a progress line (games done, elapsed, ETA, the "
        "leaders) after every N games, and at least once a minute.")] = REPORT_EVERY,
) -> None:
    """Run (or resume) the league: every scheduled game not yet stored is played.

    Stop it any way you like; running the same command again resumes without
    replaying or losing a finished game. With --serve the league's progress is a page
    in the browser too (read-only); `arena serve` shows it from another terminal.
    With --cluster the games are played by the workers of a Dask cluster, and stored
    here as they end."""
    league = load(path)
    page = (host, serve) if serve is not None else None
    if cluster is not None:
        league.cluster = cluster
    league.affinity = league.affinity or affinity
    unfinished = run_league(league, quiet, resume_hint=f"arena league run {path}", page=page,
                            force_concurrency=force_concurrency, report_every=report_every)
    print_tables(league, "table")
    if unfinished:
        raise fail(unfinished, 1)


def run_league(league: League, quiet: bool, resume_hint: str, page: tuple[str, int] | None = None,
               force_concurrency: bool = False, report_every: int = REPORT_EVERY) -> str:
    """Play the league's pending games with a live view (or, when the output is not a
    terminal, a line per game and a progress line every `report_every` games or
    minute); Ctrl-C reports what is kept. Returns what keeps the league from being
    complete ("" when it is). A concurrency above this machine's cores on the wall
    basis is refused unless forced."""
    check_concurrency(league, force_concurrency)
    for warning in league.warnings:
        warn(warning)
    warn_isolation(league.limits)
    try:
        session = LeagueSession(league)
    except (ArenaError, OSError) as exc:
        raise fail(str(exc)) from None
    with session:
        for note in session.notes:
            console.print(note, highlight=False)
        if session.kept_records is not None:
            warn(session.kept_records)
        progress = session.runner.progress
        if not session.runner.pending:
            if progress.done == progress.total:
                console.print(f"{league.name}: all {progress.total} games are already played ({league.output})")
            return session.unfinished()
        if progress.done:
            console.print(f"resuming {league.name}: {progress.done} of {progress.total} games already played")
        with arena_errors():
            session.connect(lambda text: console.print(text, highlight=False))
        _play(session, quiet, resume_hint, page, report_every)
        return session.unfinished()


def check_concurrency(league: League, force: bool) -> None:
    """Refuse (exit 2) more games at once than this machine's cores on the wall basis,
    unless forced (then a warning); a cluster's workers play at their own concurrency."""
    if league.cluster is not None:
        return
    cores = len(allowed_cores())
    refusal = concurrency_refusal(league.concurrency, league.time_control.basis,
                                  (f"concurrency = {cores} or less in the league file",
                                   'basis = "cpu" under [time]', "--force-concurrency"))
    if refusal is None:
        return
    if not force:
        raise fail(refusal)
    warn(f"concurrency {league.concurrency} is more than this machine's {cores} cores (forced): bots waiting for "
         "a core may lose on time")


def _play(session: LeagueSession, quiet: bool, resume_hint: str, page: tuple[str, int] | None,
          report_every: int = REPORT_EVERY) -> None:
    """The league's games under a live view (or a line per game and a progress line now
    and then, for a log file), its page beside them."""
    league, progress = session.league, session.runner.progress
    live_view = console.is_terminal and not quiet
    plain: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if not live_view and not quiet:
        printed = [progress.news]
        due = PlainProgress(report_every, REPORT_EVERY_S)
        lock = threading.Lock()

        def print_progress() -> None:
            with lock:
                if due.due(progress.done):
                    console.print(progress_line(league, progress), highlight=False)

        def print_new() -> None:
            if progress.news != printed[0]:
                printed[0] = progress.news
                console.print(f"[{progress.done}/{progress.total}] {progress.latest[-1]}", highlight=False)
                print_progress()

        session.runner.on_change = print_new
        plain = _every_second(print_progress)

    def announce(url: str) -> None:
        console.print(f"[bold]live page: {url}[/] (read-only; `arena serve` shows it after the league too)",
                      markup=True, highlight=False)

    try:
        with Live(LiveLeagueView(league, progress), console=console, refresh_per_second=4) if live_view \
                else plain:
            run_sync(lambda: session.run(page, announce), stop_on_signals=True)
    except KeyboardInterrupt:
        raise fail(
            f"interrupted: {len(progress.playing)} game(s) in flight were abandoned and will be replayed; "
            f"{session.stored()} of {progress.total} games are stored in {league.output}. "
            f"Run `{resume_hint}` to resume.", 130) from None
    except SetupError as exc:  # a bot that never starts: nothing was played
        raise fail(str(exc)) from None
    except ArenaError as exc:
        raise fail(f"{exc}\n(resume with `{resume_hint}`)") from None
    except OSError as exc:
        raise fail(f"cannot write to {league.output}: {exc.strerror or exc}; the games stored so far are kept: "
                   f"fix it and run `{resume_hint}` to resume") from None


@contextlib.contextmanager
def _every_second(tick: Callable[[], None]) -> Iterator[None]:
    """Call `tick` once a second from a thread of its own while the block runs (a
    progress line is due by the clock even while no game ends)."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(1.0):
            tick()

    thread = threading.Thread(target=loop, name="league-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@league_app.command("serve")
def serve_command(
    path: LeagueFileArg,
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port of the page (0: a free one).")]
    = 8000,
    host: HostArg = "127.0.0.1",
) -> None:
    """Serve the live page of a league that runs in another process, or has finished:
    standings, boards of the games under way, faults and every finished game's replay.
    Read-only; stop it with Ctrl-C."""
    league = load(path)
    if not league.database.exists():
        raise fail(f"{league.name} has not started: no database in {league.output}; run `arena league run {path}` "
                   "(add --serve PORT to serve the page from there)")
    serve_league_page(league, host, port)


def serve_league_page(league: League, host: str, port: int) -> None:
    """Serve `league`'s page from its files until interrupted."""
    import trio

    from arena.web.live import beside_page
    from arena.web.server import serve_during

    def announce(url: str) -> None:
        console.print(f"[bold]live page of {escape(league.name)}: {url}[/] (Ctrl-C to stop)", markup=True,
                      highlight=False)

    try:
        run_sync(lambda: serve_during(beside_page(league).app, host, port, announce, trio.sleep_forever),
                 stop_on_signals=True)
    except KeyboardInterrupt:
        raise fail("stopped", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None


Format = Literal["table", "markdown", "csv", "json"]


def print_tables(league: League, fmt: Format, output: Path | None = None, include_removed: bool = False,
                 notes: bool = False) -> None:
    """The leaderboard and crosstable of the games stored so far (`notes`: say first
    what opening the database found, e.g. an upgrade)."""
    try:
        standings, total, found = league_standings(league, include_removed)
    except (ArenaError, OSError) as exc:
        raise fail(str(exc)) from None
    for note in found if notes else []:
        (console if fmt == "table" or output is not None else errors).print(note, highlight=False)
    title = f"{league.name} ({league.game.name})"
    if fmt == "table":
        board, cross = rich_tables(standings, title)
        console.print(board)
        console.print(cross)
        if standings.games < total:
            console.print(f"{standings.games} of {total} games played so far")
        if standings.time_outs is not None:
            console.print(standings.time_outs.line(), highlight=False)
        for warning in time_out_warnings(standings):
            warn(warning)
        return
    text = {"markdown": lambda: to_markdown(standings, title), "csv": lambda: to_csv(standings),
            "json": lambda: to_json(standings, title)}[fmt]()
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise fail(f"--output {output}: cannot write it ({exc.strerror}); choose a writable path") from None
        console.print(f"wrote {output}")


@league_app.command("table")
def table_command(
    path: LeagueFileArg,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, markdown, csv or json.")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead.")] = None,
    include_removed: Annotated[bool, typer.Option(
        "--include-removed", help="Also show bots the league file no longer names, with their games (by default "
        "a removed bot's games stay stored but out of the table, for every bot).")] = False,
) -> None:
    """Print the leaderboard (rank, rating with 95% interval, results, scores, faults)
    and the head-to-head crosstable of the games played so far. With `anchor` in the
    league file, that bot's rating is pinned (0, or the value given) in every format."""
    if fmt not in ("table", "markdown", "csv", "json"):
        raise fail(f"--format {fmt!r}: choose table, markdown, csv or json")
    league = load(path)
    if not league.database.exists():
        raise fail(f"{league.name} has not started: no database in {league.output}; run `arena league run {path}`")
    print_tables(league, fmt, output, include_removed, notes=True)  # type: ignore[arg-type]
