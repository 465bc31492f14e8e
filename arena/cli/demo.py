"""`arena demo`: the demo's leagues (arena/league/demo.py) run one after the other, with
their live standings and tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import console, fail
from arena.cli.options import SeedArg, bare_seconds_checked
from arena.errors import ArenaError
from arena.league.config import LeagueFileError
from arena.league.demo import PER_MOVE, clear_demo_output, demo_leagues
from arena.timecontrol import TimeControlError, parse_seconds

__all__ = ["clear_demo_output", "demo_command", "demo_leagues"]


def demo_command(
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo leagues (replaced).")] = Path("arena-demo"),
    seed: SeedArg = 1,
    games: Annotated[int, typer.Option("--games", help="Games per pairing in the 2-seat leagues.", min=2)] = 6,
    time_per_move: Annotated[str, typer.Option(
        "--time-per-move", metavar="TIME", help="Limit per decision, CPU time of the bot's own processes (e.g. 300ms "
        "on a slow or busy machine where bots time out).")] = PER_MOVE,
) -> None:
    """A short round-robin league of the bundled bots (random, greedy, search) in every
    game, with live standings; records and databases go to --out."""
    from arena.cli.league import print_tables, run_league

    if games % 2:
        raise fail(f"--games {games}: 2-seat games are played in pairs with seats swapped; "
                   f"give an even number such as {games + 1}")
    try:
        parse_seconds(str(bare_seconds_checked(time_per_move, "--time-per-move")), "--time-per-move")
    except TimeControlError as exc:
        raise fail(str(exc)) from None
    try:
        leagues = demo_leagues(out, seed, games, time_per_move)
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
