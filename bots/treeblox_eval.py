"""What both Treeblox bots think with: the position evaluation, and a beam minimax.

`evaluate` scores a position for one seat: active-leaf balance first, then the leaves
each side could shade with its next cube, growth rate (three active leaves double it),
room to grow, cubes and spare leaves in hand, and in the final growth the cubes the
grower can still place. The minimax searches single placements: a rate-2 turn is two
plies of the same player and the final growth a run of them, so nodes maximise or
minimise by who moves, not by alternation. Each node keeps only its best few children
by the evaluation (a beam), which makes a few plies affordable in Python.
"""

from __future__ import annotations

import math
import random

from arena.games import TERMINAL
from arena.games.treeblox import FINAL, LEAF, TreebloxState, column_of
from protocol.bot import clock

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


Beam = tuple[int, ...]
"""Children kept at each depth below the root (the last value repeats)."""


class OutOfTime(Exception):
    """The deadline passed in the middle of a search."""


class Search:
    """A beam minimax for `seat`, stopped by OutOfTime past `deadline`; with `rng`,
    equally rated children are visited in random order (ties broken at random)."""

    def __init__(self, seat: int, beam: Beam, deadline: float = math.inf, rng: random.Random | None = None) -> None:
        self.seat = seat
        self.beam = beam
        self.deadline = deadline
        self.rng = rng
        self.nodes = 0

    def ordered(self, state: TreebloxState, depth_index: int) -> list[tuple[str, TreebloxState]]:
        """Children best-first for the mover, cut to the beam of this depth."""
        mover = state.current()
        children = successors(state)
        self.nodes += len(children)
        if self.rng is not None:
            self.rng.shuffle(children)
        children.sort(key=lambda pair: -evaluate(pair[1], mover))
        return children[: self.beam[min(depth_index, len(self.beam) - 1)]]

    def value(self, state: TreebloxState, depth: int, ply: int, alpha: float, beta: float) -> float:
        if clock() > self.deadline:
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

    def best_move(self, state: TreebloxState, depth: int, first: str | None = None) -> tuple[str, float]:
        """The best action at `depth` plies (searching `first` first) and its value."""
        children = self.ordered(state, 0)
        if first is not None:
            children.sort(key=lambda pair: pair[0] != first)
        best_action, best_score = children[0][0], -math.inf
        alpha = -math.inf
        for action, child in children:
            score = self.value(child, depth - 1, 1, alpha, math.inf)
            if score > best_score:
                best_action, best_score = action, score
                alpha = score
        return best_action, best_score
