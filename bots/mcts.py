"""A search bot for every game: `python bots/mcts.py` (shipped as `mcts`).

Information-set Monte-Carlo tree search (arena/rl/search.py) over the game's OpenSpiel
bridge (arena/rl/openspiel.py): the same ids, chance model and observations that RL
code sees. A game with perfect information is tracked from the request's events; The
Tree is rebuilt from the seat's observation each move, and every simulation draws the
hidden tiles anew. It thinks for 40% of each move's limit (a twentieth of the clock's
remaining time at most) by the wall clock, so a loaded machine costs it simulations,
never its time. Seeded by ARENA_BOT_SEED. Needs the rl extra (pip install 'arena[rl]').
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.rl.spec import MissingExtra

try:
    from arena.rl import openspiel
except MissingExtra as exc:
    print(f"mcts: {exc}", file=sys.stderr)
    sys.exit(2)

from arena.rl.search import Searcher, principal
from bots.tracking import TrackedGame, seed_from_environment, think_time
from protocol.bot import Choice, run

FRACTION = 0.4
"""Of each move's limit spent searching; the rest is the margin (at half, one move in
about three thousand ran out of time on a 2-core machine at a load of 6 to 8)."""


class Player:
    """The game being played: its OpenSpiel bridge, a searcher, and (perfect
    information) the arena state tracked from the events."""

    def __init__(self) -> None:
        self.rng = random.Random(seed_from_environment())
        self.game: Any = None
        self.searcher: Searcher | None = None
        self.tracked: TrackedGame | None = None
        self.key: tuple[Any, ...] = ()

    def start(self, message: dict[str, Any]) -> None:
        game_id = str(message["game"])
        seats = int(message["seats"])
        options = {str(k): str(v) for k, v in (message.get("options") or {}).items()}
        key = (game_id, seats, tuple(sorted(options.items())))
        if key != self.key:
            self.game = openspiel.load(game_id, players=seats, **options)
            self.searcher = Searcher(self.game, seed=self.rng.randrange(1 << 30))
            self.key = key
        self.tracked = None
        if not self.game.bridge.game.has_hidden_information:
            self.tracked = TrackedGame(game_id)
            self.tracked.on_start(message)

    def choose(self, request: dict[str, Any], start: dict[str, Any]) -> Choice:
        if self.searcher is None:
            self.start(start)
        assert self.searcher is not None
        bridge = self.game.bridge
        if self.tracked is not None:
            arena_state = self.tracked.sync(request, start).clone()
        else:
            arena_state = bridge.codec.determinize(request["observation"], self.rng)
        state = openspiel.ArenaState(self.game, bridge.wrap(arena_state))
        result = self.searcher.search(state, think_time(request, fraction=FRACTION, default_s=2.5))
        _, action = principal(result, state, self.rng)
        legal = request.get("legal")
        info = {"nodes": result.simulations, "score": round(result.value, 3)}
        if legal and action not in legal:
            return legal[0], {"comment": "lost track of the game; first legal action"}
        return action, info


def main() -> None:
    player = Player()
    run(player.choose, name="mcts", version="1", on_start=player.start)


if __name__ == "__main__":
    main()
