"""Writes bytes that are not UTF-8 inside a JSON string: in its action at its k-th
request, or in its ready message when ZOO_WHERE=ready."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402


def write(line: bytes) -> None:
    sys.stdout.buffer.write(line + b"\n")
    sys.stdout.buffer.flush()


def bad_action(m: dict[str, object]) -> bool:
    write(b'{"type":"action","action":"\xff\xfe\xc3"}')
    return True


if os.environ.get("ZOO_WHERE") == "ready":
    sys.stdin.buffer.readline()
    write(b'{"type":"ready","name":"zoo-\xc3\x28"}')
    for _ in sys.stdin.buffer:
        pass
else:
    play(bad_action, "zoo-bad-utf8")
