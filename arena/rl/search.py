"""Monte-Carlo tree search over OpenSpiel states, bounded by a wall-clock deadline.

One algorithm serves every game: information-set MCTS with one observer (the seat to
move at the root). Each simulation first draws a state the root seat cannot tell from
the real one (`resample_from_infostate`; a perfect-information game skips this), then
walks the tree of decision ids from the root. Chance outcomes and hidden information
are not part of the tree ("open loop"): a node stands for the sequence of decisions
that led to it, whatever dice or hands the simulation drew, so the legal ids differ
between visits; UCB counts a child's availability rather than its parent's visits
(Cowling, Powley and Whitehouse, 2012). For a deterministic game with perfect
information this is plain UCT. Leaves are valued by one random playout; rewards are
each player's return, scaled to 0..1, and every node keeps all players' totals, so
the player to move at a node maximises its own (any number of players). A state that
offers `playout_cutoff()` and `evaluate()` (the arena's games whose running score says
something: Roots, Treeblox) has its playouts cut after that many decisions and valued
by the score instead.

The deadline is checked before each simulation and every few steps of a playout; a
simulation cut short by the deadline is dropped, so the search never overruns it by
more than a few steps of the game.

It works on any pyspiel state (the arena's games or OpenSpiel's own) through the
public State API: clone, apply_action, legal_actions, chance_outcomes,
current_player, is_terminal, returns, is_chance_node and, for imperfect information,
resample_from_infostate.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

EXPLORATION = 1.0
CHECK_EVERY = 8
"""Playout steps between two looks at the clock."""


@dataclass
class Node:
    """Statistics of one decision sequence: visits, each player's reward total, and
    how often this child was available when its parent was visited."""

    visits: int = 0
    available: int = 0
    totals: list[float] = field(default_factory=list)
    children: dict[int, Node] = field(default_factory=dict)


@dataclass
class SearchResult:
    action: int
    """The most visited legal id at the root."""
    simulations: int
    value: float
    """The root player's mean reward (0..1) through that id."""
    root: Node


def principal(result: SearchResult, state: Any, rng: random.Random) -> tuple[list[int], str]:
    """The ids to play from an arena state (arena.rl.openspiel) until they complete a
    whole arena action, and that action: the most visited child at each step (a random
    legal id below the explored tree). `state` is advanced through them."""
    chosen: list[int] = []
    node: Node | None = result.root
    while True:
        legal = state.legal_actions()
        children = node.children if node is not None else {}
        visited = [a for a in legal if a in children]
        if visited:
            pick = max(visited, key=lambda a: (children[a].visits, -a))
        else:
            pick = rng.choice(legal)
        whole = state.position.completes(pick)
        state.apply_action(pick)
        chosen.append(pick)
        if whole is not None:
            return chosen, whole
        node = children.get(pick)


class Deadline(Exception):
    """The clock ran out in the middle of a simulation."""


class Searcher:
    """MCTS for one game (an OpenSpiel game object), seeded."""

    def __init__(self, game: Any, seed: int | None = None, exploration: float = EXPLORATION) -> None:
        self.players = int(game.num_players())
        self.min_utility = float(game.min_utility())
        self.span = float(game.max_utility()) - self.min_utility
        import pyspiel

        self.imperfect = game.get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION
        self.rng = random.Random(seed)
        self.exploration = exploration
        self._cumulative: dict[int, tuple[Sequence[tuple[int, float]], list[float]]] = {}

    def search(self, state: Any, seconds: float) -> SearchResult:
        """Search from `state` (a seat to move) for `seconds` of wall-clock time. A
        legal id is returned however short the time (a random one when not even one
        simulation finished)."""
        deadline = time.monotonic() + seconds
        player = state.current_player()
        root = Node(totals=[0.0] * self.players)
        simulations = 0
        while simulations == 0 or time.monotonic() < deadline:
            world = state.resample_from_infostate(player, self.rng.randrange(1 << 30)) if self.imperfect \
                else state.clone()
            try:
                self._simulate(root, world, deadline)
            except Deadline:
                break
            simulations += 1
        legal = state.legal_actions()
        best = max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))
        chosen = root.children.get(best)
        value = chosen.totals[player] / chosen.visits if chosen and chosen.visits else 0.5
        return SearchResult(best, simulations, value, root)

    def _simulate(self, root: Node, state: Any, deadline: float) -> None:
        path = [root]
        node = root
        while True:
            self._resolve_chance(state)
            if state.is_terminal():
                break
            player = state.current_player()
            legal = state.legal_actions()
            for action in legal:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            fresh = [a for a in legal if a not in node.children]
            if fresh:
                action = self.rng.choice(fresh)
                child = Node(available=1, totals=[0.0] * self.players)
                node.children[action] = child
                state.apply_action(action)
                path.append(child)
                break
            action = self._select(node, legal, player)
            state.apply_action(action)
            node = node.children[action]
            path.append(node)
        rewards = self._playout(state, deadline)
        for visited in path:
            visited.visits += 1
            for p in range(self.players):
                visited.totals[p] += rewards[p]

    def _select(self, node: Node, legal: list[int], player: int) -> int:
        best, best_score = legal[0], -math.inf
        c = self.exploration
        for action in legal:
            child = node.children[action]
            if child.visits == 0:
                return action
            score = child.totals[player] / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best, best_score = action, score
        return best

    def _playout(self, state: Any, deadline: float) -> list[float]:
        steps = 0
        rng = self.rng
        cutoff = state.playout_cutoff() if hasattr(state, "playout_cutoff") else None
        while True:
            self._resolve_chance(state)
            if state.is_terminal():
                break
            if cutoff is not None and steps >= cutoff:
                judged = state.evaluate()
                if judged is not None:
                    return [float(v) for v in judged]
                cutoff = None
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            if steps % CHECK_EVERY == 0 and time.monotonic() > deadline:
                raise Deadline
        return [(r - self.min_utility) / self.span for r in state.returns()]

    def _resolve_chance(self, state: Any) -> None:
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            cached = self._cumulative.get(id(outcomes))
            if cached is None or cached[0] is not outcomes:
                cached = (outcomes, list(accumulate(p for _, p in outcomes)))
                if len(outcomes) > 64:  # the same list comes back (a cached roll table)
                    self._cumulative[id(outcomes)] = cached
            weights = cached[1]
            pick = self.rng.choices(range(len(outcomes)), cum_weights=weights)[0]
            state.apply_action(outcomes[pick][0])
