"""Answers its k-th request, then closes its stdin and keeps running: the referee's next
write finds no reader."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import random  # noqa: E402

from bots.zoo._base import answer, play  # noqa: E402


def close(m: dict[str, object]) -> bool:
    answer(m, random.Random(2))
    os.close(0)
    while True:
        time.sleep(3600)


play(close, "zoo-close-stdin")
