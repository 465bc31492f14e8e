"""One entrant never holds one deal at two tables at once.

A league deals duplicate by default: cycle c of every table is played on the same
seed, so every table faces the same hidden hands (The Tree) and the same dice (Roots).
A bot playing cycle c at two tables at once would have two live processes that see
one deal from different seats (or one table's coming dice) and could pass them to
each other through any channel between sandboxes. So, in a game with chance, a unit
of work (one play_match: its processes are all buried when it returns) holds a lock
on every (bot, seed) its games deal to its bots, for its whole life; a unit may start
only when it can take all its locks at once, so two units sharing a bot and a seed
never run together. Both executors (this machine's and the Dask one) dispatch through a
`Dispatcher`, the one place of the rule.

Deadlock cannot happen: a unit takes all its locks at once or none and waits holding
nothing, and when nothing runs no lock is held, so the first waiting unit can start.

With `deals = "fresh"` no two games of a league share a seed, so no two units share a
deal: the locks are still taken (each unit's own deals) and never wait. A unit is one
rotation cycle of one table (arena.league.schedule.work_units).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from arena.league.schedule import ScheduledGame

Deal = tuple[int, int]
"""(a bot's roster number, a seed): that bot's processes see that seed's deal."""

T = TypeVar("T")


def unit_deals(games: Iterable[ScheduledGame], chance: bool) -> frozenset[Deal]:
    """The deals a unit's processes see: each of its bots with each of its seeds, in a
    game with chance; none without (a game without chance has nothing to pass on)."""
    if not chance:
        return frozenset()
    return frozenset((bot, game.seed) for game in games for bot in game.seats)


class Dispatcher(Generic[T]):
    """Hands out units in their order, each when it is startable: fewer than
    `capacity` units run, and none of its deals is held by a running unit. The caller
    plays each unit it is given and calls `release` once every process of the unit has
    ended (not merely when its last game ended: a bot quitting still holds its deal)."""

    def __init__(self, units: Sequence[T], deals: Callable[[T], frozenset[Deal]], capacity: int) -> None:
        self.waiting = list(units)
        self.running: list[T] = []
        self.capacity = max(1, capacity)
        self._deals = deals
        self._held: set[Deal] = set()

    @property
    def finished(self) -> bool:
        """Whether every unit was handed out and released."""
        return not self.waiting and not self.running

    def startable(self, unit: T) -> bool:
        """Whether `unit` could start now, as far as its deals go."""
        return self._held.isdisjoint(self._deals(unit))

    def take(self) -> T | None:
        """The first waiting unit that may start now, its locks taken; None when the
        running units fill the capacity or hold a deal of every waiting unit."""
        if len(self.running) >= self.capacity:
            return None
        for position, unit in enumerate(self.waiting):
            if self.startable(unit):
                del self.waiting[position]
                self.running.append(unit)
                self._held |= self._deals(unit)
                return unit
        return None

    def take_all(self) -> list[T]:
        """Every unit that may start now (see `take`), in order."""
        started = []
        while (unit := self.take()) is not None:
            started.append(unit)
        return started

    def release(self, unit: T) -> None:
        """`unit` ended, its processes with it: its deals are free again."""
        position = next(k for k, running in enumerate(self.running) if running is unit)
        del self.running[position]
        self._held -= self._deals(unit)
