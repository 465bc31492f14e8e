"""Writes JSON nested ZOO_DEPTH levels deep (default 100,000) at its k-th request: an
unknown field holding arrays in arrays, which a recursive decoder cannot survive."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402

DEPTH = int(os.environ.get("ZOO_DEPTH", "100000"))


def deep(m: dict[str, object]) -> bool:
    legal = m["legal"]
    assert isinstance(legal, list)
    line = b'{"type":"action","action":"' + legal[0].encode() + b'","x":' + b"[" * DEPTH + b"]" * DEPTH + b"}\n"
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
    return True


play(deep, "zoo-deep-nesting")
