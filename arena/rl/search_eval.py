"""What the search knows of each game beyond its rules: which actions are worth trying
(candidates), how good a position is for each seat (a heuristic value turned into a
reward in 0..1), and how many random steps a playout takes before that value judges it.

Random playouts say nothing in Roots (a random root wanders) and cost more than a move
in Blox (a hundred turns of a thousand legal bricks), so there the search values the
position reached by the game's own evaluation instead: Roots by the greedy bot's
region balance (ported here, bots/roots_greedy.py), Blox by the race of the bricks
each seat still needs (a planner the caller passes in: bots/blox_plan.py, which arena
code may not import). Branches and Twigs and Thorns keeps its random playouts, which
serve it, with the score lead as each child's prior. Any game may be given an
evaluation of its own (`guide(..., value=...)`), as the `mcts` bot does for Treeblox
and The Tree with their greedy bots' evaluations.

Everything here works on arena states (arena.games.State) and is deterministic for a
given random generator: no set of strings is iterated.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.games import TERMINAL, State

Value = Callable[[State, int], float]
"""A heuristic: how good `state` is for the seat (higher is better, any scale)."""
Candidates = Callable[[State, random.Random], list[str]]
"""The actions worth searching for the seat to move (a subset of the legal ones)."""
Need = Callable[[State, int], tuple[int, list[str]]]
"""Blox: the bricks a seat still needs to connect its edges, and the placements of its
cheapest plan (the actions that would lay the missing bricks)."""


@dataclass(frozen=True)
class Guide:
    """One game's knowledge for the search."""

    value: Value | None
    """The heuristic; None values positions by random playouts to the end only."""
    scale: float = 1.0
    """A lead of this much heuristic value is a reward of 0.73 (logistic)."""
    candidates: Candidates | None = None
    """None searches every legal action."""
    playout: int | None = 0
    """Random steps before the heuristic judges a new leaf (0: judged at once; None:
    played out to the end, the heuristic serving only as the children's prior)."""
    action_cost: Callable[[str], float] | None = None
    """Subtracted from an action's prior (Roots' `leave`, which ends the seat's round)."""
    values: Callable[[State], list[float]] | None = None
    """Every seat's heuristic at once, where that shares work (Roots' reach); else
    `value` seat by seat."""
    child_rewards: Callable[[State, str, State], list[float]] | None = None
    """The rewards of the position `after` that `action` reached from `state`, where
    the parent's evaluation makes the child's cheaper (Blox's plans); else `rewards`."""

    def rewards(self, state: State) -> list[float]:
        """Each seat's reward for `state` in 0..1: the result at the end, else the
        logistic of the seat's heuristic lead over the best other seat."""
        seats = state.num_seats
        if state.current() == TERMINAL:
            return terminal_rewards(state)
        if self.values is not None:
            values = self.values(state)
        elif self.value is not None:
            values = [self.value(state, seat) for seat in range(seats)]
        else:
            return [0.5] * seats
        out = []
        for seat in range(seats):
            best_other = max(v for s, v in enumerate(values) if s != seat)
            out.append(logistic((values[seat] - best_other) / self.scale))
        return out


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def logit(p: float) -> float:
    """The inverse of `logistic` (a reward of 0 or 1 as a large finite lead)."""
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def terminal_rewards(state: State) -> list[float]:
    """Rank-based rewards at the end: 1 for a sole first place, 0 for last, evenly
    between (a shared rank shares its places)."""
    ranks = state.result().ranks
    n = len(ranks)
    if n < 2:
        return [1.0] * n
    out = []
    for rank in ranks:
        ahead = sum(1 for r in ranks if r < rank)
        tied = sum(1 for r in ranks if r == rank)
        place = ahead + (tied - 1) / 2  # 0 for a sole winner
        out.append(1.0 - place / (n - 1))
    return out


# ---- Branches and Twigs and Thorns -------------------------------------------------

def btt_value(state: Any, seat: int) -> float:
    """The seat's score (the greedy bot plays for the lead over the best other)."""
    return float(state.scores[seat])


# ---- Roots (the greedy bot's evaluation, bots/roots_greedy.py) ----------------------

