"""A search Treeblox bot: `python bots/treeblox_search.py`.

Iterative-deepening minimax with alpha-beta pruning over single placements (a rate-2
turn is two plies of the same player, so the search maximises or minimises by who
moves, not by alternation). Each node keeps only its best few children by the greedy
bot's evaluation (a beam), which makes a few plies affordable in Python; leaves are
scored with the same evaluation. It stops deepening when a fraction of its time for
the move is spent and plays the best move of the deepest finished search.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, cast

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games import TERMINAL, State
from arena.games.treeblox import TreebloxState
from bots.tracking import serve, think_time
from bots.treeblox_greedy import evaluate, successors

BEAM = (10, 6, 5, 4, 4, 3)
"""Children kept at each depth below the root (the last value repeats)."""


class OutOfTime(Exception):
    pass


class Search:
    def __init__(self, seat: int, deadline: float) -> None:
        self.seat = seat
        self.deadline = deadline
        self.nodes = 0

    def ordered(self, state: TreebloxState, depth_index: int) -> list[tuple[str, TreebloxState]]:
        """Children best-first for the mover, cut to the beam of this depth."""
        mover = state.current()
        children = successors(state)
        self.nodes += len(children)
        children.sort(key=lambda pair: -evaluate(pair[1], mover))
        return children[: BEAM[min(depth_index, len(BEAM) - 1)]]

    def value(self, state: TreebloxState, depth: int, ply: int, alpha: float, beta: float) -> float:
        if time.perf_counter() > self.deadline:
            raise OutOfTime
        if depth == 0 or state.current() == TERMINAL:
            return evaluate(state, self.seat)
        maximising = state.current() == self.seat
        best = -math.inf if maximising else math.inf
        for _, child in self.ordered(state, ply):
            score = self.value(child, depth - 1, ply + 1, alpha, beta)
            if maximising:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        return best

    def best_move(self, state: TreebloxState, depth: int, first: str | None) -> tuple[str, float]:
        children = self.ordered(state, 0)
        if first is not None:  # the previous iteration's best move is searched first
            children.sort(key=lambda pair: pair[0] != first)
        best_action, best_score = children[0][0], -math.inf
        alpha = -math.inf
        for action, child in children:
            score = self.value(child, depth - 1, 1, alpha, math.inf)
            if score > best_score:
                best_action, best_score = action, score
                alpha = score
        return best_action, best_score


def choose_action(state: TreebloxState, seconds: float) -> tuple[str, dict[str, Any]]:
    """The best move found within `seconds`, with the search's info."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0], {"depth": 0}
    search = Search(state.current(), time.perf_counter() + seconds)
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
