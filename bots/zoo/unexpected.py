"""Answers its k-th request and, in the same write, an extra line nobody asked for."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402


def extra(m: dict[str, object]) -> bool:
    legal = m["legal"]
    assert isinstance(legal, list)
    lines = [{"type": "action", "action": legal[0]}, {"type": "action", "action": "x"}]
    sys.stdout.buffer.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    sys.stdout.buffer.flush()
    return True


play(extra, "zoo-unexpected")
