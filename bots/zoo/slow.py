"""Answers its k-th request after ZOO_SECONDS (default 2 s): too late."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def late(m: dict[str, object]) -> bool:
    time.sleep(ZOO_SECONDS)
    return False

play(late, "zoo-slow")
