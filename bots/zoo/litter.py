"""Leaves litter for the referee to clear before its next game, to stall the referee's
event loop (and so the clocks of every other table) while it does: at its first
request of every game, ZOO_COUNT (default 30,000) entries, made before it answers, or
with ZOO_BACKGROUND=1 by a thread while it plays on (it then never times out itself).

ZOO_LITTER=files: empty files, half in $ARENA_SCRATCH, half in $TMPDIR; deep: folders
nested ZOO_COUNT deep in $ARENA_SCRATCH (a recursive emptying overflows). It plays
random legal actions and says on stderr what it left: `LITTER <kind>: <n> made`.
"""
import json
import os
import random
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import answer, send  # noqa: E402

KIND = os.environ.get("ZOO_LITTER", "files")
COUNT = int(os.environ.get("ZOO_COUNT", "30000"))
BACKGROUND = os.environ.get("ZOO_BACKGROUND") == "1"
SCRATCH = os.environ.get("ARENA_SCRATCH", "/scratch")
TMP = os.environ.get("TMPDIR", "/tmp")
games = 0


def files(tag: str) -> int:
    made = 0
    for index in range(COUNT):
        folder = SCRATCH if index % 2 else TMP
        try:
            os.close(os.open(os.path.join(folder, f"{tag}-{index}"), os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError:
            break
        made += 1
    return made


def deep(tag: str) -> int:
    made = 0
    fd = os.open(SCRATCH, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(COUNT):
            name = tag if made == 0 else "d"
            try:
                os.mkdir(name, dir_fd=fd)
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            except OSError:
                break
            os.close(fd)
            fd = child
            made += 1
    finally:
        os.close(fd)
    return made


def litter() -> None:
    made = (deep if KIND == "deep" else files)(f"game{games}")
    sys.stderr.write(f"LITTER {KIND}: {made} made\n")
    sys.stderr.flush()


def main() -> None:
    """Serve the protocol, littering at the first request after each `start`."""
    global games
    rng = random.Random(1)
    fresh = False
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "name": "zoo-litter", "observation": False})
        elif kind == "start":
            fresh = True
        elif kind == "request":
            if fresh:
                fresh = False
                games += 1
                if BACKGROUND:
                    threading.Thread(target=litter, daemon=True).start()
                else:
                    litter()
            answer(message, rng)
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
