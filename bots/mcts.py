"""A search bot for every game: `python bots/mcts.py` (shipped as `mcts`).

Information-set Monte-Carlo tree search (arena/rl/search.py) over the game's OpenSpiel
bridge (arena/rl/openspiel.py). A game with perfect information is tracked from the
request's events; The Tree is rebuilt from the seat's observation each move, and every
simulation draws the hidden tiles anew. The arena's games are searched on the rules
engine over whole actions, guided by each game's own evaluation
(arena/rl/search_eval.py; Treeblox's, The Tree's and Blox's planner come from their
greedy bots here, since arena code may not import bots/).

It thinks for 40% of each move's limit (a twentieth of the clock's remaining time at
most) by the clock the referee charges (wall time, or its CPU time on the CPU basis),
so a loaded machine costs it simulations, never its time. With a fixed budget
(`--simulations N` on its command line, or ARENA_MCTS_SIMULATIONS in its environment:
a league entry's `env`) it stops after N simulations a move, so its choices depend
only on ARENA_BOT_SEED, the game's place in the match and the position, not on the
machine's load; the clock still bounds it, and a move cut short says so in its info
(`"budget": "stopped early"`). Needs the rl extra (pip install 'arena[rl]').
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.errors import ArenaError
from arena.rl.spec import MissingExtra

try:
    from arena.rl import openspiel
except MissingExtra as exc:
    print(f"mcts: {exc}", file=sys.stderr)
    sys.exit(2)

from arena.rl.search import Searcher, principal
from arena.rl.search_eval import Guide, guide
from bots.tracking import TrackedGame, reseed, seed_from_environment, think_time
from protocol.bot import Choice, clock, run

FRACTION = 0.4
"""Of each move's limit spent searching; the rest is the margin (at half, one move in
about three thousand ran out of time on a 2-core machine at a load of 6 to 8)."""


BUDGET_VARIABLE = "ARENA_MCTS_SIMULATIONS"
"""The environment variable of a fixed budget (a league entry's `env`)."""


class BudgetError(ArenaError, ValueError):
    """The simulation budget given is not a positive whole number."""


def simulation_budget(argv: list[str], environ: dict[str, str] | os._Environ[str]) -> int | None:
    """The fixed budget: `--simulations N` (or `--simulations=N`) on the command line,
    else ARENA_MCTS_SIMULATIONS; None when neither is given (the clock alone)."""
    text = environ.get(BUDGET_VARIABLE)
    for k, arg in enumerate(argv):
        if arg == "--simulations" and k + 1 < len(argv):
            text = argv[k + 1]
        elif arg.startswith("--simulations="):
            text = arg.split("=", 1)[1]
    if text is None or text == "":
        return None
    if not text.isdigit() or int(text) < 1:
        raise BudgetError(f"mcts: the simulation budget must be a whole number >= 1, not {text!r} "
                          f"(--simulations N or {BUDGET_VARIABLE}=N)")
    return int(text)


def game_guide(game_id: str) -> Guide:
    """The search's guide for a game: arena/rl/search_eval.py's, with the greedy bots'
    evaluations where they live in bots/ (Treeblox, The Tree, Blox's planner)."""
    if game_id == "treeblox":
        from bots.treeblox_eval import evaluate

        return guide(game_id, value=lambda state, seat: evaluate(state, seat))  # type: ignore[arg-type]
    if game_id == "the-tree":
        from bots.the_tree_greedy import PLACED, hand_value

        def tiles(state: Any, seat: int) -> float:
            """The greedy bot's worth of a hand, each tile still to place costing what
            placing it earns (PLACED): its hand value alone would rather keep easy tiles."""
            return float(hand_value(state, seat) - PLACED * len(state.hands[seat]))

        return guide(game_id, value=tiles)
    if game_id == "blox":
        from bots.blox_plan import node_action, plan_for

        def need(state: Any, seat: int) -> tuple[int, list[str]]:
            plan = plan_for(state, seat)
            return plan.need, [node_action(state, node) for node in plan.missing]

        return guide(game_id, need=need)
    return guide(game_id)


class Player:
    """The game being played: its OpenSpiel bridge, a searcher, and (perfect
    information) the arena state tracked from the events."""

    def __init__(self, simulations: int | None = None) -> None:
        self.simulations = simulations
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
            self.searcher = Searcher(self.game, guide=game_guide(game_id), clock=clock)
            self.key = key
        assert self.searcher is not None
        reseed(self.rng, message)  # each game of a match replays alone (arena rerun)
        self.searcher.rng.seed(self.rng.randrange(1 << 30))
        self.tracked = None
        if not self.game.bridge.game.has_hidden_information:
            self.tracked = TrackedGame(game_id)
            self.tracked.on_start(message)

    def choose(self, request: dict[str, Any], start: dict[str, Any]) -> Choice:
        if self.searcher is None:
            self.start(start)
        assert self.searcher is not None
        legal = request.get("legal")
        if legal and len(legal) == 1:
            if self.tracked is not None:
                self.tracked.sync(request, start)
            return str(legal[0])
        bridge = self.game.bridge
        if self.tracked is not None:
            arena_state = self.tracked.sync(request, start).clone()
        else:
            arena_state = bridge.codec.determinize(request["observation"], self.rng)
        state = openspiel.ArenaState(self.game, bridge.wrap(arena_state))
        result = self.searcher.search(state, think_time(request, fraction=FRACTION, default_s=2.5),
                                      simulations=self.simulations)
        _, action = principal(result, state, self.rng)
        info: dict[str, Any] = {"nodes": result.simulations, "score": round(result.value, 3)}
        if result.stopped_early:
            info["budget"] = "stopped early"
        if legal and action not in legal:
            return legal[0], {"comment": "lost track of the game; first legal action"}
        return action, info


def main() -> None:
    try:
        budget = simulation_budget(sys.argv[1:], os.environ)
    except BudgetError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
    player = Player(budget)
    run(player.choose, name="mcts", version="1", on_start=player.start)


if __name__ == "__main__":
    main()
