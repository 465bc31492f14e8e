"""`python -m arena.cluster.play_unit`: plays work units in a process of its own, one
after another: each unit arrives on stdin (an 8-byte length, then the pickled unit),
and for it one JSON line per finished game goes to stdout, then a line
`{"done": <games>}`; while a game is played, its plies go too, in a few lines a second
(LivePlies), for the league's live page. It ends when its stdin closes.

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
from arena.games.base import State
from arena.records.record import Ply
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


class LivePlies:
    """The plies of the game under way, for the league's live page: a line
    `{"begin": N}` when game N's bots are up, then its plies in batches
    `{"plies": N, "from": K, "actions": [...], "chance": [...]}` (K: the number of the
    batch's first ply), at most every FLUSH_S, so a fast game costs a few lines a
    second, not one per ply."""

    def __init__(self, unit: WorkUnit) -> None:
        self.unit = unit
        self.game = -1
        self.first = 1
        self.actions: list[str] = []
        self.chance: list[bool] = []

    async def begin(self, index: int) -> None:
        self.flush()
        self.game, self.first, self.actions, self.chance = self.unit.games[index].index, 1, [], []
        _write({"begin": self.game})

    def ply(self, state: State, number: int, ply: Ply) -> None:
        if not self.actions:
            self.first = number
        self.actions.append(ply.action)
        self.chance.append(ply.chance)

    def flush(self) -> None:
        if self.actions and self.game >= 0:
            _write({"plies": self.game, "from": self.first, "actions": self.actions, "chance": self.chance})
            self.actions, self.chance = [], []

    def end(self) -> None:
        self.actions, self.chance, self.game = [], [], -1  # the report that follows ends the game

    async def keep_flushing(self) -> None:
        while True:
            await trio.sleep(FLUSH_S)
            self.flush()


FLUSH_S = 0.25
"""How often a worker sends the plies of its games under way (the live page's pace)."""


def _write(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def play(unit: WorkUnit, parent: int) -> int:
    """Play `unit`, writing each game's plies while it is played and its report as it
    ends; the games played."""
    cache = cache_dir()
    log_dir = cache / "logs" / unit.key
    specs = [local_spec(bot, bot_folder(bot, cache)) for bot in unit.bots]
    config = match_config(unit, log_dir, hidden=(cache / "logs",))
    played = [0]
    live = LivePlies(unit)

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        live.end()
        _write(report(unit.games[index].index, outcome))
        played[0] += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_parent, parent, nursery.cancel_scope)
        nursery.start_soon(live.keep_flushing)
        await play_match(config, specs, done, live.ply, before_game=live.begin)
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
