"""A league that grows: the games a league file asks for, matched against the games a
league's database holds, so that adding a bot or raising games_per_pairing plays only
the new games, and removing a bot keeps its games stored (out of the table).

A game is known by the bots at its table (their names) and its place in that table,
never by its number: tables are numbered in the order of their bots' combinations, and
a bot added to the file would shift every number after it. Bots are numbered once, in
the order they joined the league (the roster), so a stored game's seats name the same
bots whatever the file's order; a table's seats rotate over its bots in roster order
and a game's seed depends on its cycle alone (duplicate deals) or on its number (fresh
deals), so a stored game keeps its seats and seed when the league grows, and new games
get numbers after every stored one (with fresh deals, seeds no stored game has).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from arena.league.config import League
from arena.league.database import LeagueStoreError
from arena.league.schedule import ScheduledGame, game_seed, table_games


@dataclass
class LeaguePlan:
    """The league file's schedule in terms of the stored one."""

    roster: list[str]
    """Every bot that ever took part, by number: the stored ones, then the new ones."""
    new_bots: list[str]
    new_games: list[ScheduledGame]
    """Games to add to the stored schedule (numbered after every stored game)."""
    active: list[ScheduledGame]
    """The league file's games, stored or new, in playing order."""
    removed: list[str]
    """Bots of the roster the league file no longer names (their games stay stored)."""

    def numbers(self, names: list[str]) -> list[int]:
        """The roster numbers of these bots."""
        return [self.roster.index(name) for name in names]

    def growth(self, grown: bool) -> str | None:
        """What changed since the league last ran, for a person ("" parts left out);
        `grown`: whether the new games were added (a run) or only counted (a table)."""
        parts = []
        if self.new_bots:
            parts.append(f"{len(self.new_bots)} bot(s) added ({', '.join(self.new_bots)})")
        if self.new_games:
            parts.append(f"{len(self.new_games)} new game(s) {'scheduled' if grown else 'to play'}")
        if self.removed:
            parts.append(f"{', '.join(self.removed)} no longer in the league file (their games stay stored, out "
                         "of the table; `arena league table --include-removed` shows them)")
        return "; ".join(parts) or None


def plan_league(league: League, roster: list[str], stored: list[ScheduledGame], finished: set[int]) -> LeaguePlan:
    """Match the league file's games to the stored schedule (`roster` and `stored`
    empty for a new league, whose games are then numbered exactly as build_schedule
    numbers them). LeagueStoreError when the file asks for fewer games per pairing
    than a table has played."""
    names = [bot.name for bot in league.bots]
    new_bots = [name for name in names if name not in roster]
    everyone = [*roster, *new_bots]
    number = {name: i for i, name in enumerate(everyone)}
    gauntlet = number[names[league.gauntlet]] if league.schedule == "gauntlet" else None
    wanted = table_games([number[name] for name in names], league, gauntlet)
    known = {(_bots_of(game), game.place): game for game in stored}
    table_numbers = {_bots_of(game): game.table for game in stored}
    next_table = max(table_numbers.values(), default=-1) + 1
    next_index = max((game.index for game in stored), default=-1) + 1
    active: list[ScheduledGame] = []
    new_games: list[ScheduledGame] = []
    for want in wanted:
        old = known.get((want.table, want.place))
        if old is not None:
            if old.seats != want.seats or old.seed != game_seed(league, want.cycle, old.index):
                raise LeagueStoreError(
                    f"the stored schedule differs from the league file's at round {old.round}; set another output "
                    "folder to start a new league")
            active.append(replace(old, cycle=want.cycle))
            continue
        if want.table not in table_numbers:
            table_numbers[want.table] = next_table
            next_table += 1
        table = table_numbers[want.table]
        game = ScheduledGame(next_index, table, want.seats, game_seed(league, want.cycle, next_index),
                             f"{table + 1}.{want.place + 1}", want.cycle, want.place)
        next_index += 1
        new_games.append(game)
        active.append(game)
    _check_not_lowered(league, stored, finished, {want.table for want in wanted}, everyone)
    return LeaguePlan(everyone, new_bots, new_games, active, [name for name in roster if name not in names])


def _bots_of(game: ScheduledGame) -> tuple[int, ...]:
    return tuple(sorted(set(game.seats)))


def _check_not_lowered(league: League, stored: list[ScheduledGame], finished: set[int],
                       tables: set[tuple[int, ...]], roster: list[str]) -> None:
    """Lowering games_per_pairing drops the games not played yet beyond it; a table
    that played beyond it would have more games than the others, so that is refused."""
    beyond = [game for game in stored if game.place >= league.games_per_pairing and game.index in finished
              and _bots_of(game) in tables]
    if not beyond:
        return
    k = league.seats
    most = -(-(max(game.place for game in beyond) + 1) // k) * k  # whole seat rotations
    first = min(beyond, key=lambda game: game.index)
    bots = " v ".join(roster[b] for b in _bots_of(first))
    raise LeagueStoreError(
        f"games_per_pairing: {league.games_per_pairing} is fewer games than some tables have played ({len(beyond)} "
        f"stored game(s) lie beyond it, e.g. round {first.round}, {bots}); set it to {most} or more to keep "
        "every table equal, or set another output folder to start a new league")
