"""The task a Dask worker runs for a work unit: unpack the bots' folders it lacks, hand
the unit to this worker thread's unit player (a process of its own, started once:
arena.cluster.play_unit), and put each game's report on the league's queue the moment
it arrives. Only this module's `run_unit` is sent to workers by reference: a worker
needs nothing but the arena installed."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading
from typing import Any

from arena.cluster.play_unit import HEADER
from arena.cluster.units import WorkUnit, unpack
from arena.cluster.worker_cache import cache_dir

_players: dict[int, subprocess.Popen[bytes]] = {}
"""The unit player of each worker thread."""


class UnitFailed(RuntimeError):
    """The process playing a unit failed before every game was reported (an error of
    the arena on that worker, never a bot's doing)."""


def _player() -> subprocess.Popen[bytes]:
    thread = threading.get_ident()
    process = _players.get(thread)
    if process is None or process.poll() is not None:
        logs = cache_dir() / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        with open(logs / f"player-{thread}.log", "ab") as errors:
            process = subprocess.Popen([sys.executable, "-m", "arena.cluster.play_unit"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=errors)
        _players[thread] = process
    return process


def run_unit(unit: WorkUnit, packages: dict[str, bytes], queue_name: str) -> int:
    """Play `unit`; the number of games reported on the queue `queue_name`."""
    from distributed import Queue

    cache = cache_dir()
    for name, data in packages.items():
        unpack(name, data, cache)
    queue = Queue(queue_name)
    process = _player()
    assert process.stdin is not None and process.stdout is not None
    body = pickle.dumps(unit)
    reported = 0
    try:
        process.stdin.write(len(body).to_bytes(HEADER, "big") + body)
        process.stdin.flush()
        for line in process.stdout:
            message: dict[str, Any] = json.loads(line)
            if "done" in message:
                break
            queue.put(message)  # a game's report, or the plies of a game under way (for the live page)
            reported += "index" in message
    except (OSError, ValueError) as exc:
        process.kill()
        raise UnitFailed(f"the unit player of this worker failed ({exc}); see its log in {cache / 'logs'}") from None
    if reported < len(unit.games):
        process.kill()
        raise UnitFailed(f"the unit player ended after {reported} of {len(unit.games)} games (code "
                         f"{process.poll()}); see its log in {cache / 'logs'}")
    return reported