ROOTS_REACH = 0.3
"""Worth of each region the seat can still reach, against one region controlled."""
ROOTS_TIPS = 0.5
"""Worth of each open tip: more roots, more choices for later dice."""
ROOTS_NEARER = 0.5
"""Worth of a free region both reach but this seat in fewer strokes."""
ROOTS_LEAVE_COST = 1.5
"""Leaving ends the seat's round: it must be clearly better than every die."""
ROOTS_MAX_FAST = 12
"""Fast growths searched per position (a seeded sample beyond this)."""


def roots_values(state: Any) -> list[float]:
    """Per seat: regions controlled minus the opponent's as scored now, plus reach,
    the free regions the seat is nearer to, and its open tips (the greedy bot's
    rating; each seat's reach is searched once for both)."""
    near = (state.reach_distances(0), state.reach_distances(1))
    reach = (set(near[0]), set(near[1]))
    score = state.scores(reach)
    nearer = 0  # free regions seat 0 reaches in fewer strokes than seat 1, minus the converse
    for region in near[0].keys() & near[1].keys():
        if not state.strokes[region]:
            nearer += (near[0][region] < near[1][region]) - (near[1][region] < near[0][region])
    out = []
    for seat, sign in ((0, 1), (1, -1)):
        other = 1 - seat
        out.append(float(score[seat] - score[other] + ROOTS_REACH * (len(reach[seat]) - len(reach[other]))
                         + ROOTS_NEARER * sign * nearer + ROOTS_TIPS * len(state.tips[seat])))
    return out


def roots_value(state: Any, seat: int) -> float:
    """The seat's part of `roots_values`."""
    return roots_values(state)[seat]


def roots_candidates(state: State, rng: random.Random) -> list[str]:
    """No reroll (its dice cannot be seen in advance), a sample of fast growths, and
    only `end` when it is legal and no fast growth is left (the greedy bot's choice)."""
    legal = state.legal_actions()
    options = [a for a in legal if not a.startswith("reroll")] or legal
    fast = [a for a in options if a.startswith("fast")]
    if len(fast) > ROOTS_MAX_FAST:
        kept = set(rng.sample(fast, ROOTS_MAX_FAST))
        options = [a for a in options if not a.startswith("fast") or a in kept]
    if "end" in options and not fast:
        return ["end"]
    return options


def roots_cost(action: str) -> float:
    return ROOTS_LEAVE_COST if action == "leave" else 0.0


# ---- Blox (the race of bricks still needed) ----------------------------------------

BLOX_FALLBACK = 8
"""Placements sampled when no plan offers a legal brick."""
BLOX_CACHE = 50_000
"""Plans kept (by position and seat) before the cache is emptied."""
BLOX_WIN = 100.0


