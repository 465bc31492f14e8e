"""Never answers its k-th request."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def hang(m: dict[str, object]) -> bool:
    while True:
        time.sleep(3600)

play(hang, "zoo-hang")
