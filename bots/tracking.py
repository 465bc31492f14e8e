"""Glue for bots that keep their own copy of the game with the arena's rules engine:
the state is rebuilt from the start message and advanced by each request's events, so
`choose` always sees the current position. Only for games with perfect information
(a hidden-information bot must work from its observation instead)."""

from __future__ import annotations

import os
import random
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena import games
from arena.games import State
from protocol.bot import Choice, on_cpu, run

Chooser = Callable[[State, dict[str, Any]], Choice]
"""Picks an action in a state where the bot is to move (the request is passed too,
for its clock)."""


class TrackedGame:
    """The game in progress as the bot has seen it, and how many plies it holds."""

    def __init__(self, game_id: str) -> None:
        self.game = games.get(game_id)
        self.state: State | None = None
        self.applied = 0

    def on_start(self, message: dict[str, Any]) -> None:
        self.state = self.game.new_state(int(message["seats"]), dict(message.get("options") or {}))
        self.applied = 0

    def sync(self, request: dict[str, Any], start: dict[str, Any]) -> State:
        """Apply the events this copy has not seen yet; the current state."""
        if self.state is None:
            self.on_start(start)
        assert self.state is not None
        for event in request.get("events") or []:
            if int(event["ply"]) > self.applied:
                self.state.apply(str(event["action"]))
                self.applied = int(event["ply"])
        return self.state


def serve(game_id: str, name: str, choose: Chooser, version: str = "1", rng: random.Random | None = None) -> None:
    """Run a bot for `game_id` over the protocol: track the game, ask `choose`, and fall
    back to the first legal action if the copy ever disagrees with the referee; `rng`
    (the bot's generator) is seeded afresh for each game (`reseed`)."""
    tracked = TrackedGame(game_id)

    def on_start(message: dict[str, Any]) -> None:
        tracked.on_start(message)
        if rng is not None:
            reseed(rng, message)

    def answer(request: dict[str, Any], start: dict[str, Any]) -> Choice:
        state = tracked.sync(request, start)
        choice = choose(state, request)
        action = choice[0] if isinstance(choice, tuple) else choice
        legal = request.get("legal")
        if legal and action not in legal:
            return legal[0], {"comment": "lost track of the game; first legal action"}
        return choice

    run(answer, name=name, version=version, on_start=on_start)


def seed_from_environment() -> int | None:
    """ARENA_BOT_SEED, which the arena sets so that seeded bots reproduce a match."""
    text = os.environ.get("ARENA_BOT_SEED", "")
    return int(text) if text.isascii() and text.lstrip("-").isdigit() and len(text) < 20 else None


def reseed(rng: random.Random, start: dict[str, Any]) -> None:
    """Seed `rng` for the game `start` opens from ARENA_BOT_SEED and the game's place in
    the match (`match_game`), so that `arena rerun` plays any game of a match again move
    for move, not only a process's first; without ARENA_BOT_SEED it is left as it is."""
    seed = seed_from_environment()
    if seed is not None:
        rng.seed(f"{seed}/{start.get('match_game', 0)}")


RESERVE_S = 0.065
"""Seconds of every per-move limit a shipped bot never spends searching: its margin for
reading the request, rebuilding the position, the last playout that overruns the
deadline and writing the answer, all of which take twice as long on a loaded 2-core
machine where the bot gets half a core (at the demo's 100 ms a move a search bot thinks
for 35 ms; at 300 ms, for its whole share)."""


class TimeUp(Exception):
    """The search's time ran out (raised by `time_box` wherever the search was)."""


_boxed = False
"""Whether a time box is open: its alarm raises TimeUp only then."""

RING_AGAIN_S = 0.002
"""The alarm rings again this often until the box closes: a TimeUp raised where Python
cannot pass it on (a garbage collector's callback, a __del__) is lost, and the next
ring tries again."""


@contextmanager
def time_box(seconds: float) -> Iterator[None]:
    """Raise TimeUp inside the block once `seconds` have passed (a real-time alarm, or on
    the CPU basis a CPU-time one: the process's own CPU time), so a
    search whose steps vary a hundredfold in cost still stops on time: it must work on
    copies of the position and keep its best answer so far outside the block."""
    global _boxed

    def ring(signum: int, frame: object) -> None:
        if _boxed:
            raise TimeUp

    timer, signum = (signal.ITIMER_PROF, signal.SIGPROF) if on_cpu() else (signal.ITIMER_REAL, signal.SIGALRM)
    previous = signal.signal(signum, ring)
    _boxed = True
    signal.setitimer(timer, max(seconds, 0.0005), RING_AGAIN_S)
    try:
        yield
    finally:
        while True:  # a ring while closing raises here: close again until it is closed
            try:
                _boxed = False
                signal.setitimer(timer, 0)
                signal.signal(signum, previous)
                break
            except TimeUp:
                continue


def think_time(request: dict[str, Any], fraction: float = 0.3, default_s: float = 0.1) -> float:
    """Seconds to spend on this decision: a fraction of the per-move limit that leaves
    the reserve, and no more than a twentieth of the clock's remaining time."""
    clock = request.get("clock") or {}
    budget = default_s
    if clock.get("move_ms"):
        move_s = clock["move_ms"] / 1000
        budget = min(fraction * move_s, move_s - RESERVE_S)
    if clock.get("remaining_ms") is not None:
        budget = min(budget, clock["remaining_ms"] / 1000 / 20)
    return max(budget, 0.001)


def serve_timed(game_id: str, name: str, choose_action: Callable[[Any, random.Random, float], str]) -> None:
    """Serve a bot whose `choose_action(state, rng, seconds)` thinks for half of each
    move's limit, seeded from ARENA_BOT_SEED."""
    rng = random.Random(seed_from_environment())

    def choose(state: State, request: dict[str, Any]) -> str:
        return choose_action(state, rng, think_time(request, fraction=0.5, default_s=60.0))

    serve(game_id, name, choose, rng=rng)
