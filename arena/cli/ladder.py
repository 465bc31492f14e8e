"""`arena ladder ...`: a standing ladder that entrants submit bots to over the web
(docs/ladder.md): the organiser's commands (init, run, entrants, tokens, pausing,
retiring, disqualifying) and the entrant's `submit`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import arena_errors, console, fail

ladder_app = typer.Typer(
    rich_markup_mode="markdown",
    help="A standing ladder: entrants submit bots over the web, games never stop (see docs/ladder.md).",
    no_args_is_help=True,
)
entrant_app = typer.Typer(rich_markup_mode="markdown", help="Add, list or remove the ladder's entrants.",
                          no_args_is_help=True)
token_app = typer.Typer(rich_markup_mode="markdown", help="Give an entrant a new token.", no_args_is_help=True)
ladder_app.add_typer(entrant_app, name="entrant")
ladder_app.add_typer(token_app, name="token")

DirArg = Annotated[Path, typer.Argument(metavar="DIR", help="The ladder's folder (it holds ladder.toml).")]
NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The entrant's name.")]
BotArg = Annotated[str, typer.Argument(metavar="BOT", help="The bot's name.")]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (shown on the bot's page and logged).")]


@ladder_app.command("init")
def init_command(
    folder: DirArg,
    game: Annotated[list[str], typer.Option(
        "--game", "-g", help="A game the ladder plays (repeat for several; each gets its own table). "
        "`arena games` lists them.")] = ["btt"],  # noqa: B006 - typer's way of giving a list default
    name: Annotated[str | None, typer.Option("--name", help="The ladder's name (default: the folder's).")] = None,
) -> None:
    """Make a ladder: a documented DIR/ladder.toml (tables, time control, limits, build
    commands per language, submission limits, logs) and an empty store."""
    from arena import games as all_games
    from arena.games import GameError
    from arena.ladder.service import init_ladder

    for gid in game:
        try:
            all_games.get(gid)
        except GameError as exc:
            raise fail(f"--game: {exc}") from None
    with arena_errors():
        ladder = init_ladder(folder, name or folder.resolve().name, list(dict.fromkeys(game)))
    console.print(f"made the ladder {ladder.name!r} in {folder}: edit {folder / 'ladder.toml'} if you like, add "
                  f"entrants with `arena ladder entrant add {folder} NAME`, then `arena ladder run {folder}`")


@ladder_app.command("run")
def run_command(
    folder: DirArg,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Where the pages and the API listen "
                                      "(0: a free port).")] = 8080,
    host: Annotated[str, typer.Option("--host", help="127.0.0.1 (this machine only) unless you mean to share it: "
                                      "0.0.0.0 for every interface.")] = "127.0.0.1",
    cluster: Annotated[str | None, typer.Option(
        "--cluster", metavar="ADDRESS", help="Play on a Dask cluster: a scheduler file, tcp://HOST:PORT or local:N "
        "(docs/cluster.md). Default: the ladder file's `cluster`, else this machine.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No line per game; pauses, void units and errors "
                                        "are still told.")] = False,
) -> None:
    """Serve the ladder's pages and API and play games without end. Stop it any way you
    like (Ctrl-C, kill -9, a reboot): nothing finished is lost, and the same command
    resumes."""
    import dataclasses

    from arena.ladder.config import load_ladder
    from arena.ladder.service import LadderService
    from arena.session.runner import run_sync

    with arena_errors():
        ladder = load_ladder(folder)
        if cluster is not None:
            ladder = dataclasses.replace(ladder, cluster=cluster)
        def tell(line: str) -> None:
            if not (quiet and line.startswith("game ")):
                console.print(line, highlight=False)

        service = LadderService(ladder, tell=tell)
    with service, arena_errors():
        service.connect(lambda line: console.print(line, highlight=False))
        tables = ", ".join(t.key for t in ladder.tables)
        console.print(f"ladder {ladder.name!r}: tables {tables}; {ladder.concurrency} at once; Ctrl-C stops it "
                      "(the same command resumes)", highlight=False)
        try:
            run_sync(lambda: service.run(host, port, lambda url: console.print(f"pages and API at {url}",
                                                                               highlight=False)),
                     stop_on_signals=True)
        except KeyboardInterrupt:
            console.print(f"stopped; {service.store.game_count()} games stored. `arena ladder run {folder}` "
                          "resumes", highlight=False)


def _store(folder: Path):  # type: ignore[no-untyped-def]
    from arena.ladder.config import load_ladder
    from arena.ladder.store import LadderStore

    ladder = load_ladder(folder)
    return LadderStore.open(ladder.database, ladder.name, create=False)


@entrant_app.command("add")
def entrant_add_command(folder: DirArg, name: NameArg) -> None:
    """Add an entrant and print their token (shown once; only its hash is stored)."""
    from arena.ladder.submissions import BOT_NAME
    from arena.ladder.tokens import hash_token, new_token, placeholder_hash

    if not BOT_NAME.fullmatch(name):
        raise fail("NAME: use 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit")
    with arena_errors():
        store = _store(folder)
        try:
            entrant = store.add_entrant(name, placeholder_hash())
            token = new_token(entrant)
            store.reset_token(name, hash_token(token), actor="organiser (the first token)")
        finally:
            store.close()
    console.print(f"entrant {name} added; their token (give it to them: it is shown only now):", highlight=False)
    console.print(token, highlight=False, soft_wrap=True)


@entrant_app.command("remove")
def entrant_remove_command(folder: DirArg, name: NameArg) -> None:
    """Remove an entrant: their token stops working and their bots retire (games stay)."""
    with arena_errors():
        store = _store(folder)
        try:
            store.remove_entrant(name)
        finally:
            store.close()
    console.print(f"entrant {name} removed; their bots are retired and their games stay stored", highlight=False)


@entrant_app.command("list")
def entrant_list_command(folder: DirArg) -> None:
    """The entrants and their bots."""
    with arena_errors():
        store = _store(folder)
        try:
            entrants = store.entrants()
            bots = store.bots()
        finally:
            store.close()
    if not entrants:
        console.print(f"no entrants yet; add one with `arena ladder entrant add {folder} NAME`")
    for entrant in entrants:
        own = ", ".join(f"{b.name} ({b.status})" for b in bots if b.entrant == entrant.id) or "no bot yet"
        console.print(f"{entrant.name}{' (removed)' if entrant.removed else ''}: {own}", highlight=False)


@token_app.command("reset")
def token_reset_command(folder: DirArg, name: NameArg) -> None:
    """Give an entrant a new token (the old one stops working at once)."""
    from arena.ladder.tokens import hash_token, new_token

    with arena_errors():
        store = _store(folder)
        try:
            entrant = store.entrant(name)
            if entrant is None or entrant.removed:
                raise fail(f"no entrant named {name!r}; `arena ladder entrant list {folder}` shows them")
            token = new_token(entrant.id)
            store.reset_token(name, hash_token(token))
        finally:
            store.close()
    console.print(f"{name}'s new token (the old one no longer works):", highlight=False)
    console.print(token, highlight=False, soft_wrap=True)


def _set_status(folder: Path, bot: str, status: str, reason: str) -> None:
    with arena_errors():
        store = _store(folder)
        try:
            store.set_status(bot, status, reason, actor="organiser")
        finally:
            store.close()
    console.print(f"{bot}: {status}" + (f" ({reason})" if reason else "") + "; a running ladder sees it at its next "
                  "unit", highlight=False)


@ladder_app.command("pause")
def pause_command(folder: DirArg, bot: BotArg, reason: ReasonOption = "paused by the organiser") -> None:
    """Stop a bot playing until `arena ladder resume` (its units under way finish)."""
    _set_status(folder, bot, "paused", reason)


@ladder_app.command("resume")
def resume_command(folder: DirArg, bot: BotArg) -> None:
    """Let a paused, retired or disqualified bot play again."""
    _set_status(folder, bot, "active", "")


@ladder_app.command("retire")
def retire_command(folder: DirArg, bot: BotArg, reason: ReasonOption = "retired by the organiser") -> None:
    """Take a bot off the ladder (its games and ratings stay on record)."""
    _set_status(folder, bot, "retired", reason)


@ladder_app.command("disqualify")
def disqualify_command(folder: DirArg, bot: BotArg, reason: ReasonOption = "disqualified by the organiser") -> None:
    """Disqualify a bot: it never plays again, and its owner cannot submit it, unless
    the organiser resumes it."""
    _set_status(folder, bot, "disqualified", reason)


@ladder_app.command("actions")
def actions_command(
    folder: DirArg,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many (newest first).")] = 50,
) -> None:
    """The log of actions: entrants added and removed, tokens reset, submissions,
    pauses, retirements and disqualifications (who, when, why)."""
    with arena_errors():
        store = _store(folder)
        try:
            rows = store.actions(limit)
        finally:
            store.close()
    for at, actor, action, subject, detail in rows:
        console.print(f"{at}  {actor}: {action} {subject}" + (f" ({detail})" if detail else ""), highlight=False)


@ladder_app.command("submit")
def submit_command(
    url: Annotated[str, typer.Argument(metavar="URL", help="The ladder's address, e.g. http://host:8080/.")],
    bot: Annotated[Path, typer.Argument(metavar="PATH", help="The bot: a folder (sent as a zip), an archive or "
                                        "one source file.")],
    token: Annotated[str, typer.Option("--token", envvar="ARENA_LADDER_TOKEN",
                                       help="Your entrant token (or set ARENA_LADDER_TOKEN).")],
    language: Annotated[str, typer.Option("--language", "-l", help="The bot's language, as the ladder names it "
                                          "(its submit page lists them).")] = "python",
    name: Annotated[str | None, typer.Option("--name", help="The bot's name (default: your entrant name).")] = None,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="Wait for the build and check, and print the log "
                                       "if it fails.")] = True,
) -> None:
    """Submit a bot version to a running ladder. Exit code 0 once it is ready to play
    (or sent, with --no-wait), 1 when its build or check failed (the log says why)."""
    from arena.ladder.client import ClientError, submit

    try:
        state, log = submit(url, bot, token, language, name, wait, say=lambda line: console.print(line,
                                                                                                   highlight=False))
    except ClientError as exc:
        raise fail(str(exc)) from None
    if state == "failed":
        console.print(log, highlight=False, markup=False)
        raise typer.Exit(1)
