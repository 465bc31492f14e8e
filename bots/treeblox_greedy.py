"""A greedy Treeblox bot with a short lookahead: `python bots/treeblox_greedy.py`.

It looks three placements ahead (its own and the opponent's, by who moves) through the
best-rated few at each step, with the evaluation in bots/treeblox_eval.py, and plays
the action that holds up best: a fixed, cheap lookahead that needs no clock. Ties go
to a random one among the equals (seeded by ARENA_BOT_SEED).
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any, cast

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games import State
from arena.games.treeblox import TreebloxState
from bots.tracking import seed_from_environment, serve
from bots.treeblox_eval import Search

DEPTH = 3
BEAM = (8, 5, 4)
"""Children kept at each of the three plies."""


def choose_action(state: TreebloxState, rng: random.Random | None = None) -> str:
    """The best action of a three-ply beam minimax."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    return Search(state.current(), BEAM, rng=rng).best_move(state, DEPTH)[0]


def main() -> None:
    rng = random.Random(seed_from_environment())

    def choose(state: State, request: dict[str, Any]) -> str:
        return choose_action(cast(TreebloxState, state), rng=rng)

    serve("treeblox", "treeblox-greedy", choose, rng=rng)


if __name__ == "__main__":
    main()
