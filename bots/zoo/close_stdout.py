"""Closes its stdout at its k-th request and keeps running."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def close(m: dict[str, object]) -> bool:
    sys.stdout.flush()
    os.close(1)
    while True:
        time.sleep(3600)

play(close, "zoo-close-stdout")
