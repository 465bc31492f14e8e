"""The demo's leagues: a short league of the bundled bots for every game the arena has,
built from the same league description a TOML file gives (docs/leagues.md), each in a
folder the demo owns and replaces."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.errors import ArenaError
from arena.games import GAMES
from arena.league.config import BotEntry, League, LeagueFile, TimeSection, resolve_league
from arena.process.botnames import shipped_bots

DEMO_BOTS = ("random", "greedy", "search")
"""Shipped bots that take part, where the game has them."""

PER_MOVE = "100ms"
"""Per-decision limit in the demo: search bots think for a fraction of it."""
BASIS = "cpu"
"""The demo's time basis: each bot is charged the CPU time of its own processes, so a
machine busy with more than the demo (a test suite beside it, a browser drawing pages)
cannot decide its games. On the wall basis a 2-core machine under load stalled whole at
times (100-420 ms, measured beside the test suite) and bots that answered in a
millisecond were charged with time-outs; the bots plan on the same clock (protocol.bot's
clock() reads CPU time on this basis), so the demo stays as short and plays the same."""
GRACE = "250ms"
"""The referee's allowance beyond the limit in the demo (20 ms elsewhere): on the CPU
basis it covers CPU a bot spends beyond its plan (its garbage collector, an interpreter
warming up) and widens the wall backstop (10 times the limit plus grace, plus 1 s: 4.5 s)
that ends a decision of a bot given almost no CPU by a stalled machine."""


def demo_leagues(output: Path, seed: int, games_per_pairing: int = 6, per_move: str = PER_MOVE) -> list[League]:
    """A 2-seat round-robin of the demo bots for every game that ships at least two of
    them, and a 3-seat league (rated with OpenSkill) for games played by 3 or more;
    `per_move` is the limit per decision (longer on a slow machine)."""
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
                             time=TimeSection(per_move=per_move, basis=BASIS, grace=GRACE))
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
