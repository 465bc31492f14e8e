"""A bot for the live-page tests: random legal actions, each after a short sleep, so a
small league lasts long enough for a page to watch it move."""

from __future__ import annotations

from pathlib import Path

_SOURCE = """
import json, random, sys, time
rng = random.Random(1)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready", "name": "slow"}}), flush=True)
    elif message["type"] == "request":
        time.sleep({delay_s})
        print(json.dumps({{"type": "action", "action": rng.choice(message["legal"])}}), flush=True)
    elif message["type"] == "quit":
        break
"""


def write_slow_bot(folder: Path, delay_s: float) -> Path:
    """Write the bot as `slow/slow.py` in `folder` (a league there names it
    `["slow/slow.py"]`): a folder of its own, since a league's output may not lie in a
    sandboxed bot's folder."""
    path = folder / "slow" / "slow.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(_SOURCE.format(delay_s=delay_s))
    return path
