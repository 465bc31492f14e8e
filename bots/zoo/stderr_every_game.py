"""Writes ZOO_STDERR_KB KiB (default 400) to stderr at the start of every game, and a
last line before each answer, while playing correctly. In The Tree a fresh process of
it takes the seat for every deal it has seen, so one match starts many processes of it:
its logs must stay within their caps for the whole match, not per process."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import json  # noqa: E402

from bots.zoo._base import answer, send  # noqa: E402

KIB = int(os.environ.get("ZOO_STDERR_KB", "400"))
LINE = b"chatter " * 127 + b"\n"  # 1 KiB


def main() -> None:
    rng = random.Random(1)
    games = 0
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "name": "zoo-stderr-every-game", "observation": False})
        elif kind == "start":
            games += 1
            sys.stderr.buffer.write(LINE * KIB)
            sys.stderr.buffer.flush()
        elif kind == "request":
            sys.stderr.buffer.write(f"pid {os.getpid()} game {games} ply {message.get('ply')}\n".encode())
            sys.stderr.buffer.flush()
            answer(message, rng)
        elif kind == "quit":
            return


main()
