"""`python -m arena.cluster.play_unit`: plays one work unit (read, pickled, from stdin)
in a process of its own and writes one JSON line per finished game to stdout.

A worker task starts it rather than playing in the worker's own threads: the referee
gets a main thread, its own event loop and its own child processes, and if the worker
dies this process notices (its parent changes) and ends, its bots with it."""

from __future__ import annotations

import json
import os
import pickle
import sys

import trio

from arena.cluster.reports import report
from arena.cluster.units import WorkUnit, bot_folder, local_spec, match_config
from arena.cluster.worker_cache import cache_dir
from arena.referee.match import play_match
from arena.referee.outcome import GameOutcome


async def _watch_parent(parent: int, scope: trio.CancelScope) -> None:
    while os.getppid() == parent:
        await trio.sleep(0.5)
    scope.cancel()  # the worker is gone: stop, killing every bot


async def play(unit: WorkUnit) -> None:
    cache = cache_dir()
    log_dir = cache / "logs" / unit.key
    specs = [local_spec(bot, bot_folder(bot, cache)) for bot in unit.bots]
    config = match_config(unit, log_dir, hidden=(cache / "logs",))

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        sys.stdout.write(json.dumps(report(unit.games[index].index, outcome)) + "\n")
        sys.stdout.flush()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_parent, os.getppid(), nursery.cancel_scope)
        await play_match(config, specs, done)
        nursery.cancel_scope.cancel()


def main() -> None:
    unit = pickle.load(sys.stdin.buffer)
    assert isinstance(unit, WorkUnit)
    trio.run(play, unit)


if __name__ == "__main__":
    main()
