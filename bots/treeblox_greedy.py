"""A greedy Treeblox bot: `python bots/treeblox_greedy.py`.

It rates every action by the position it leads to (`evaluate`: active-leaf balance
first, then the leaves each side could shade next turn, growth rate (three active
leaves double it), room to grow, cubes in hand), then checks the opponent's best
answer to the six best-rated ones and plays the one that holds up. The search bot uses the same
evaluation, so it is kept free of protocol code.
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any, cast

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games import TERMINAL, State
from arena.games.treeblox import FINAL, LEAF, TreebloxState, column_of
from bots.tracking import seed_from_environment, serve

WIN = 10_000.0


def exposed_leaves(state: TreebloxState, victim: int) -> int:
    """Active leaves of `victim` that the other player can cover with one cube now:
    some cell it may place in lies above the leaf, in the leaf's column."""
    attacker = 1 - victim
    leaf = victim * 2 + LEAF
    top = state.top
    cubes = state.cubes
    exposed = set()
    for cell in state.available[attacker]:
        column = column_of(cell)
        highest = top.get(column)
        if highest is not None and highest < cell and cubes[highest] == leaf:
            exposed.add(column)
    return len(exposed)


WEIGHTS = {"leaf": 6.0, "rate": 4.0, "exposed": 5.0, "threat": 5.0, "room": 3.0, "room_cap": 4, "room_all": 0.0,
           "stuck": 10.0, "cubes": 0.3, "last_leaf": 6.0, "final": 3.0,
           "spare_leaves": 1.5}
"""The evaluation's weights (tuned against the random bot and itself)."""


def final_value(mine: int, theirs: int) -> float:
    """The value of a finished game with these active-leaf counts."""
    return (WIN if mine > theirs else -WIN if mine < theirs else 0.0) + mine - theirs


def evaluate(state: TreebloxState, seat: int) -> float:
    """How good the position is for `seat` (higher is better)."""
    w = WEIGHTS
    other = 1 - seat
    mine, theirs = state.active[seat], state.active[other]
    if state.current() == TERMINAL:
        return final_value(mine, theirs)
    value = w["leaf"] * (mine - theirs)
    if state.phase == FINAL:
        # Growth is unlimited now and every cube can still be a leaf on top somewhere:
        # leaves count, and the cubes the grower still holds.
        grower = state.current()
        sign = 1 if grower == seat else -1
        value += sign * w["threat"] * exposed_leaves(state, 1 - grower)
        return value + sign * w["final"] * min(state.cubes_left(grower), len(state.available[grower]))
    value -= w["exposed"] * exposed_leaves(state, seat)
    value += w["threat"] * exposed_leaves(state, other)
    value += w["rate"] * ((mine >= 3) - (theirs >= 3))
    room, their_room = len(state.available[seat]), len(state.available[other])
    cap = w["room_cap"]
    value += w["room"] * (min(room, cap) - min(their_room, cap)) + w["room_all"] * (room - their_room)
    value -= w["stuck"] * ((room == 0) - (their_room == 0))
    value += w["cubes"] * (state.cubes_left(seat) - state.cubes_left(other))
    value += w["spare_leaves"] * (min(state.stock[seat][LEAF], 3) - min(state.stock[other][LEAF], 3))
    value -= w["last_leaf"] * ((mine == 1) - (theirs == 1) * 0.5)
    if state.empty_turns == 1 and state.current() == other:
        value = min(value, final_value(mine, theirs))  # a pass by the opponent ends the game here
    return value


def successors(state: TreebloxState) -> list[tuple[str, TreebloxState]]:
    children = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        children.append((action, child))
    return children


REPLY_MIX = 1.0
"""How much the opponent's best reply counts against the average reply."""

CANDIDATES = 6
"""Moves whose opponent replies are checked (the best by the evaluation)."""


def reply_value(state: TreebloxState, seat: int) -> float:
    """The evaluation for `seat` after the opponent's greedy reply (if it is to move)."""
    mover = state.current()
    if mover in (seat, TERMINAL):
        return evaluate(state, seat)
    replies = successors(state)
    best = max(replies, key=lambda pair: evaluate(pair[1], mover))
    mean = sum(evaluate(child, seat) for _, child in replies) / len(replies)
    return REPLY_MIX * evaluate(best[1], seat) + (1 - REPLY_MIX) * mean


def plan_value(state: TreebloxState, seat: int, depth: int, beam: int = 5) -> float:
    """The best evaluation `seat` reaches by placing up to `depth` more cubes in a row
    (the final growth, where the opponent never moves again)."""
    if depth == 0 or state.current() != seat:
        return evaluate(state, seat)
    children = sorted(successors(state), key=lambda pair: -evaluate(pair[1], seat))[:beam]
    return max(evaluate(state, seat), *(plan_value(child, seat, depth - 1, beam) for _, child in children))


def choose_action(state: TreebloxState, candidates: int = CANDIDATES, rng: random.Random | None = None) -> str:
    """The best of the top-rated actions once the opponent's greedy reply is seen;
    ties go to the first in ASCII order, or to a random one with `rng`."""
    seat = state.current()
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    children = successors(state)
    if rng is not None:
        rng.shuffle(children)
    rated = sorted(children, key=lambda pair: -evaluate(pair[1], seat))[:candidates]
    if state.phase == FINAL:
        return max(rated, key=lambda pair: plan_value(pair[1], seat, 2))[0]
    return max(rated, key=lambda pair: reply_value(pair[1], seat))[0]


def main() -> None:
    rng = random.Random(seed_from_environment())

    def choose(state: State, request: dict[str, Any]) -> str:
        return choose_action(cast(TreebloxState, state), rng=rng)

    serve("treeblox", "treeblox-greedy", choose)


if __name__ == "__main__":
    main()
