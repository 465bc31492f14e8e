"""League schedules: which bots meet, in which seats, with which seed.

Round-robin: every set of `seats` bots forms a table (every pair of bots meets);
gauntlet: every table holds the gauntlet bot and `seats - 1` others. Each table plays
`games_per_pairing` games in cycles of `seats` games; within a cycle the seats rotate
(each bot plays each seat once) and the seed is the same, so chance is dealt
duplicate and first-move advantage cancels. Cycle c of every table has the same seed:
all tables face the same deals and dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from arena.league.config import League
from arena.referee.seeds import cycle_seed, rotated


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the league: its number, its table (pairing), seating and seed."""

    index: int
    table: int
    seats: tuple[int, ...]
    """League bot index in each seat."""
    seed: int
    round: str
    cycle: int = field(default=0, compare=False)
    """The seat rotation of its table it belongs to (its seed's and opening's number);
    not stored, so not compared: the stored schedule is the same without it."""


def tables(league: League) -> list[tuple[int, ...]]:
    """The bot sets that meet, each sorted by bot index."""
    bots = range(len(league.bots))
    if league.schedule == "gauntlet":
        field = [b for b in bots if b != league.gauntlet]
        return [tuple(sorted((league.gauntlet, *others))) for others in combinations(field, league.seats - 1)]
    return list(combinations(bots, league.seats))


def build_schedule(league: League) -> list[ScheduledGame]:
    """Every game of the league in playing order (table by table)."""
    games: list[ScheduledGame] = []
    k = league.seats
    for table_index, table in enumerate(tables(league)):
        for g in range(league.games_per_pairing):
            cycle, shift = divmod(g, k)
            seats = rotated(table, shift)
            games.append(ScheduledGame(len(games), table_index, seats, cycle_seed(league.seed, cycle),
                                       f"{table_index + 1}.{g + 1}", cycle))
    return games


def work_units(pending: list[ScheduledGame], seats: int, concurrency: int) -> list[list[ScheduledGame]]:
    """Group pending games for the workers: one unit per table (its bots start once
    and serve all its games), split into whole rotation cycles when there are fewer
    tables than workers so every worker has something to play."""
    by_table: dict[int, list[ScheduledGame]] = {}
    for game in pending:
        by_table.setdefault(game.table, []).append(game)
    units = list(by_table.values())
    while len(units) < concurrency:
        largest = max(units, key=len, default=[])
        if len(largest) <= seats:
            break
        units.remove(largest)
        half = (len(largest) // 2 + seats - 1) // seats * seats
        half = min(max(half, seats), len(largest) - 1)
        units += [largest[:half], largest[half:]]
    return units
