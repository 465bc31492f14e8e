"""Bot programs the tests write to files: a few lines of Python speaking the protocol,
varied only in what the bot does before it answers and which legal action it picks."""

from __future__ import annotations

import textwrap


def first_legal_bot(name: str, think: str = "pass", pick: str = "0", imports: str = "") -> str:
    """A bot that answers every request with legal action `pick` (a Python expression)
    after running `think` (statements; `message` is the request)."""
    body = textwrap.indent(textwrap.dedent(think).strip(), " " * 8)
    return f"""
import json, os, sys{", " + imports if imports else ""}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready", "name": {name!r}}}), flush=True)
    elif message["type"] == "request":
{body}
        print(json.dumps({{"type": "action", "action": message["legal"][{pick}]}}), flush=True)
    elif message["type"] == "quit":
        break
"""
