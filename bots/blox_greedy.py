"""A greedy Blox bot playing the connection race: `python bots/blox_greedy.py`.

Each turn it plans its cheapest winning chain (bots/blox_plan.py: the bricks still
missing between its bricks and the four edges) and places the planned brick that
leaves it the smallest need, level-0 bricks before the level-1 bricks that will join
them (a brick above would forbid the one below). It ignores the opponents except as
obstacles. When nothing of its plan can be placed it tries a few other placements and
keeps the one that helps most; ties are broken at random (seeded by ARENA_BOT_SEED).
"""

from __future__ import annotations

import os
import random
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.blox import PASS, BloxState
from bots.blox_plan import UNREACHABLE, node_action, plan_for
from bots.tracking import serve_timed
from protocol.bot import clock

FALLBACK_TRIES = 12
"""Placements tried at random when no planned brick can be placed."""


def need_after(state: BloxState, action: str, seat: int) -> int:
    """The seat's need once `action` is played."""
    child = state.clone()
    child.apply(action)
    return plan_for(child, seat).need


def level(action: str) -> int:
    return int(action.rsplit(",", 1)[1])


def candidates(state: BloxState, rng: random.Random) -> list[str]:
    """The planned bricks that are legal now; a random sample of placements otherwise."""
    legal = state.legal_actions()
    allowed = set(legal)
    planned = [a for a in (node_action(state, n) for n in plan_for(state, state.current()).missing) if a in allowed]
    if planned:
        return planned
    low = [a for a in legal if a.endswith((",0", ",1"))] or legal
    return rng.sample(low, min(FALLBACK_TRIES, len(low)))


def choose_action(state: BloxState, rng: random.Random, seconds: float = 60.0) -> str:
    """The candidate leaving the smallest need, among those scored within `seconds`
    (at least one is always scored)."""
    legal = state.legal_actions()
    if legal == [PASS]:
        return PASS
    deadline = clock() + seconds
    seat = state.current()
    scored = []
    for action in candidates(state, rng):
        scored.append((need_after(state, action, seat), level(action), rng.random(), action))
        if clock() > deadline:
            break
    best = min(scored)
    if best[0] >= UNREACHABLE:
        return rng.choice(legal)
    return best[3]


def main() -> None:
    serve_timed("blox", "blox-greedy", choose_action)


if __name__ == "__main__":
    main()
