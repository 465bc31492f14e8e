"""A bot that asks for `legal: false` and keeps its own copy of the game from the events
(random legal actions from its copy), for `arena check`'s two ways of playing. Its
argument picks a way to get it wrong:
- `own`: right: it never needs the lists, and ignores them when they come;
- `peek`: asks for `legal: false`, yet plays the first action of the list it asked not
  to get (so it fails when the request has none);
- `strict`: stops when a request carries a list it asked not to get (so it fails when
  the lists come all the same)."""

from __future__ import annotations

import os
import random
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.tracking import TrackedGame  # noqa: E402
from protocol.bot import Choice, run  # noqa: E402


def main(way: str) -> None:
    tracked: dict[str, TrackedGame] = {}
    rng = random.Random(7)

    def on_start(start: dict[str, Any]) -> None:
        tracked["game"] = TrackedGame(str(start["game"]))
        tracked["game"].on_start(start)

    def choose(request: dict[str, Any], start: dict[str, Any]) -> Choice:
        if way == "peek":
            return str(request["legal"][0])
        if way == "strict" and "legal" in request:
            raise SystemExit("a legal list came although this bot asked for legal: false")
        state = tracked["game"].sync(request, start)
        return rng.choice(state.legal_actions())

    run(choose, name=f"no-legal-{way}", want_legal=False, on_start=on_start)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "own")
