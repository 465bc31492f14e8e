"""`arena bench` for the ladder: issue #37's three performance targets, measured in one
run. The pages: the leaderboard and a bot's page of a synthetic store (100 bots,
100,000 games) through the real ASGI app, first request and warm median, against
200 ms. The busy share: a real ladder of random bots played for a while, the share of
the time its `concurrency` slots spent playing, against 95%. The memory: this
process's RSS (it is the referee) after the first games and after many more, which
should stay flat."""

from __future__ import annotations

import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import trio
from rich.table import Table

from arena.errors import ArenaError
from arena.ladder.config import Ladder
from arena.ladder.runner import LadderRunner
from arena.ladder.service import init_ladder
from arena.ladder.store import LadderStore
from arena.ladder.submissions import Submissions
from arena.ladder.tokens import TokenChecker, placeholder_hash
from arena.ladder.web import queries
from arena.ladder.web.app import ladder_app
from arena.process.botnames import shipped_bots
from arena.process.sandbox import probe

PAGE_TARGET_MS = 200.0
BUSY_TARGET = 0.95
WARM_REQUESTS = 10
ENTRANTS = 8
CONCURRENCY = 2
MIN_GAMES = 2
FIRST_MEMORY_GAMES = 200
"""Games played before the first RSS sample: start-up's allocations are behind us by then."""
ISSUE_MEMORY_GAMES = 10_000
"""What the issue asks the memory to stay flat over."""
STALL_S = 300.0
"""Longest wait for the next game before the bench gives up on a ladder that plays none."""
POLL_S = 0.05


class LadderBenchError(ArenaError):
    """A ladder measurement that could not be made; the message says why."""


# ---- the pages ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageTime:
    """One page's answer times: its first request, then the median of the warm ones."""

    page: str
    path: str
    first_ms: float
    warm_ms: float
    warm: int


def bot_name(bots: int) -> str:
    """A bot in the middle of a synthetic store (synthetic_store names them bot001...)."""
    return f"bot{max(1, bots // 2):03}"


def page_times(folder: Path, bots: int, games: int, warm: int = WARM_REQUESTS, seed: int = 1) -> list[PageTime]:
    """Fill a ladder made in `folder` with a synthetic store and time `/` and a bot's
    page through the app, served as hypercorn serves it (inside its lifespan, so the
    boards' background refresh runs beside the first request)."""
    ladder = init_ladder(folder, "bench pages", ["btt"])
    queries.synthetic_store(ladder.database, bots, games, seed, table=ladder.tables[0].key)
    store = LadderStore.open(ladder.database, create=False)
    try:
        app = ladder_app(ladder, ladder.database, Submissions(ladder, store), {}, TokenChecker(store), store.secret)
        pages = [("leaderboard", "/"), ("bot page", f"/bot/{bot_name(bots)}")]

        async def main() -> list[PageTime]:
            async with app.router.lifespan_context(app), httpx.AsyncClient(
                    transport=httpx.ASGITransport(app), base_url="http://bench") as http:
                first = {path: await request_ms(http, path) for _, path in pages}
                times = []
                for page, path in pages:
                    warm_ms = [await request_ms(http, path) for _ in range(warm)]
                    times.append(PageTime(page, path, first[path], statistics.median(warm_ms), warm))
                return times

        return trio.run(main)
    finally:
        store.close()


async def request_ms(http: httpx.AsyncClient, path: str) -> float:
    begin = time.perf_counter()
    answer = await http.get(path)
    elapsed = (time.perf_counter() - begin) * 1000
    if answer.status_code != 200:
        raise LadderBenchError(f"GET {path} answered {answer.status_code}, not 200: {answer.text[:300]}")
    return elapsed


def pages_table(times: list[PageTime], bots: int, games: int) -> Table:
    warm = times[0].warm if times else WARM_REQUESTS
    table = Table(title=f"Ladder pages ({bots:,} bots, {games:,} games, synthetic store; in-process ASGI app "
                        "with its lifespan)")
    for column in ("page", "first request", f"warm median of {warm}", "target"):
        table.add_column(column, justify="right")
    for page in times:
        table.add_row(f"{page.page} {page.path}", _ms(page.first_ms), _ms(page.warm_ms),
                      f"{PAGE_TARGET_MS:.0f} ms: first {_verdict(page.first_ms < PAGE_TARGET_MS)}, "
                      f"warm {_verdict(page.warm_ms < PAGE_TARGET_MS)}")
    return table


def _verdict(met: bool) -> str:
    return "met" if met else "missed"


def _ms(value: float) -> str:
    return f"{value:,.1f} ms"


# ---- a real ladder of random bots ---------------------------------------------------------------


def random_ladder(folder: Path, entrants: int = ENTRANTS, concurrency: int = CONCURRENCY,
                  min_games: int = MIN_GAMES) -> Ladder:
    """A ladder made in `folder` with `entrants` entrants, each with the shipped random
    bot submitted as a Python version and prepared (unpacked, checked) as the ladder's
    door does it. The returned Ladder has `concurrency` and `min_games` set (the file
    keeps its defaults)."""
    ladder = replace(init_ladder(folder, "bench ladder", ["btt"]), concurrency=concurrency, min_games=min_games)
    source = shipped_bots(ladder.tables[0].game.id)["random"].read_bytes()
    store = LadderStore.open(ladder.database, create=False)
    try:
        for k in range(entrants):
            store.add_entrant(f"entrant{k + 1}", placeholder_hash(), actor="bench")
        trio.run(_submit_all, ladder, store, entrants, source)
    finally:
        store.close()
    return ladder


