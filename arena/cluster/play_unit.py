"""`python -m arena.cluster.play_unit`: plays work units in a process of its own, one
after another: each unit arrives on stdin (an 8-byte length, then the pickled unit),
and for it one JSON line per finished game goes to stdout, then a line
`{"done": <games>}`. It ends when its stdin closes.

A worker task talks to such a process rather than playing in the worker's own threads:
the referee gets a main thread, its own event loop and its own child processes, and
the process is started once per worker thread, not once per unit. If the worker dies
this process notices (its stdin closes, or its parent changes) and ends, its bots
with it."""

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

HEADER = 8


async def _watch_parent(parent: int, scope: trio.CancelScope) -> None:
    """Cancel `scope` when the worker that started this process is gone (its pidfd
    becomes readable; where there are no pidfds, the parent pid is looked at twice a
    second)."""
    try:
        pidfd = os.pidfd_open(parent)
    except (OSError, AttributeError):
        pidfd = -1
    if pidfd >= 0:
        try:
            if os.getppid() == parent:
                await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)
    else:
        while os.getppid() == parent:  # noqa: ASYNC110 - without a pidfd there is no event to wait for
            await trio.sleep(0.5)
    scope.cancel()  # the worker is gone: stop, killing every bot


async def play(unit: WorkUnit, parent: int) -> int:
    """Play `unit`, writing each game's report as it ends; the games played."""
    cache = cache_dir()
    log_dir = cache / "logs" / unit.key
    specs = [local_spec(bot, bot_folder(bot, cache)) for bot in unit.bots]
    config = match_config(unit, log_dir, hidden=(cache / "logs",))
    played = [0]

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        sys.stdout.write(json.dumps(report(unit.games[index].index, outcome)) + "\n")
        sys.stdout.flush()
        played[0] += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_parent, parent, nursery.cancel_scope)
        await play_match(config, specs, done)
        nursery.cancel_scope.cancel()
    return played[0]


def _read_exactly(size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sys.stdin.buffer.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    parent = os.getppid()
    while (header := _read_exactly(HEADER)) is not None:
        body = _read_exactly(int.from_bytes(header, "big"))
        if body is None:
            return
        unit = pickle.loads(body)
        assert isinstance(unit, WorkUnit)
        played = trio.run(play, unit, parent)
        sys.stdout.write(json.dumps({"done": played}) + "\n")
        sys.stdout.flush()
        if os.getppid() != parent:
            return


if __name__ == "__main__":
    main()
