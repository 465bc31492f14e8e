"""Answers a legal action whose info claims 10^5000 nodes at its k-th request: a
number no 64-bit field holds, nor Python prints by default."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402


def huge(m: dict[str, object]) -> bool:
    legal = m["legal"]
    assert isinstance(legal, list)
    nodes = b"1" + b"0" * 5000
    head = b'{"type":"action","action":"' + legal[0].encode() + b'","info":{"nodes":'
    sys.stdout.buffer.write(head + nodes + b"}}\n")
    sys.stdout.buffer.flush()
    return True


play(huge, "zoo-huge-number")
