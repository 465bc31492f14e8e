"""`arena check BOT`: a conformance check of a bot (arena/session/check.py), as a table
for people or one JSON document for CI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.common import arena_errors, console, fail, json_output, print_json, warn_isolation
from arena.cli.options import (
    BotsFileArg,
    JsonArg,
    NoSandboxArg,
    ReadOnlyArg,
    StartupArg,
    bare_seconds_checked,
    takes,
)
from arena.games import GAMES
from arena.games.base import Game
from arena.league.registry import Registry
from arena.process.botnames import PER_GAME
from arena.process.folder_checks import check_bots
from arena.process.spec import BotSpec, Limits
from arena.referee.player import Timing
from arena.session.check import Checker, Report
from arena.session.request import allow_read_only
from arena.session.setup import SetupError, load_game, load_registry, resolve_one
from arena.timecontrol import TimeControl, TimeControlError, parse_seconds


@dataclass(frozen=True)
class CheckOptions:
    """Everything `arena check` takes, in the order its help lists it."""

    bot: Annotated[str, typer.Argument(metavar="BOT", help="The bot: a command line in quotes (\"./mybot\"), a "
                                                           "registry name or a shipped bot's name.")]
    game_id: Annotated[str | None, typer.Option(
        "--game", "-g", help="Check this game only (default: every game).")] = None
    quick: Annotated[bool, typer.Option(
        "--quick", help="One seat count and seat per game instead of every one (a first look).")] = False
    time_per_move: Annotated[str, typer.Option(
        "--time-per-move", help="The tight limit per decision the bot is checked under.")] = "500ms"
    startup_time: StartupArg = "10s"
    memory_mb: Annotated[int, typer.Option(
        "--memory-mb", min=16, max=1 << 30, help="The memory the bot's processes may use together, MiB: a fair "
        "share of a small machine by default; raise it for a bot that needs more.")] = 256
    no_sandbox: NoSandboxArg = False
    bots_file: BotsFileArg = None
    ro: ReadOnlyArg = None
    json_flag: JsonArg = False

    def limits(self) -> Limits:
        return Limits(memory_bytes=self.memory_mb << 20, processes=256, sandbox=not self.no_sandbox)


@takes(CheckOptions)
def check_command(options: CheckOptions) -> None:
    """Check that a bot keeps the protocol, like fastchess --compliance: the handshake,
    short games of every game (or --game) from every seat count and seat against random
    bots under a tight clock (twice for a bot that asks for legal: false: without the legal
    lists and with them), answers in time, only legal actions, one line per request
    and nothing unasked, unknown fields and message types ignored, many games in one
    process, exit on quit and on a closed stdin. Each check is reported with the line
    that failed; exit code 0 only when every check passes (1 otherwise)."""
    with json_output(options.json_flag):
        with arena_errors():
            games = [load_game(options.game_id)] if options.game_id is not None else [GAMES[g] for g in sorted(GAMES)]
        try:
            per_move = str(bare_seconds_checked(options.time_per_move, "--time-per-move"))
            control = TimeControl(per_move_s=parse_seconds(per_move, "--time-per-move"))
            timing = Timing(startup_s=parse_seconds(options.startup_time, "--startup-time"), grace_s=0.05)
        except TimeControlError as exc:
            raise fail(str(exc)) from None
        limits = options.limits()
        warn_isolation(limits)
        with arena_errors():
            registry = load_registry(options.bots_file)
        specs = {game.id: _resolve(options.bot, game, registry, limits) for game in games}  # mistakes before a game
        with arena_errors():
            for spec in specs.values():
                allow_read_only([spec], options.ro or ())
                check_bots([spec], limits, ())
        with console.status("checking") as status:
            checker = Checker(lambda game: specs[game.id], games, control, timing, limits, options.quick,
                              progress=lambda text: status.update(f"checking: {text}"))
            report = checker.run()
        _print_report(specs[games[0].id], report, options.json_flag)
        if not report.passed:
            raise typer.Exit(1)


def _print_report(spec: BotSpec, report: Report, json_flag: bool) -> None:
    """The checks as a table (each failure with its line), the notes and the games
    played; and the JSON document with --json."""
    table = Table(title=f"arena check {spec.name}: " + ("every check passed" if report.passed else "FAILED"))
    for column in ("check", "result", "what failed"):
        table.add_column(column, overflow="fold")
    for check in report.checks.values():
        mark = "[dim]not run[/]" if check.skipped else "[green]pass[/]" if check.passed else "[bold red]FAIL[/]"
        failed = check.detail if check.skipped else "" if check.passed else \
            f"{check.detail}\nline: {check.line}" if check.line else check.detail
        table.add_row(Text(f"{check.name}\n") + Text(check.about, style="dim"), Text.from_markup(mark), failed)
    console.print(table)
    for note in report.notes:
        console.print(note, highlight=False)
    console.print(f"{len(report.games)} game setting(s) played: " + "; ".join(report.games[:6]) +
                  (" ..." if len(report.games) > 6 else ""), highlight=False)
    if json_flag:
        print_json({"bot": spec.name, "passed": report.passed, "games": report.games,
                    "notes": report.notes,
                    "checks": [{"name": c.name, "about": c.about, "passed": c.passed, "skipped": c.skipped,
                                "detail": c.detail, "line": c.line} for c in report.checks.values()]})


def _resolve(bot: str, game: Game, registry: Registry | None, limits: Limits) -> BotSpec:
    """The bot for `game`: a registry name, a shipped bot's name, or a command line."""
    try:
        return resolve_one(bot, game, registry, limits)
    except SetupError as exc:
        per_game = bot.strip() in PER_GAME  # a shipped name means another program per game
        raise fail(f"{game.id}: {exc}" if per_game else str(exc)) from None
