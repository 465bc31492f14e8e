"""A test bot that writes down everything it is told: `python tests/recording_bot.py`.

Every line the referee sends is appended, as received, to the file named by the
RECORDING_BOT_FILE environment variable, or, without it (a sandboxed bot can write no
file the test could read), to stderr after the prefix `RECORDED <process id>@<seconds
since the epoch> ` (the referee keeps stderr in the bot's log; the id, drawn at random,
tells apart processes whose lines meet in one log; the clock is the machine's, the same
in every sandbox, so a test can tell which processes of one bot were alive at once, at
any table); the bot plays a uniformly random legal action (seeded by
ARENA_BOT_SEED). The secrets tests read the lines back and check that no message held a
tile the seat was not allowed to know, and that no process started a game whose deal
it had seen. Standard library and protocol.bot only.
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

ENV = "RECORDING_BOT_FILE"
PREFIX = "RECORDED "


class Tee:
    """Iterates over stdin, appending each line to the log before handing it on."""

    def __init__(self, path: str | None) -> None:
        self.log = open(path, "a", encoding="utf-8") if path else sys.stderr  # noqa: SIM115 (for the process's life)
        self.process = "" if path else os.urandom(8).hex()

    def __iter__(self) -> Iterator[str]:
        for line in sys.stdin:
            prefix = f"{PREFIX}{self.process}@{time.time():.6f} " if self.process else ""
            self.log.write(prefix + (line if line.endswith("\n") else line + "\n"))
            self.log.flush()
            yield line


def main() -> None:
    seed = os.environ.get("ARENA_BOT_SEED", "")
    rng = random.Random(int(seed) if seed.lstrip("-").isdigit() else 0)

    def choose(request: dict[str, Any], game: dict[str, Any]) -> str:
        return str(rng.choice(request["legal"]))

    run(choose, name="recorder", stdin=Tee(os.environ.get(ENV)))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