async def _submit_all(ladder: Ladder, store: LadderStore, entrants: int, source: bytes) -> None:
    door = Submissions(ladder, store)
    for k in range(entrants):
        entrant = store.entrant(f"entrant{k + 1}")
        assert entrant is not None
        version = await door.submit(entrant, f"random{k + 1}", "python", "bot.py", source)
        await door.prepare(version.id)
        prepared = store.version(version.id)
        if prepared is None or prepared.state != "ready":
            log = "" if prepared is None else prepared.log
            raise LadderBenchError(f"the random bot's version did not become ready on this machine:\n{log}")


async def _wait_for_games(runner: LadderRunner, count: int) -> None:
    """Until the runner has played `count` games (LadderBenchError if it stalls)."""
    seen, since = runner.games_played, time.monotonic()
    while runner.games_played < count:
        await trio.sleep(POLL_S)
        if runner.games_played != seen:
            seen, since = runner.games_played, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            raise LadderBenchError(f"the ladder played no game in {STALL_S:.0f} s (after {seen}); "
                                   "see `arena doctor` for this machine's sandbox")


# ---- the busy share ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BusyShare:
    games: int
    seconds: float
    share: float
    """Of the slots' time, the part spent playing units (runner.clock)."""
    concurrency: int

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0


def busy_share(ladder: Ladder, seconds: float) -> BusyShare:
    """Play `ladder` for `seconds` and read its slots' clock."""
    store = LadderStore.open(ladder.database, create=False)
    try:
        async def main() -> BusyShare:
            runner = LadderRunner(ladder, store)
            begin = time.monotonic()
            with trio.move_on_after(seconds):
                await runner.run()
            share = runner.clock.share(ladder.concurrency)
            return BusyShare(runner.games_played, time.monotonic() - begin, share, ladder.concurrency)

        return trio.run(main)
    finally:
        store.close()


def busy_table(busy: BusyShare, entrants: int, seconds: float) -> Table:
    table = Table(title=f"Ladder busy share ({entrants} random bots in Python, BTT 2 seats, concurrency "
                        f"{busy.concurrency}, {seconds:g} s)")
    for column in ("games", "games/s", "busy share", "target"):
        table.add_column(column, justify="right")
    table.add_row(f"{busy.games:,}", f"{busy.games_per_s:,.1f}", f"{busy.share * 100:.1f}%",
                  f"{BUSY_TARGET * 100:.0f}% ({_verdict(busy.share >= BUSY_TARGET)})")
    return table


# ---- the referee's memory -----------------------------------------------------------------------


def rss_mb() -> float:
    """This process's resident memory (VmRSS; where there is no /proc, the peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


@dataclass(frozen=True)
class MemoryGrowth:
    first_games: int
    first_mb: float
    last_games: int
    last_mb: float

    @property
    def kb_per_1000_games(self) -> float:
        played = self.last_games - self.first_games
        return (self.last_mb - self.first_mb) * 1024 / played * 1000 if played > 0 else 0.0


def memory_growth(ladder: Ladder, games: int, first: int = FIRST_MEMORY_GAMES) -> MemoryGrowth:
    """Play `ladder` (a runner of its own) until `games` games, sampling this process's
    RSS once `first` games are played and at the end."""
    if not 0 < first < games:
        raise LadderBenchError(f"give more games ({games}) than the first sample's {first}")
    store = LadderStore.open(ladder.database, create=False)
    try:
        async def main() -> MemoryGrowth:
            runner = LadderRunner(ladder, store)
            samples: list[tuple[int, float]] = []
            async with trio.open_nursery() as nursery:
                nursery.start_soon(runner.run)
                for mark in (first, games):
                    await _wait_for_games(runner, mark)
                    samples.append((runner.games_played, rss_mb()))
                nursery.cancel_scope.cancel()
            (first_games, first_mb), (last_games, last_mb) = samples
            return MemoryGrowth(first_games, first_mb, last_games, last_mb)

        return trio.run(main)
    finally:
        store.close()


def memory_table(memory: MemoryGrowth, games: int) -> Table:
    table = Table(title=f"Ladder referee memory (this process's RSS, {games:,} games; the issue asks "
                        f"{ISSUE_MEMORY_GAMES:,})")
    for column in (f"after {memory.first_games:,} games", f"after {memory.last_games:,} games",
                   "growth per 1,000 games"):
        table.add_column(column, justify="right")
    table.add_row(f"{memory.first_mb:,.1f} MB", f"{memory.last_mb:,.1f} MB", f"{memory.kb_per_1000_games:,.0f} KB")
    return table


# ---- the part -----------------------------------------------------------------------------------


def ladder_tables(bots: int = 100, games: int = 100_000, seconds: float = 60.0,
                  memory_games: int = 2000) -> Iterator[Table]:
    """The part's three tables, each as soon as it is measured (the same ladder of random
    bots plays the busy share, then goes on for the memory)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-ladder-"))
    try:
        yield pages_table(page_times(folder / "pages", bots, games), bots, games)
        ladder = random_ladder(folder / "play")
        busy = busy_share(ladder, seconds)
        table = busy_table(busy, ENTRANTS, seconds)
        isolation = probe()
        table.caption = "bots sandboxed" if isolation.sandbox else f"bots NOT sandboxed: {isolation.why}"
        yield table
        yield memory_table(memory_growth(ladder, memory_games), memory_games)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
