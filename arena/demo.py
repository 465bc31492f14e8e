"""The demo: a short league of the bundled bots for every game the arena has, built
from the same league description a TOML file gives (docs/leagues.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.botnames import shipped_bots
from arena.games import GAMES
from arena.league.config import BotEntry, League, LeagueFile, TimeSection, resolve_league

DEMO_BOTS = ("random", "greedy", "search")
"""Shipped bots that take part, where the game has them."""

PER_MOVE = "100ms"
"""Per-decision limit in the demo: search bots think for a fraction of it."""


def demo_leagues(output: Path, seed: int, games_per_pairing: int = 2) -> list[League]:
    """One round-robin league per game that ships at least two of the demo bots."""
    leagues = []
    for game in GAMES.values():
        available = shipped_bots(game.id)
        bots = [BotEntry(name=name, command=name) for name in DEMO_BOTS if name in available]
        if len(bots) < 2:
            continue
        raw = LeagueFile(name=f"demo {game.id}", game=game.id, bots=bots, seats=2,
                         games_per_pairing=games_per_pairing, seed=seed, output=str(output / game.id),
                         time=TimeSection(per_move=PER_MOVE))
        leagues.append(resolve_league(raw, Path.cwd()))
    return leagues


def clear_demo_output(league: League) -> None:
    """Remove a previous demo's results so the demo plays afresh (only a folder that
    holds a league database, never anything else)."""
    if league.database.exists():
        shutil.rmtree(league.output)
