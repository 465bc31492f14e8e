"""The task a Dask worker runs for a work unit: unpack the bots' folders it lacks,
play the unit in a process of its own (arena.cluster.play_unit), and put each game's
report on the league's queue the moment it arrives. Only this module's `run_unit` is
sent to workers by reference: a worker needs nothing but the arena installed."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from typing import Any

from arena.cluster.units import WorkUnit, unpack
from arena.cluster.worker_cache import cache_dir


class UnitFailed(RuntimeError):
    """The process playing a unit failed before every game was reported (an error of
    the arena on that worker, never a bot's doing)."""


def run_unit(unit: WorkUnit, packages: dict[str, bytes], queue_name: str) -> int:
    """Play `unit`; the number of games reported on the queue `queue_name`."""
    from distributed import Queue

    cache = cache_dir()
    for name, data in packages.items():
        unpack(name, data, cache)
    queue = Queue(queue_name)
    process = subprocess.Popen([sys.executable, "-m", "arena.cluster.play_unit"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    reported = 0
    try:
        process.stdin.write(pickle.dumps(unit))
        process.stdin.close()
        for line in process.stdout:
            game: dict[str, Any] = json.loads(line)
            queue.put(game)
            reported += 1
        error = process.stderr.read()[-2000:].decode("utf-8", "replace")
        code = process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if reported < len(unit.games):
        raise UnitFailed(f"the unit's process ended with code {code} after {reported} of {len(unit.games)} games: "
                         f"{error.strip()[-500:]}")
    return reported
