"""Floods stderr with 50 MB from a thread while playing correctly."""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def flood() -> None:
    chunk = b"flood " * 10000
    for _ in range(50 * (1 << 20) // len(chunk)):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.flush()

threading.Thread(target=flood, daemon=True).start()
play(lambda m: False, "zoo-stderr-flood")
