"""Writes a 10 MB line at its k-th request."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def huge(m: dict[str, object]) -> bool:
    chunk = b"x" * (1 << 20)
    for _ in range(10):
        sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()
    return True

play(huge, "zoo-huge-line")
