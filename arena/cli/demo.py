"""The demo: a short league of the bundled bots for every game the arena has, built
from the same league description a TOML file gives (docs/leagues.md)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import console, fail
from arena.cli.options import SeedArg
from arena.errors import ArenaError
from arena.games import GAMES
from arena.league.config import BotEntry, League, LeagueFile, LeagueFileError, TimeSection, resolve_league
from arena.referee.botnames import shipped_bots

DEMO_BOTS = ("random", "greedy", "search")
"""Shipped bots that take part, where the game has them."""

PER_MOVE = "100ms"
"""Per-decision limit in the demo: search bots think for a fraction of it."""


def demo_leagues(output: Path, seed: int, games_per_pairing: int = 6) -> list[League]:
    """A 2-seat round-robin of the demo bots for every game that ships at least two of
    them, and a 3-seat league (rated with OpenSkill) for games played by 3 or more."""
    leagues = []
    for game in GAMES.values():
        available = shipped_bots(game.id)
        names = [name for name in DEMO_BOTS if name in available]
        if len(names) < 2:
            continue
        line_ups = [(2, names, game.id, games_per_pairing)]
        if game.max_seats >= 3:
            line_ups.append((3, [*names, "random-2"][:max(3, len(names))], f"{game.id}-3", 3))
        for seats, bots, folder, games in line_ups:
            entries = [BotEntry(name=name, command=name.split("-")[0]) for name in bots]
            raw = LeagueFile(name=f"demo {game.id} ({seats} seats)", game=game.id, bots=entries, seats=seats,
                             games_per_pairing=games, seed=seed, output=str(output / folder),
                             time=TimeSection(per_move=PER_MOVE))
            leagues.append(resolve_league(raw, Path.cwd()))
    return leagues


DEMO_MARK = ".arena-demo"
"""A file the demo leaves in each folder it fills, so that it only ever replaces its own."""


LEAGUE_FILES = {"league.sqlite", "league.sqlite-wal", "league.sqlite-shm", "league.pgn", "league.pgn.tmp", "logs"}
"""What a league leaves in its folder (a demo folder from before the mark holds only these)."""


class DemoFolderError(ArenaError):
    """The demo's output folder holds something the demo did not put there."""


def clear_demo_output(league: League) -> None:
    """Remove a previous demo's results so the demo plays afresh: only a folder the
    demo made (it holds the demo's mark), never anything else; then mark the folder."""
    folder = league.output
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / DEMO_MARK).is_file() and not {p.name for p in folder.iterdir()} <= LEAGUE_FILES:
            raise DemoFolderError(f"{folder} holds files the demo did not make; it was left as it is: "
                                  "give the demo another --out folder")
        shutil.rmtree(folder)
    elif folder.exists() and not folder.is_dir():
        raise DemoFolderError(f"{folder} is a file; give the demo another --out folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / DEMO_MARK).write_text("made by `arena demo`, which replaces this folder on its next run\n")
    except OSError as exc:
        raise DemoFolderError(f"cannot create {folder} ({exc.strerror}); give the demo another --out folder") from None


def demo_command(
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo leagues (replaced).")] = Path("arena-demo"),
    seed: SeedArg = 1,
    games: Annotated[int, typer.Option("--games", help="Games per pairing in the 2-seat leagues.", min=2)] = 6,
) -> None:
    """A short round-robin league of the bundled bots (random, greedy, search) in every
    game, with live standings; records and databases go to --out."""
    from arena.cli.league import print_tables, run_league

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
