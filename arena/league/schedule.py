"""League schedules: which bots meet, in which seats, with which seed.

Round-robin: every set of `seats` bots forms a table (every pair of bots meets);
gauntlet: every table holds the gauntlet bot and `seats - 1` others. Each table plays
`games_per_pairing` games in cycles of `seats` games; within a cycle the seats rotate
(each bot plays each seat once) and the seed is the same, so chance is dealt
duplicate and first-move advantage cancels. Cycle c of every table has the same seed:
all tables face the same deals and dice (and no bot plays one deal at two tables at
once: arena.league.deal_locks).

With `deals = "fresh"` every game has a seed of its own instead: its deal number is
its schedule index (seeds.deal_number), which no other game of the league ever gets
(a stored game keeps its index, new games are numbered after every stored one), so no
deal is played twice; seats and openings still go by the rotation cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from arena.league.config import League
from arena.referee.seeds import cycle_seed, deal_number, fresh_rotation, rotated


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the league: its number, its table (pairing), seating and seed."""

    index: int
    table: int
    seats: tuple[int, ...]
    """The roster number of the bot in each seat (a bot's number is its place in the
    league file when the league started; bots added later get the next numbers)."""
    seed: int
    round: str
    cycle: int = field(default=0, compare=False)
    """The seat rotation of its table it belongs to (its seed's and opening's number);
    not stored, so not compared: the stored schedule is the same without it."""
    place: int = 0
    """Which game of its table it is (0, 1, ...): it fixes the seats' rotation and the
    seed, so a game keeps both when the league grows."""


@dataclass(frozen=True)
class TableGame:
    """A game as the league file asks for it, before it has a number: its table (the
    bots that meet, sorted by roster number), its place there, seats and cycle (its
    seed comes with its number: game_seed)."""

    table: tuple[int, ...]
    place: int
    seats: tuple[int, ...]
    cycle: int


def game_seed(league: League, cycle: int, index: int) -> int:
    """The chance seed of the league's game numbered `index`, of rotation cycle `cycle`:
    the cycle's (duplicate deals: every table's cycle c on one seed), or the game's own
    (fresh deals: from its number, never another game's)."""
    return cycle_seed(league.seed, deal_number(league.deals, cycle, index))


def game_origin(league: League, game: ScheduledGame) -> tuple[tuple[int, int], int | None]:
    """What a game's record says of its chance: the league's seed with the game's deal
    number (the Seed and Cycle tags), and with fresh deals its rotation cycle (Rotation)."""
    return (league.seed, deal_number(league.deals, game.cycle, game.index)), fresh_rotation(league.deals, game.cycle)


def table_sets(bots: Sequence[int], seats: int, gauntlet: int | None = None) -> list[tuple[int, ...]]:
    """The bot sets that meet, each sorted by roster number: every `seats` of `bots`
    (round-robin), or those holding the `gauntlet` bot."""
    ordered = sorted(bots)
    if gauntlet is not None:
        others = [b for b in ordered if b != gauntlet]
        return [tuple(sorted((gauntlet, *rest))) for rest in combinations(others, seats - 1)]
    return list(combinations(ordered, seats))


def table_games(bots: Sequence[int], league: League, gauntlet: int | None = None) -> list[TableGame]:
    """Every game the league file asks for between `bots` (roster numbers), table by
    table: `games_per_pairing` games a table, seats rotated within each cycle of
    `seats` games."""
    games = []
    k = league.seats
    for table in table_sets(bots, k, gauntlet):
        for place in range(league.games_per_pairing):
            cycle, shift = divmod(place, k)
            games.append(TableGame(table, place, rotated(table, shift), cycle))
    return games


def tables(league: League) -> list[tuple[int, ...]]:
    """The bot sets of a new league that meet, each sorted by bot index."""
    gauntlet = league.gauntlet if league.schedule == "gauntlet" else None
    return table_sets(range(len(league.bots)), league.seats, gauntlet)


def build_schedule(league: League) -> list[ScheduledGame]:
    """Every game of a new league in playing order (table by table), numbered."""
    gauntlet = league.gauntlet if league.schedule == "gauntlet" else None
    numbers: dict[tuple[int, ...], int] = {}
    games: list[ScheduledGame] = []
    for game in table_games(range(len(league.bots)), league, gauntlet):
        table = numbers.setdefault(game.table, len(numbers))
        index = len(games)
        games.append(ScheduledGame(index, table, game.seats, game_seed(league, game.cycle, index),
                                   f"{table + 1}.{game.place + 1}", game.cycle, game.place))
    return games


def work_units(pending: list[ScheduledGame], seats: int, concurrency: int,
               chance: bool = False) -> list[list[ScheduledGame]]:
    """Group pending games for the workers, in the order they should start.

    With `chance` (a deal, dice dealt duplicate: games at several tables on one seed),
    see `cycle_units`: each unit's processes end with it, and the dispatcher
    (arena.league.deal_locks) keeps it from running beside a unit that shares a bot
    and a seed with it.

    Without chance, or with fresh deals (no two games on one seed, so no unit shares a
    deal with another), one unit per table (its bots start once and serve all its
    games), split into whole rotation cycles when there are fewer tables than workers
    so every worker has something to play."""
    if chance:
        return cycle_units(pending, concurrency)
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


def cycle_span(pending: list[ScheduledGame], concurrency: int) -> int:
    """How many cycles a unit of a game with chance plays. A unit's bots start once for
    all its cycles (in Roots they serve every game of it; in The Tree all but the first
    game of each cycle need fresh processes anyway), so long units start fewer bots; but
    only units of different spans of cycles, or of tables sharing no bot, run at once.
    So: the longest span that leaves enough spans to fill twice `concurrency` workers,
    counting the tables that can play one cycle together (The Tree with 3 seats and 4
    bots: one table, so spans alone fill the workers)."""
    cycles = len({game.cycle for game in pending})
    together = disjoint_tables({tuple(sorted(set(game.seats))) for game in pending})
    spans = -(-2 * max(1, concurrency) // together)
    return max(1, cycles // spans)


def disjoint_tables(tables: set[tuple[int, ...]]) -> int:
    """How many of `tables` can at least play at once: taken in order, each sharing no
    bot with those taken before (at least 1)."""
    busy: set[int] = set()
    count = 0
    for table in sorted(tables):
        if busy.isdisjoint(table):
            busy |= set(table)
            count += 1
    return max(1, count)


def cycle_units(pending: list[ScheduledGame], concurrency: int) -> list[list[ScheduledGame]]:
    """The units of a game with chance: one per table and span of cycles (cycle_span;
    cycles counted from 0, so a span is the same cycles at every table), its games in
    schedule order, ordered by span, then table: span by span across the tables, so a
    league stopped early leaves its tables with as many cycles played, give or take a
    span or two."""
    span = cycle_span(pending, concurrency)
    units: dict[tuple[int, int], list[ScheduledGame]] = {}
    for game in pending:
        units.setdefault((game.cycle // span, game.table), []).append(game)
    return [units[key] for key in sorted(units)]
