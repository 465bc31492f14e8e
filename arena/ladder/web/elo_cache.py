"""The leaderboard's Elo, cached: the board reads the totals the store keeps with every
game, but its Elo is a fit over the pairs of versions that met (tens of milliseconds
with 100 bots, too much for every request). It is cached per table by the table's last
game and the versions on its board, and refitted at most every REFRESH_S by a task of
the app's lifespan (`keep_fresh`), so a page only reads it."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import anyio
import anyio.to_thread

from arena.ladder.config import LadderTable
from arena.ladder.web import queries
from arena.stats.ratings import Rating

REFRESH_S = 3.0
"""A table's Elo is refitted at most this often, however fast games end."""


@dataclass
class _Elo:
    last: int
    """The table's last game when it was fitted."""
    versions: tuple[int, ...]
    elo: dict[int, Rating]
    at: float


class EloCache:
    """Each 2-seat table's Elo of the versions on its board, fitted in a worker thread
    from the pair totals the store keeps. While the app runs, `keep_fresh` refits it
    every REFRESH_S when games came or the board's versions changed, and a page only
    reads what it made; without it (an app nobody started) a page refits a table
    itself, at most every REFRESH_S."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept_fresh = False
        self._fits: dict[str, _Elo] = {}
        self._fitting: dict[str, anyio.Event] = {}
        """The tables being fitted now, each with the event set when its fit is stored."""

    async def get(self, table: LadderTable, last: int, versions: tuple[int, ...]) -> dict[int, Rating]:
        """The table's Elo (none for a table of more than two seats)."""
        if table.seats != 2:
            return {}
        fit = self._fits.get(table.key)
        if fit is not None:
            current = fit.last == last and fit.versions == versions
            if current or self.kept_fresh or time.monotonic() - fit.at < REFRESH_S or table.key in self._fitting:
                return fit.elo
        return (await self.update(table, versions)).elo

    async def update(self, table: LadderTable, versions: tuple[int, ...]) -> _Elo:
        """The table's Elo, refitted (unchanged when no game came and the versions on
        the board are the same). A fit of the table already under way is waited for
        rather than run twice at once (a page that comes while the refresher fits)."""
        while (running := self._fitting.get(table.key)) is not None:
            await running.wait()
            fit = self._fits.get(table.key)
            if fit is not None and fit.versions == versions:
                return fit
        done = self._fitting[table.key] = anyio.Event()
        try:
            fit = await anyio.to_thread.run_sync(self._fit, table, versions, self._fits.get(table.key))
            self._fits[table.key] = fit
        finally:
            del self._fitting[table.key]
            done.set()
        return fit

    def _fit(self, table: LadderTable, versions: tuple[int, ...], previous: _Elo | None) -> _Elo:
        with queries.reading(self.path) as db:
            last = queries.last_game(db, table.key)
            if previous is not None and previous.versions == versions and previous.last == last:
                return replace(previous, at=time.monotonic())
            pairs = queries.table_pairs(db, table.key)
        return _Elo(last, versions, queries.elo_of(list(versions), pairs), time.monotonic())

    async def keep_fresh(self, tables: Sequence[LadderTable],
                         board_versions: Callable[[LadderTable], Awaitable[tuple[int, ...]]]) -> None:
        """Refit every 2-seat table's Elo every REFRESH_S, off the pages' path (the first
        time before a page asks, when it can), until cancelled. Should it fail other
        than by a database that cannot be read this once, the pages go back to refitting
        it themselves (and show the error), and the server goes on."""
        self.kept_fresh = True
        try:
            while True:
                for table in tables:
                    if table.seats != 2:
                        continue
                    with contextlib.suppress(queries.QueryError, sqlite3.OperationalError):
                        await self.update(table, await board_versions(table))
                await anyio.sleep(REFRESH_S)
        except Exception:  # noqa: BLE001 - the pages report it; the ladder must go on
            return
        finally:
            self.kept_fresh = False