class BloxRace:
    """Blox valued by the race: the fewest bricks any other seat needs minus the
    seat's own, the seat to move half a brick ahead. Plans are the costly part (tens
    of milliseconds on 16 x 16), so they are cached by position, and a child reuses
    its parent's plans where the new brick cannot touch them: a brick that meets no
    position a seat's plan still misses (at its level or the ones next to it) leaves
    that plan possible, so that seat's need stays, and so does the mover's, one less,
    when the brick is one of its own plan's (the plan was made of bricks that fit
    together); the child inherits the plan itself. Only a brick that meets another
    seat's plan (a block) sends that plan to the planner again."""

    def __init__(self, need: Need) -> None:
        self.need = need
        self.cache: dict[tuple[tuple[int, ...], int], tuple[int, list[str]]] = {}

    def plan(self, state: Any, seat: int) -> tuple[int, list[str]]:
        key = (tuple(state.covered), seat)
        found = self.cache.get(key)
        if found is None:
            if len(self.cache) >= BLOX_CACHE:
                self.cache.clear()
            found = self.cache[key] = self.need(state, seat)
        return found

    def value(self, state: Any, seat: int) -> float:
        if state.winner is not None:
            return BLOX_WIN if state.winner == seat else -BLOX_WIN
        return -self.plan(state, seat)[0] + (0.5 if state.current() == seat else 0.0)

    def candidates(self, state: State, rng: random.Random) -> list[str]:
        """The legal bricks of the mover's plan, then of the others' (blocking); a few
        low placements at random when no plan offers one."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal
        allowed = set(legal)
        mover = state.current()
        found: list[str] = []
        for seat in [mover] + [s for s in range(state.num_seats) if s != mover]:
            for action in self.plan(state, seat)[1]:
                if action in allowed and action not in found:
                    found.append(action)
        if not found:
            low = [a for a in legal if a.endswith((",0", ",1"))] or legal
            found = rng.sample(low, min(BLOX_FALLBACK, len(low)))
        return found

    def child_rewards(self, guide: Guide, state: Any, action: str, after: Any) -> list[float]:
        if after.current() == TERMINAL or action == "pass":
            return guide.rewards(after)
        mover = state.current()
        orientation, z = action[0], int(action.rsplit(",", 1)[1])
        x, y = (int(v) for v in action[1:].split(",")[:2])
        studs = state.geo.footprint(orientation, state.geo.index(x, y))
        values = []
        parent, child = tuple(state.covered), tuple(after.covered)
        for seat in range(state.num_seats):
            known = self.cache.get((parent, seat))
            mine = known is not None and seat == mover and action in known[1]
            if known is None or (not mine and self._touches(state, known[1], studs, z)):
                need = self.plan(after, seat)[0]
            else:
                need = known[0] - (1 if mine else 0)
                if (child, seat) not in self.cache:  # the plan holds: the child inherits it
                    self.cache[(child, seat)] = (need, [a for a in known[1] if a != action] if mine else known[1])
            values.append(-need + (0.5 if after.current() == seat else 0.0))
        out = []
        for seat in range(state.num_seats):
            best_other = max(v for s, v in enumerate(values) if s != seat)
            out.append(logistic((values[seat] - best_other) / guide.scale))
        return out

    @staticmethod
    def _touches(state: Any, planned: list[str], studs: int, z: int) -> bool:
        """Whether a brick (its studs at level z) meets a planned brick at its level or
        the next (a brick below or above forbids or changes it)."""
        for other in planned:
            level = int(other.rsplit(",", 1)[1])
            if abs(level - z) > 1:
                continue
            x, y = (int(v) for v in other[1:].split(",")[:2])
            if state.geo.footprint(other[0], state.geo.index(x, y)) & studs:
                return True
        return False


def blox_guide(need: Need) -> Guide:
    """Blox searched over the bricks of each seat's plan (its own: building; the
    others': blocking), valued by the race (BloxRace)."""
    race = BloxRace(need)
    made: list[Guide] = []

    def child(state: State, action: str, after: State) -> list[float]:
        return race.child_rewards(made[0], state, action, after)

    made.append(Guide(value=race.value, scale=1.0, candidates=race.candidates, playout=0, child_rewards=child))
    return made[0]


# ---- The registry ------------------------------------------------------------------

def guide(game_id: str, value: Value | None = None, need: Need | None = None) -> Guide:
    """The guide for an arena game; `value` replaces its heuristic (a game without one
    here is played out at random), `need` is Blox's planner (without it Blox is played
    out at random too, which is hopeless)."""
    if game_id == "blox" and need is not None:
        return blox_guide(need)
    if game_id == "roots":
        return Guide(value=value or roots_value, values=None if value else roots_values, scale=2.0,
                     candidates=roots_candidates, playout=0, action_cost=roots_cost)
    if game_id == "btt":
        return Guide(value=value or btt_value, scale=2.0, playout=None)
    if value is not None:
        return Guide(value=value, scale=GIVEN_SCALES.get(game_id, 1.0), playout=GIVEN_PLAYOUTS.get(game_id, 0))
    return Guide(value=None, playout=None)


GIVEN_SCALES: dict[str, float] = {"treeblox": 6.0, "the-tree": 3.0}
"""The logistic scale for an evaluation passed in: Treeblox's weighs an active leaf 6,
The Tree's a tile placed 1 and a hard tile kept 3."""
GIVEN_PLAYOUTS: dict[str, int | None] = {"treeblox": 0, "the-tree": None}
"""Treeblox is judged at the leaf; The Tree's leaves are played out (its random
playouts say who sheds tiles; measured 55% against 40% when judged at once)."""

