"""Writes a line that is not JSON at its k-th request."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def garbage(m: dict[str, object]) -> bool:
    sys.stdout.write("this is not json\n")
    sys.stdout.flush()
    return True

play(garbage, "zoo-garbage")
