"""Monte-Carlo tree search over OpenSpiel states, bounded by a simulation budget, a clock or both.

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

An arena game searched with a guide (arena/rl/search_eval.py) is searched on the
rules engine's own states over whole actions: a Roots reroll is one child, not a path
of ids, and no id list, trie or observation is built. The Tree's worlds are drawn by
the codec from the position alone, so a bot's state rebuilt from its observation,
without a history, serves. Each node's children are the guide's candidates; every new
child gets the game's heuristic value as its prior, counted as PRIOR_VISITS visits
(progressive bias); a node chooses among its best few children by prior, more as it
is visited (progressive widening); and a new leaf is valued by the heuristic, after a
whole random playout where the guide says so.

A search is bounded by a number of simulations, by a clock (wall time unless the
caller passes another, such as a bot's CPU time), or both. With a budget and a seed
the choices are the same run to run, however loaded the machine, as long as the clock
(if given) does not run out first; when it does, the search stops early and says so
(`SearchResult.stopped_early`). The deadline is checked before each simulation,
before each new child is valued and every few steps of a playout; a simulation cut
short by it is dropped, so the search overruns it by a few steps of the game at most.

It works on any pyspiel state (the arena's games or OpenSpiel's own) through the
public State API: clone, apply_action, legal_actions, chance_outcomes,
current_player, is_terminal, returns, is_chance_node and, for imperfect information,
resample_from_infostate.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from arena.games import CHANCE, TERMINAL, State
from arena.rl.search_eval import Guide, logistic, logit, terminal_rewards
from arena.rl.spec import RLError

EXPLORATION = 1.0
CHECK_EVERY = 8
"""Playout steps between two looks at the clock."""
PRIOR_VISITS = 2.0
"""Visits a child's heuristic prior counts for in its mean (guided search)."""
WIDENING = 2.0
"""Progressive widening (guided search): a node visited n times chooses among its
ceil(WIDENING * sqrt(n + 1)) children of the best prior only, so a small budget goes
deep along the likely lines rather than one visit to every candidate (0: no limit)."""
GUIDED_EXPLORATION = 0.5
"""The exploration constant of a guided search, whose priors already spread the
visits (rewards from a heuristic vary less than a playout's win or loss)."""


class BudgetError(RLError):
    """A search was given neither a simulation budget nor a time limit."""


@dataclass
class Node:
    """Statistics of one decision sequence: visits, each player's reward total, and
    how often this child was available when its parent was visited. A guided search
    also keeps the child's prior (each seat's heuristic reward after the action) and,
    in a game without chance or hidden information, the node's candidates."""

    visits: int = 0
    available: int = 0
    totals: list[float] = field(default_factory=list)
    children: dict[Any, Node] = field(default_factory=dict)
    prior: list[float] | None = None
    candidates: list[str] | None = None


@dataclass
class SearchResult:
    action: int
    """The most visited legal id at the root (a guided search: the first id of the
    most visited whole action)."""
    simulations: int
    value: float
    """The root player's mean reward (0..1) through that id."""
    root: Node
    whole: str | None = None
    """The arena action chosen (guided search only)."""
    stopped_early: bool = False
    """The clock ran out before the simulation budget was spent."""


def principal(result: SearchResult, state: Any, rng: random.Random) -> tuple[list[int], str]:
    """The ids to play from an arena state (arena.rl.openspiel) until they complete a
    whole arena action, and that action: a guided search's whole action as its ids, or
    the most visited child at each step (a random legal id below the explored tree).
    `state` is advanced through them."""
    if result.whole is not None:
        ids = list(state.position.codec.path(result.whole))
        for index in ids:
            state.apply_action(index)
        return ids, result.whole
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


def _prior_of(node: Node, player: int) -> float:
    return node.prior[player] if node.prior is not None else 0.5


class Deadline(Exception):
    """The clock ran out in the middle of a simulation."""


