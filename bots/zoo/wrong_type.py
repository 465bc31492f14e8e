"""Answers its k-th request with a ready message instead of an action."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def wrong(m: dict[str, object]) -> bool:
    send({"type": "ready", "name": "x"})
    return True

play(wrong, "zoo-wrong-type")
