"""Where bot processes are forked: threads that live as long as the arena.

A bot's first process asks the kernel to kill it when its parent dies
(PR_SET_PDEATHSIG), so that nothing outlives a killed arena. The kernel takes the
parent to be the *thread* that forked it: a bot forked in one of Trio's worker threads
was killed when that thread ended after 10 s idle, in the middle of a later game ("the
bot exited (killed by SIGKILL)"). Forks therefore run in a pool whose threads never end
before the arena does; the event loop waits for them in a worker thread as before.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import trio

T = TypeVar("T")

_FORKERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-fork")
"""Two forks at once at most (a fork with a preexec step takes a few milliseconds)."""


async def run_in_forker(start: Callable[[], T]) -> T:
    """`start()` (which forks a bot) run in a thread that outlives every bot it forks."""
    return await trio.to_thread.run_sync(lambda: _FORKERS.submit(start).result())
