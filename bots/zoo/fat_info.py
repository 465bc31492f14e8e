"""Plays legal actions, each with ZOO_COMMENT_BYTES (default 900,000) of comment and a
10,000-move principal variation in its info (a line just under 1 MiB): the record must
stay small."""
import json
import os
import random
import sys

SIZE = int(os.environ.get("ZOO_COMMENT_BYTES", "900000"))
rng = random.Random(1)
for line in sys.stdin.buffer:
    message = json.loads(line)
    kind = message.get("type")
    reply: dict[str, object]
    if kind == "hello":
        reply = {"type": "ready", "name": "zoo-fat-info"}
    elif kind == "request":
        action = rng.choice(message["legal"])
        reply = {"type": "action", "action": action,
                 "info": {"comment": "é" * (SIZE // 2), "pv": [action] * 10000, "nodes": 1, "score": 0.5}}
    elif kind == "quit":
        break
    else:
        continue
    sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
    sys.stdout.buffer.flush()
