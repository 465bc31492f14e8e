"""An honest bot that takes its time: every answer (a random legal action) comes
ZOO_SLEEP_MS milliseconds (default 50) after the request, so that its clock is running
most of the time. The fairness measure of `arena bench` and the stall-attack tests use
it as the innocent bot thinking at another table: whatever the referee charges it
beyond its own sleep is the referee's doing."""
import json
import os
import random
import sys
import time

SLEEP_S = float(os.environ.get("ZOO_SLEEP_MS", "50")) / 1000


def main() -> None:
    rng = random.Random(os.environ.get("ARENA_BOT_SEED", "1"))
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply: dict[str, object] = {"type": "ready", "name": "zoo-sleeper", "observation": False}
        elif kind == "request":
            began = time.monotonic()
            action = rng.choice(message["legal"])
            time.sleep(max(0.0, SLEEP_S - (time.monotonic() - began)))
            reply = {"type": "action", "action": action}
        elif kind == "quit":
            return
        else:
            continue
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
