"""Debugging tools for rules engines: walk an action list, count action sequences."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.games.base import CHANCE, TERMINAL, GameError, IllegalAction, State


class ActionListError(GameError):
    """An action in a user's list is not legal; names the action and its index."""

    def __init__(self, index: int, action: str, reason: str) -> None:
        super().__init__(f"action {index + 1} {action!r} is illegal: {reason}")
        self.index = index
        self.action = action


def chance_rng(seed: int, ply: int) -> random.Random:
    """The generator for a chance decision at `ply`: fixed by the seed and the ply so
    perft and legal give the same outcome wherever they meet that node."""
    return random.Random(seed * 1_000_003 + ply)


def resolve_chance(state: State, seed: int, ply: int) -> int:
    """Apply sampled chance outcomes until a seat (or nobody) decides; plies applied."""
    applied = 0
    while state.current() == CHANCE:
        state.apply(state.sample_chance(chance_rng(seed, ply + applied)))
        applied += 1
    return applied


def apply_actions(state: State, actions: Sequence[str], seed: int = 0) -> int:
    """Apply the user's actions in order; at a chance node a listed action that the game
    accepts is the outcome, otherwise one is drawn from `seed`. Returns plies applied."""
    ply = 0
    for index, action in enumerate(actions):
        if state.current() == CHANCE:
            trial = state.clone()
            try:
                trial.apply(action)
            except GameError:
                ply += resolve_chance(state, seed, ply)
            else:
                state.apply(action)
                ply += 1
                continue
        if state.current() == TERMINAL:
            raise ActionListError(index, action, "the game is already over")
        if not state.is_legal(action):
            raise ActionListError(index, action, "not among the legal actions at this point")
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise ActionListError(index, action, exc.reason) from None
        ply += 1
    ply += resolve_chance(state, seed, ply)
    return ply


def perft(state: State, depth: int, seed: int = 0, ply: int = 0) -> list[int]:
    """Number of legal action sequences of each length 1..depth from `state`.

    Chance nodes do not count as a level: each is resolved by one outcome drawn from
    the seed (the same one `apply_actions` would draw). A game that ends earlier adds
    nothing deeper."""
    counts = [0] * depth
    _walk(state, depth, seed, ply + resolve_chance(state, seed, ply), counts, 0)
    return counts


def _walk(state: State, depth: int, seed: int, ply: int, counts: list[int], level: int) -> None:
    if level == depth or state.current() == TERMINAL:
        return
    actions = state.legal_actions()
    counts[level] += len(actions)
    if level + 1 == depth:
        return
    for action in actions:
        child = state.clone()
        child.apply(action)
        _walk(child, depth, seed, ply + 1 + resolve_chance(child, seed, ply + 1), counts, level + 1)
