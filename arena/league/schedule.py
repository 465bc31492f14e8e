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


def work_units(pending: list[ScheduledGame], seats: int = 2, concurrency: int = 1,
               chance: bool = False) -> list[list[ScheduledGame]]:
    """Group pending games for the workers, in the order they should start: one unit
    per table and rotation cycle (a cycle's seats rotate once, on one deal), played
    round by round across the tables as fastchess and cutechess schedule rounds
    (`round_order`), so that a league stopped at any point has given every bot about
    as many games, and its table is fair to read.

    A unit's bots start with it and end with it; so with `chance` (a deal, or dice,
    dealt duplicate: every table's cycle c on one seed) the dispatcher
    (arena.league.deal_locks) can keep a unit from running beside another that shares
    a bot and a seed with it, and no process ever holds one deal at two tables.
    `seats`, `concurrency` and `chance` no longer change the grouping: they are kept
    for the callers that pass them."""
    del seats, concurrency, chance
    units: dict[tuple[int, int], list[ScheduledGame]] = {}
    for game in pending:
        units.setdefault((game.cycle, game.table), []).append(game)
    ordered: list[list[ScheduledGame]] = []
    played: dict[int, int] = {}
    for cycle in sorted({cycle for cycle, _ in units}):
        tables = [units[key] for key in sorted(units) if key[0] == cycle]
        for unit in round_order(tables, played):
            ordered.append(unit)
            for bot in set(unit[0].seats):
                played[bot] = played.get(bot, 0) + len(unit)
    return ordered


def round_order(units: list[list[ScheduledGame]], played: dict[int, int]) -> list[list[ScheduledGame]]:
    """One cycle's units in rounds: each round a set of tables that share no bot, filled
    first with the tables whose bots have played least so far (`played`, updated by the
    caller), so every bot's count of games grows evenly through the cycle."""
    left = list(units)
    ordered: list[list[ScheduledGame]] = []
    counts = dict(played)
    while left:
        busy: set[int] = set()
        for unit in sorted(left, key=lambda u: (sum(counts.get(b, 0) for b in set(u[0].seats)), u[0].table)):
            bots = set(unit[0].seats)
            if busy.isdisjoint(bots):
                busy |= bots
                ordered.append(unit)
                left.remove(unit)
                for bot in bots:
                    counts[bot] = counts.get(bot, 0) + len(unit)
    return ordered
