"""A bot outlives the thread that started it: the kernel kills a process whose parent
*thread* ends (PR_SET_PDEATHSIG), and Trio ends a worker thread after it sat idle, so a
bot forked in one died in the middle of a later game."""

from __future__ import annotations

import pytest
import trio
import trio._core._thread_cache as thread_cache

from arena.process.botnames import resolve_bot
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match


def test_a_bot_lives_on_after_the_worker_threads_that_started_it_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(thread_cache, "IDLE_TIMEOUT", 0.05)  # Trio's idle workers end at once

    async def pause(index: int) -> None:
        await trio.sleep(0.5)  # between games, every idle worker thread ends

    result = run_match("btt", [resolve_bot("random", "btt"), resolve_bot("random", "btt")], TimeControl(per_move_s=5),
                       seed=3, games=3, before_game=pause)
    assert [o.termination for o in result.outcomes] == ["normal"] * 3
    assert all(not o.faults for o in result.outcomes)
