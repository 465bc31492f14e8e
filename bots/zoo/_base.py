"""The loop every zoo bot shares: play like the random bot, misbehave at request k."""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Callable

ZOO_PLY = int(os.environ.get("ZOO_PLY", "3"))
ZOO_SECONDS = float(os.environ.get("ZOO_SECONDS", "2.0"))


def fork_until_refused(most: int) -> int:
    """Fork up to `most` sleeping children, stopping when fork fails; how many it made."""
    forked = 0
    for _ in range(most):
        try:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
        except OSError:
            break
        forked += 1
    return forked


def send(message: dict[str, object]) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def answer(message: dict[str, object], rng: random.Random) -> None:
    legal = message["legal"]
    assert isinstance(legal, list)
    send({"type": "action", "action": rng.choice(legal)})


def play(misbehave: Callable[[dict[str, object]], bool], name: str, every: bool = False) -> None:
    """Serve the protocol; at the ZOO_PLY-th request (with `every`, that and every
    later one) call `misbehave`, which returns True when it has answered (or never
    returns)."""
    rng = random.Random(1)
    requests = 0
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "name": name, "observation": False})
        elif kind == "request":
            requests += 1
            if (requests == ZOO_PLY or every and requests > ZOO_PLY) and misbehave(message):
                continue
            answer(message, rng)
        elif kind == "quit":
            return
