"""A greedy Roots bot: `python bots/roots_greedy.py`.

It plays the action that leaves it the best region balance on the board as it would
be scored now (regions controlled by occupation or sole reach, rules/roots.md), plus
half a region for every free region both seats reach but it reaches in fewer strokes:
the territory it is winning, which sends its roots into the open middle rather than
along the rim. Reach and open tips break ties: a root that can still go far is worth
more than one that is hemmed in. It never rerolls (it cannot see the new dice in
advance) and leaves a round only when no die helps.
"""

from __future__ import annotations

import os
import random
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.roots import RootsState
from arena.games.roots_pieces import END, LEAVE
from bots.tracking import serve_timed
from protocol.bot import clock

REACH = 0.3
"""Worth of each region the bot can still reach, against one region controlled."""
TIPS = 0.5
"""Worth of each open tip: more roots, more choices for later dice."""
LEAVE_COST = 1.5
"""Leaving ends the bot's round; it must be clearly better than every die."""
NEARER = 0.5
"""Worth of a free region both can reach but the bot reaches in fewer strokes."""
MAX_FAST = 80
"""Fast-growth actions scored per turn (a random sample beyond this)."""


def value(state: RootsState, seat: int) -> float:
    """The position for `seat`: regions controlled minus the opponent's, plus reach
    and the free regions it is nearer to than the opponent is."""
    near = (state.reach_distances(0), state.reach_distances(1))
    reach = (set(near[0]), set(near[1]))
    score = state.scores(reach)
    room = REACH * (len(reach[seat]) - len(reach[1 - seat]))
    mine, theirs = near[seat], near[1 - seat]
    lead = 0
    for region in mine.keys() & theirs.keys():
        if not state.strokes[region]:
            lead += (mine[region] < theirs[region]) - (theirs[region] < mine[region])
    return score[seat] - score[1 - seat] + room + NEARER * lead + TIPS * len(state.tips[seat])


def rate(state: RootsState, action: str, seat: int) -> float:
    child = state.clone()
    child.apply(action)
    penalty = LEAVE_COST if action == LEAVE else 0.0
    return value(child, seat) - penalty


def candidates(state: RootsState, rng: random.Random) -> list[str]:
    """The actions worth rating, in random order: no reroll (the new dice cannot be
    seen in advance), a sample of fast growths, and only `end` when no fast growth is
    left among the power-ups."""
    legal = state.legal_actions()
    options = [a for a in legal if not a.startswith("reroll")] or legal
    fast = [a for a in options if a.startswith("fast")]
    if len(fast) > MAX_FAST:
        dropped = set(fast) - set(rng.sample(fast, MAX_FAST))
        options = [a for a in options if a not in dropped]
    if END in options and not fast:
        return [END]
    rng.shuffle(options)
    return options


def ratings(state: RootsState, options: list[str], rng: random.Random,
            deadline: float) -> list[tuple[float, float, str]]:
    """(rating, tie-break, action) for the mover, as many as the deadline allows (one
    at least), best first."""
    seat = state.current()
    rated = []
    for action in options:
        rated.append((rate(state, action, seat), rng.random(), action))
        if clock() > deadline:
            break
    return sorted(rated, reverse=True)


def choose_action(state: RootsState, rng: random.Random, seconds: float = 60.0) -> str:
    """The best-rated action among those rated within `seconds` (at least one)."""
    options = candidates(state, rng)
    if len(options) == 1:
        return options[0]
    return ratings(state, options, rng, clock() + seconds)[0][2]


def main() -> None:
    serve_timed("roots", "roots-greedy", choose_action)


if __name__ == "__main__":
    main()
