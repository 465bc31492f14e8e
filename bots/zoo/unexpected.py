"""After answering its k-th request writes an extra line nobody asked for."""
import random
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401

from _base import answer  # noqa: E402

def extra(m: dict[str, object]) -> bool:
    answer(m, random.Random(2))
    send({"type": "action", "action": "x"})
    return True

play(extra, "zoo-unexpected")
