"""A bot that plays any game by picking uniformly from the legal actions.

Standard library only and no project imports, so it starts in milliseconds and runs
anywhere. Seeded by --seed N or the ARENA_BOT_SEED environment variable, afresh for each
game from that seed and the game's place in the match (so `arena rerun` replays any
game of a match)."""

from __future__ import annotations

import json
import os
import random
import sys


def seed_from_args(argv: list[str]) -> int | None:
    if "--seed" in argv[:-1]:
        return int(argv[argv.index("--seed") + 1])
    text = os.environ.get("ARENA_BOT_SEED")
    return int(text) if text and text.lstrip("-").isdigit() else None


def main() -> None:
    seed = seed_from_args(sys.argv)
    rng = random.Random(seed if seed is not None else os.urandom(8))
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    while True:
        line = read()
        if not line:
            return
        message = json.loads(line)
        kind = message.get("type")
        if kind == "request":
            reply = {"type": "action", "action": rng.choice(message["legal"])}
        elif kind == "start":
            if seed is not None:
                rng.seed(f"{seed}/{message.get('match_game', 0)}")
            continue
        elif kind == "hello":
            reply = {"type": "ready", "name": "random", "observation": False}
        elif kind == "quit":
            return
        else:
            continue
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
