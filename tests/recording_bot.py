"""A test bot that appends every line it receives to the file named by RECORD_FILE
and answers each request with a random legal action (seeded by ARENA_BOT_SEED).
Standard library only."""

from __future__ import annotations

import json
import os
import random
import sys


def main() -> None:
    rng = random.Random(os.environ.get("ARENA_BOT_SEED", "0"))
    with open(os.environ["RECORD_FILE"], "a", encoding="utf-8") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            message = json.loads(line)
            kind = message.get("type")
            if kind == "hello":
                reply = {"type": "ready", "name": "recorder"}
            elif kind == "request":
                reply = {"type": "action", "action": rng.choice(message["legal"])}
            elif kind == "quit":
                return
            else:
                continue
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
