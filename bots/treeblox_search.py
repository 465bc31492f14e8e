"""A search Treeblox bot: `python bots/treeblox_search.py`.

Iterative deepening of the beam minimax in bots/treeblox_eval.py (the shared evaluation
at the leaves), with wider beams than the greedy bot and as deep as
its time allows: it stops when 30% of the per-move limit is spent and plays the best
move of the deepest finished search.
"""

from __future__ import annotations

import os
import sys
from typing import Any, cast

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games import State
from arena.games.treeblox import TreebloxState
from bots.tracking import serve, think_time
from bots.treeblox_eval import OutOfTime, Search, evaluate, successors
from protocol.bot import clock

BEAM = (12, 7, 5, 4, 4, 3)
"""Children kept at each depth below the root."""


def choose_action(state: TreebloxState, seconds: float) -> tuple[str, dict[str, Any]]:
    """The best move found within `seconds`, with the search's info."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0], {"depth": 0}
    search = Search(state.current(), BEAM, clock() + seconds)
    best: tuple[str, float] | None = None
    depth = 1
    try:
        while depth <= 12:
            best = search.best_move(state, depth, best[0] if best else None)
            depth += 1
    except OutOfTime:
        depth -= 1
    if best is None:  # not even depth 1 finished: the greedy choice
        children = successors(state)
        seat = state.current()
        return max(children, key=lambda pair: evaluate(pair[1], seat))[0], {"depth": 0}
    return best[0], {"score": round(best[1], 2), "depth": depth, "nodes": search.nodes}


def main() -> None:
    def choose(state: State, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return choose_action(cast(TreebloxState, state), think_time(request))

    serve("treeblox", "treeblox-search", choose)


if __name__ == "__main__":
    main()
