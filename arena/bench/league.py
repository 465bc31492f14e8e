"""`arena bench` for leagues: games per second of a 2-seat league of random bots at
concurrency 1, 2 and 4, and the referee's share of all CPU spent."""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from pathlib import Path

import trio
from rich.table import Table

from arena.league.config import BotEntry, LeagueFile, TimeSection, resolve_league
from arena.league.runner import LeagueRunner, open_league


def league_run(concurrency: int, games: int, folder: Path) -> tuple[float, float, float]:
    """Wall seconds, referee CPU seconds and bots' CPU seconds for one league."""
    raw = LeagueFile(name=f"bench c{concurrency}", game="btt", seats=2, games_per_pairing=games,
                     bots=[BotEntry(name="a", command="random"), BotEntry(name="b", command="random")],
                     concurrency=concurrency, output=str(folder / f"c{concurrency}"),
                     time=TimeSection(per_move="5s"))
    league = resolve_league(raw, folder)
    store, schedule = open_league(league)
    runner = LeagueRunner(league, store, schedule)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_before = time.process_time()
    begin = time.perf_counter()
    try:
        trio.run(runner.run)
    finally:
        store.close()
    wall = time.perf_counter() - begin
    cpu = time.process_time() - cpu_before
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    bots_cpu = (children.ru_utime + children.ru_stime) - (children_before.ru_utime + children_before.ru_stime)
    return wall, cpu, bots_cpu


def league_table(games: int = 200) -> Table:
    table = Table(title=f"League of random bots (BTT, 2 seats, {games} games, start-up included)")
    for column in ("concurrency", "games/s", "referee CPU/game", "bots CPU/game", "referee share of CPU"):
        table.add_column(column, justify="right")
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-league-"))
    try:
        for concurrency in (1, 2, 4):
            wall, cpu, bots = league_run(concurrency, games, folder)
            table.add_row(str(concurrency), f"{games / wall:,.1f}", f"{cpu / games * 1000:.1f} ms",
                          f"{bots / games * 1000:.1f} ms", f"{cpu / (cpu + bots) * 100:.0f}%")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return table