class Searcher:
    """MCTS for one game (an OpenSpiel game object), seeded; with a guide
    (arena/rl/search_eval.py), arena states are searched over whole actions."""

    def __init__(self, game: Any, seed: int | None = None, exploration: float | None = None,
                 guide: Guide | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.players = int(game.num_players())
        self.min_utility = float(game.min_utility())
        self.span = float(game.max_utility()) - self.min_utility
        import pyspiel

        self.imperfect = game.get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION
        self.stochastic = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
        self.rng = random.Random(seed)
        self.exploration = exploration if exploration is not None else (
            EXPLORATION if guide is None else GUIDED_EXPLORATION)
        self.guide = guide
        self.clock = clock
        """What the deadline is measured by (a bot on the CPU basis passes its CPU time)."""
        self._cumulative: dict[int, tuple[Sequence[tuple[int, float]], list[float]]] = {}

    def search(self, state: Any, seconds: float | None = None, simulations: int | None = None) -> SearchResult:
        """Search from `state` (a seat to move) for `simulations` simulations, for
        `seconds` of wall-clock time, or until the first of the two runs out. A legal
        id is returned however short the time (a random one when not even one
        simulation finished)."""
        if seconds is None and simulations is None:
            raise BudgetError("a search needs a budget: give simulations=N, seconds=S or both")
        deadline = math.inf if seconds is None else self.clock() + seconds
        budget = math.inf if simulations is None else simulations
        if self.guide is not None and hasattr(state, "position"):
            return self._search_guided(state, deadline, budget)
        player = state.current_player()
        root = Node(totals=[0.0] * self.players)
        done, stopped = self._simulations(
            lambda: state.resample_from_infostate(player, self.rng.randrange(1 << 30)) if self.imperfect
            else state.clone(),
            lambda world: self._simulate(root, world, deadline), deadline, budget)
        legal = state.legal_actions()
        best = max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))
        chosen = root.children.get(best)
        value = chosen.totals[player] / chosen.visits if chosen and chosen.visits else 0.5
        return SearchResult(best, done, value, root, stopped_early=stopped and simulations is not None)

    def _simulations(self, world: Callable[[], Any], simulate: Callable[[Any], None], deadline: float,
                     budget: float) -> tuple[int, bool]:
        """Run simulations from fresh worlds until the budget or the clock runs out:
        how many finished, and whether the clock stopped them."""
        done = 0
        while done < budget:
            if done and self.clock() >= deadline:
                return done, True
            try:
                simulate(world())
            except Deadline:
                return done, True
            done += 1
        return done, False

    # ---- guided search on arena states, over whole actions ----------------------

    def _search_guided(self, state: Any, deadline: float, budget: float) -> SearchResult:
        position = state.position
        if position.pending or position.partial:
            raise RLError("a guided search starts where a whole action is due (no id of a path chosen yet)")
        real: State = position.state
        seat = real.current()
        root = Node(totals=[0.0] * self.players)
        done, stopped = self._simulations(
            lambda: position.resample(seat, random.Random(self.rng.randrange(1 << 30))).state if self.imperfect
            else real.clone(),
            lambda world: self._simulate_guided(root, world, deadline), deadline, budget)
        legal = real.legal_actions()
        allowed = set(legal)
        ranked = [a for a in root.children if a in allowed]
        if ranked:
            whole = max(ranked, key=lambda a: (root.children[a].visits, self._mean(root.children[a], seat)))
        else:
            whole = self.rng.choice(legal)
        chosen = root.children.get(whole)
        value = self._mean(chosen, seat) if chosen is not None else 0.5
        action = position.codec.path(whole)[0]
        return SearchResult(action, done, value, root, whole=whole, stopped_early=stopped and budget < math.inf)

    @staticmethod
    def _mean(node: Node, player: int) -> float:
        """The node's mean reward for `player`, its prior counted as PRIOR_VISITS visits."""
        prior = node.prior[player] * PRIOR_VISITS if node.prior is not None else 0.0
        weight = PRIOR_VISITS if node.prior is not None else 0.0
        if node.visits + weight == 0:
            return 0.5
        return (node.totals[player] + prior) / (node.visits + weight)

    def _simulate_guided(self, root: Node, state: State, deadline: float) -> None:
        guide = self.guide
        assert guide is not None
        rng = self.rng
        path = [root]
        node = root
        fixed = not (self.stochastic or self.imperfect)
        while True:
            while state.current() == CHANCE:
                state.apply(state.sample_chance(rng))
            if state.current() == TERMINAL:
                rewards = terminal_rewards(state)
                break
            mover = state.current()
            if fixed and node.candidates is not None:
                actions = node.candidates
            else:
                actions = guide.candidates(state, rng) if guide.candidates is not None else state.legal_actions()
                if fixed:
                    node.candidates = actions
            for action in actions:
                child = node.children.get(action)
                if child is None:
                    if self.clock() > deadline:
                        raise Deadline
                    child = self._expand(state, action)
                    node.children[action] = child
                child.available += 1
            pick = self._select_guided(node, actions, mover)
            state.apply(pick)
            node = node.children[pick]
            path.append(node)
            if node.visits == 0:
                if guide.playout == 0 or state.current() == TERMINAL:
                    assert node.prior is not None
                    rewards = node.prior
                else:
                    rewards = self._guided_playout(state, deadline)
                break
        for visited in path:
            visited.visits += 1
            for p in range(self.players):
                visited.totals[p] += rewards[p]

    def _expand(self, state: State, action: str) -> Node:
        """A new child: each seat's reward for the position after `action` (the prior,
        the mover's lowered by the action's cost)."""
        guide = self.guide
        assert guide is not None
        after = state.clone()
        after.apply(action)
        prior = guide.child_rewards(state, action, after) if guide.child_rewards is not None else guide.rewards(after)
        if guide.action_cost is not None:
            cost = guide.action_cost(action)
            if cost:
                mover = state.current()
                prior[mover] = logistic(logit(prior[mover]) - cost / guide.scale)
        return Node(totals=[0.0] * self.players, prior=prior)

    def _select_guided(self, node: Node, actions: list[str], player: int) -> str:
        """UCB over the available candidates, each child's prior counted in its mean,
        among the best few by prior (progressive widening)."""
        children = node.children
        if WIDENING > 0:
            width = math.ceil(WIDENING * math.sqrt(node.visits + 1))
            if width < len(actions):
                order = sorted(range(len(actions)), key=lambda k: -_prior_of(children[actions[k]], player))
                actions = [actions[k] for k in sorted(order[:width])]
        best, best_score = actions[0], -math.inf
        c = self.exploration
        for action in actions:
            child = node.children[action]
            score = self._mean(child, player) + c * math.sqrt(math.log(child.available + 1) / (child.visits + 1))
            if score > best_score:
                best, best_score = action, score
        return best

    def _guided_playout(self, state: State, deadline: float) -> list[float]:
        """Random steps (as many as the guide says, or to the end), then the guide's
        rewards."""
        guide = self.guide
        assert guide is not None
        rng = self.rng
        limit = guide.playout
        steps = 0
        while state.current() != TERMINAL and (limit is None or steps < limit):
            if state.current() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
            if steps % CHECK_EVERY == 0 and self.clock() > deadline:
                raise Deadline
        return guide.rewards(state)

    # ---- plain ISMCTS over ids ------------------------------------------------------

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
            if steps % CHECK_EVERY == 0 and self.clock() > deadline:
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
