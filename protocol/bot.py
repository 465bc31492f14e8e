"""A small helper for writing Python bots, using only the standard library.

    from protocol.bot import run

    def choose(request: dict, game: dict) -> str:
        return request["legal"][0]

    run(choose, name="first-legal")

`choose` gets the request message (a dict: `legal`, `observation`, `clock`, `events`,
`ply`) and the start message of the current game, and returns an action string, or a
(action, info) pair where info is a dict such as {"score": 0.3, "nodes": 1200}.
Only the standard library is imported so the bot starts in a few milliseconds.

Plan thinking time with `clock()`: `deadline = clock() + seconds`. It reads the time the
referee charges in the current game: this process's CPU time when the game's time
control counts CPU time (`start`'s `time.basis` is "cpu"), else wall time.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

Choice = str | tuple[str, dict[str, Any]]

_cpu_basis = False
"""Whether the current game's limits count CPU time (set by `run` from each `start`)."""


def on_cpu() -> bool:
    """Whether the current game's limits count this bot's CPU time, not wall time."""
    return _cpu_basis


def clock() -> float:
    """Seconds on the clock the referee charges in the current game: this process's CPU
    time (every thread; `time.process_time`) on the CPU basis, else wall time."""
    return time.process_time() if _cpu_basis else time.perf_counter()


def note_start(message: dict[str, Any]) -> None:
    """Take the game's time basis from its `start` (called by `run`; call it yourself
    when you serve the protocol without `run`)."""
    global _cpu_basis
    _cpu_basis = (message.get("time") or {}).get("basis") == "cpu"


def run(
    choose: Callable[[dict[str, Any], dict[str, Any]], Choice],
    name: str,
    *,
    version: str = "",
    author: str = "",
    want_legal: bool = True,
    want_observation: bool = True,
    on_start: Callable[[dict[str, Any]], None] | None = None,
    on_end: Callable[[dict[str, Any]], None] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Serve the protocol until the referee says quit or closes stdin."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    game: dict[str, Any] = {}

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, separators=(",", ":")) + "\n")
        out.flush()

    for line in inp:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "name": name, "version": version, "author": author,
                  "legal": want_legal, "observation": want_observation})
        elif kind == "start":
            game = message
            note_start(message)
            if on_start:
                on_start(message)
        elif kind == "request":
            choice = choose(message, game)
            if isinstance(choice, tuple):
                send({"type": "action", "action": choice[0], "info": choice[1]})
            else:
                send({"type": "action", "action": choice})
        elif kind == "end":
            if on_end:
                on_end(message)
        elif kind == "quit":
            return
