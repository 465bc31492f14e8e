"""A bot that plays the first legal action, with one habit a newcomer's bot may have,
named by its first argument:

- `sleep-from GAME`: from match game GAME on (0-based) it thinks for a minute;
- `debug-stdout`: it prints a debugging line to stdout before its answer;
- `crlf`: it ends its lines with CRLF;
- `chatty-start`: it answers `start`, which needs no answer;
- `answers-unknown`: it answers a message of a type it does not know;
- `dies-on-unknown`: it exits on a message of a type it does not know;
- `two-lines`: it answers its later requests with two lines, written at once (a second
  line written later may reach the referee after its next request, and is then taken
  for that request's answer: an illegal action, not a second line);
- `seeded`: it plays a random legal action, its generator seeded at every `start` from
  ARENA_BOT_SEED and match_game (so a rerun of any game of a match replays its moves);
- `legal-off-in GAME_ID`: in games of GAME_ID it opts out of the legal lists with its
  first action (and plays from its own copy of the game afterwards);
- `legal-off-peek`: it opts out of the legal lists in every game, yet needs them.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

habit = sys.argv[1] if len(sys.argv) > 1 else ""
argument = sys.argv[2] if len(sys.argv) > 2 else ""
ending = "\r\n" if habit == "crlf" else "\n"
game = 0
state = None
game_id = ""
rng = random.Random(0)


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + ending)
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "ready", "name": habit or "newcomer"})
    elif kind == "start":
        game = message.get("match_game", 0)
        game_id = message["game"]
        rng = random.Random(f"{os.environ.get('ARENA_BOT_SEED')}/{game}")
        if habit == "legal-off-in":
            from arena.games import GAMES

            state = GAMES[game_id].new_state(message["seats"], message["options"])
        if habit == "chatty-start":
            send({"type": "action", "action": "hi"})
    elif kind == "request":
        for event in message.get("events", []):
            if state is not None:
                state.apply(event["action"])
        if habit == "sleep-from" and game >= int(argument):
            time.sleep(60)
        if habit == "debug-stdout":
            sys.stdout.write("thinking about my move\n")
        legal = message["legal"] if habit == "legal-off-peek" else message.get("legal")
        if legal is None:
            assert state is not None, "no legal list and no game of my own"
            legal = state.legal_actions()
        answer: dict[str, object] = {"type": "action", "action": rng.choice(legal) if habit == "seeded" else legal[0]}
        if (habit == "legal-off-in" and game_id == argument or habit == "legal-off-peek") and "legal" in message:
            answer["legal"] = False
        if habit == "two-lines" and message["ply"] > 2:  # both lines in one write: they arrive together
            second = {"type": "action", "action": legal[-1], "info": {"comment": "second thoughts"}}
            sys.stdout.write(json.dumps(answer) + "\n" + json.dumps(second) + "\n")
            sys.stdout.flush()
        else:
            send(answer)
    elif kind == "quit":
        break
    elif kind not in ("end",):
        if habit == "answers-unknown":
            send({"type": "what", "about": kind})
        elif habit == "dies-on-unknown":
            sys.exit(4)
