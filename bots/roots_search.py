"""A search Roots bot: `python bots/roots_search.py`.

Both seats take their dice from one pool, so a die is worth what it gives the bot and
what it keeps from the opponent. The bot rates every action as the greedy bot does
(bots/roots_greedy.py), then looks one reply further for the best few: it finishes its
own turn greedily, the opponent answers with its greedy choice on the pool the bot
leaves it, and the bot keeps the action whose position is best after that answer.
When the opponent has no turn next (a roll comes, the round or game ends) the position
is rated as it stands. Everything is bounded by the move's time: replies are searched
best candidates first while time is left, and the greedy choice is played when none
could be.
"""

from __future__ import annotations

import os
import random
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.roots import RootsState
from bots.roots_greedy import candidates, ratings, value
from bots.tracking import serve_timed
from protocol.bot import clock

WIDTH = 6
"""Candidates (best by greedy rating) whose opponent reply is searched."""
RATING_SHARE = 0.4
"""Share of the move's time for the greedy ratings; the rest goes to the replies."""


def after_reply(state: RootsState, action: str, seat: int, rng: random.Random, deadline: float) -> float | None:
    """The bot's value after `action` and the opponent's greedy answer to it; None
    when the deadline passed before the answer was found."""
    child = state.clone()
    child.apply(action)
    while child.current() == seat:  # the bot's own power-ups or `end` first
        child.apply(ratings(child, candidates(child, rng), rng, deadline)[0][2])
    if child.current() == 1 - seat:
        child.apply(ratings(child, candidates(child, rng), rng, deadline)[0][2])
    if clock() > deadline:
        return None
    return value(child, seat)


def choose_action(state: RootsState, rng: random.Random, seconds: float = 60.0) -> str:
    """The candidate best after the opponent's reply, among those searched in time."""
    options = candidates(state, rng)
    if len(options) == 1:
        return options[0]
    start = clock()
    seat = state.current()
    rated = ratings(state, options, rng, start + RATING_SHARE * seconds)
    deadline = start + seconds
    best: tuple[float, str] | None = None
    for _, _, action in rated[:WIDTH]:
        outcome = after_reply(state, action, seat, rng, deadline)
        if outcome is None:
            break
        if best is None or outcome > best[0]:
            best = (outcome, action)
    return best[1] if best is not None else rated[0][2]


def main() -> None:
    serve_timed("roots", "roots-search", choose_action)


if __name__ == "__main__":
    main()
