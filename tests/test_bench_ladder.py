"""`arena bench --only ladder` at tiny sizes: the pages answer and are timed, a ladder of
random bots is made through the ladder's own door, plays, and its busy share and memory
figures are what they say. Only the shapes and the sanity of the figures are asserted;
the speed is the command's to measure, never a test's."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from arena.bench.ladder import (
    BusyShare,
    LadderBenchError,
    MemoryGrowth,
    PageTime,
    busy_share,
    busy_table,
    memory_growth,
    memory_table,
    page_times,
    pages_table,
    random_ladder,
    request_ms,
    rss_mb,
)
from arena.ladder.service import init_ladder
from arena.ladder.store import LadderStore
from arena.process.sandbox import probe

pytestmark = pytest.mark.timeout(600)


def test_both_pages_of_a_synthetic_store_are_timed_first_and_warm(tmp_path: Path) -> None:
    times = page_times(tmp_path / "pages", bots=6, games=60, warm=3)
    assert [(t.page, t.path) for t in times] == [("leaderboard", "/"), ("bot page", "/bot/bot003")]
    assert all(t.first_ms > 0 and t.warm_ms > 0 and t.warm == 3 for t in times)
    table = pages_table(times, 6, 60)
    assert table.row_count == 2 and "6 bots, 60 games" in str(table.title)
    assert [column.header for column in table.columns][2] == "warm median of 3"


def test_a_page_that_does_not_answer_200_is_a_bench_error_not_a_figure() -> None:
    async def main() -> None:
        transport = httpx.MockTransport(lambda request: httpx.Response(503, text="down for a while"))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            await request_ms(http, "/")

    with pytest.raises(LadderBenchError, match="GET / answered 503, not 200: down for a while"):
        trio.run(main)


@pytest.mark.skipif(not probe().sandbox, reason="the ladder's bots run sandboxed; no sandbox here")
def test_a_ladder_of_random_bots_plays_and_its_busy_share_and_memory_are_measured(tmp_path: Path) -> None:
    ladder = random_ladder(tmp_path / "play", entrants=4, concurrency=2, min_games=2)
    assert ladder.concurrency == 2 and ladder.min_games == 2
    store = LadderStore.open(ladder.database, create=False)
    try:
        assert sorted(bot.name for bot in store.bots()) == [f"random{k}" for k in range(1, 5)]
        assert all(version.state == "ready" for bot in store.bots() for version in store.versions(bot.id))
    finally:
        store.close()

    busy = busy_share(ladder, seconds=3)
    assert 2.9 < busy.seconds < 60 and busy.concurrency == 2
    assert 0.0 <= busy.share <= 1.0 and busy.games >= 0
    assert busy.games_per_s == pytest.approx(busy.games / busy.seconds)
    assert busy_table(busy, 4, 3).row_count == 1

    memory = memory_growth(ladder, games=6, first=2)
    assert 2 <= memory.first_games < 6 <= memory.last_games
    assert 0 < memory.first_mb and 0 < memory.last_mb
    assert str(memory_table(memory, 6).columns[0].header).startswith("after ")


def test_figures_are_derived_from_what_was_counted() -> None:
    assert BusyShare(games=30, seconds=10.0, share=0.9, concurrency=2).games_per_s == 3.0
    assert BusyShare(games=0, seconds=0.0, share=0.0, concurrency=2).games_per_s == 0.0
    growth = MemoryGrowth(first_games=200, first_mb=100.0, last_games=2200, last_mb=101.0)
    assert growth.kb_per_1000_games == pytest.approx(512.0)
    assert MemoryGrowth(200, 100.0, 200, 100.0).kb_per_1000_games == 0.0
    assert rss_mb() > 1.0


def test_each_page_is_held_to_the_target_first_and_warm() -> None:
    slow_start = PageTime("leaderboard", "/", first_ms=250.0, warm_ms=20.0, warm=10)
    cells = [str(cell) for cell in pages_table([slow_start], 100, 100_000).columns[3].cells]
    assert cells == ["200 ms: first missed, warm met"]


def test_the_memory_run_needs_more_games_than_its_first_sample(tmp_path: Path) -> None:
    ladder = init_ladder(tmp_path / "ladder", "bench", ["btt"])
    with pytest.raises(LadderBenchError, match="more games"):
        memory_growth(ladder, games=100, first=200)
