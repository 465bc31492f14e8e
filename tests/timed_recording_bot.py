"""The recording bot with a clock: `python tests/timed_recording_bot.py`.

As tests/recording_bot.py (it writes every line the referee sends to stderr, which the
referee keeps in the bot's log, and plays a uniformly random legal action seeded by
ARENA_BOT_SEED), with the time each line arrived: `RECORDED <process id>@<seconds
since the epoch> <line>`. The clock is the machine's, the same inside every sandbox,
so the deal tests (tests/helpers/deal_memory.py) can tell which processes and games
of one bot were under way at once, at any table. Standard library and protocol.bot only.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol.bot import run

PREFIX = "RECORDED "


class TimedTee:
    """Iterates over stdin, writing each line to stderr with the process's id and the
    time before handing it on."""

    def __init__(self) -> None:
        self.process = os.urandom(8).hex()

    def __iter__(self) -> Iterator[str]:
        for line in sys.stdin:
            ending = "" if line.endswith("\n") else "\n"
            sys.stderr.write(f"{PREFIX}{self.process}@{time.time():.6f} {line}{ending}")
            sys.stderr.flush()
            yield line


def main() -> None:
    seed = os.environ.get("ARENA_BOT_SEED", "")
    rng = random.Random(int(seed) if seed.lstrip("-").isdigit() else 0)

    def choose(request: dict[str, Any], game: dict[str, Any]) -> str:
        return str(rng.choice(request["legal"]))

    run(choose, name="recorder", stdin=TimedTee())  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
