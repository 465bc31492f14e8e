"""Answers an action that is not legal at its k-th request (ZOO_ACTION, default
"zz-not-legal")."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401


def illegal(m: dict[str, object]) -> bool:
    send({"type": "action", "action": os.environ.get("ZOO_ACTION", "zz-not-legal")})
    return True

play(illegal, "zoo-illegal")
