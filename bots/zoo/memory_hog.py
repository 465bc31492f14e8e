"""Allocates ZOO_MB megabytes (default 400) at its k-th request, touches them, then
answers: under a memory limit it dies of a MemoryError, without one it plays on."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402

HOARD: list[bytearray] = []


def hog(m: dict[str, object]) -> bool:
    block = bytearray(int(os.environ.get("ZOO_MB", "400")) << 20)
    block[:: 1 << 12] = b"x" * len(block[:: 1 << 12])
    HOARD.append(block)
    return False


play(hog, "zoo-memory-hog")
