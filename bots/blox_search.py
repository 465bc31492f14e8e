"""A Blox bot that races and blocks: `python bots/blox_search.py`.

The greedy bot only builds. This one also reads the opponents' plans
(bots/blox_plan.py): its candidates are the legal bricks of its own plan and the legal
placements onto the bricks every opponent still needs, and it scores each by looking
one turn ahead of the opponents: the leader's need (the fewest bricks any opponent
still needs) minus its own need, with a loss when the leader would be one brick from
winning on its turn and a win when its own chain is complete. As long as time allows
it then checks the best candidates two plies deep: the leader's greedy reply, and the
race after it.
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any, cast

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games import State
from arena.games.blox import PASS, BloxState
from bots.blox_greedy import choose_action as greedy_action
from bots.blox_greedy import level
from bots.blox_plan import CLASSES, UNREACHABLE, Plan, node_action, plan_for
from bots.tracking import TimeUp, seed_from_environment, serve, think_time, time_box

WIN = 1000.0
CANDIDATES = 24
"""At most this many placements are scored per turn."""
DEEPER = 4
"""The best candidates re-scored after the leader's reply, time allowing."""


def opponents(state: BloxState, seat: int) -> list[int]:
    return [s for s in range(state.num_seats) if s != seat]


def race(state: BloxState, seat: int) -> float:
    """How the race stands for `seat` when an opponent is to move: positive is good."""
    if state.winner is not None:
        return WIN if state.winner == seat else -WIN
    mine = plan_for(state, seat).need
    leader = min(plan_for(state, s).need for s in opponents(state, seat))
    if leader <= 1:
        return -WIN / 2
    if mine >= UNREACHABLE and leader >= UNREACHABLE:
        return 0.0
    return float(leader - mine)


def candidates(state: BloxState, seat: int, rng: random.Random) -> list[str]:
    """Own planned bricks first, then placements that take a spot an opponent needs."""
    legal = state.legal_actions()
    allowed = set(legal)
    plans: list[Plan] = [plan_for(state, seat)] + [plan_for(state, s) for s in opponents(state, seat)]
    found: list[str] = []
    for plan in plans:
        for node in plan.missing:
            action = node_action(state, node)
            if action in allowed and action not in found:
                found.append(action)
    needed = needed_studs(state, plans[1:])
    blockers = [a for a in legal if a != PASS and a not in found and blocks(state, a, needed)]
    rng.shuffle(blockers)
    found.extend(blockers)
    if len(found) < 4:
        found.extend(rng.sample(legal, min(8, len(legal))))
    return list(dict.fromkeys(found))[:CANDIDATES]


def needed_studs(state: BloxState, plans: list[Plan]) -> dict[int, int]:
    """Per level: the studs of every position the opponents' plans still need."""
    studs: dict[int, int] = {}
    for plan in plans:
        for node in plan.missing:
            o, z = CLASSES[node[0]]
            studs[z] = studs.get(z, 0) | state.geo.footprint(o, node[1])
    return studs


def blocks(state: BloxState, action: str, needed: dict[int, int]) -> bool:
    """Whether `action`'s brick would sit on a position an opponent's plan needs."""
    x, y, z = (int(v) for v in action[1:].split(","))
    return bool(needed.get(z, 0) & state.geo.footprint(action[0], state.geo.index(x, y)))


def after(state: BloxState, action: str) -> BloxState:
    child = state.clone()
    child.apply(action)
    return child


def choose_action(state: BloxState, rng: random.Random, seconds: float) -> tuple[str, dict[str, Any]]:
    """The best candidate by the race after it, then after the leader's greedy reply,
    among those scored in `seconds` (a step can take 1 ms or 100 ms: the search is
    boxed in by an alarm, and a random legal brick is the answer if none was scored)."""
    legal = state.legal_actions()
    if legal == [PASS]:
        return PASS, {}
    seat = state.current()
    scored: list[tuple[float, int, float, str]] = []
    deep: list[tuple[float, int, float, str]] = []
    try:
        with time_box(seconds):
            search(state, seat, rng, scored, deep)
    except TimeUp:
        pass
    if not scored:
        return rng.choice([a for a in legal if a != PASS] or legal), {"comment": "no time to search"}
    scored.sort()
    if scored[0][0] <= -WIN:
        return scored[0][3], {"score": WIN}
    best = min(deep) if len(deep) > 1 else scored[0]
    return best[3], {"score": -best[0], "candidates": len(scored)}


def search(state: BloxState, seat: int, rng: random.Random, scored: list[tuple[float, int, float, str]],
           deep: list[tuple[float, int, float, str]]) -> None:
    """Fill `scored` with candidates by the race after them (stopping at a win), then
    `deep` with the best by the race after the leader's greedy reply."""
    for action in candidates(state, seat, rng):
        scored.append((-race(after(state, action), seat), level(action), rng.random(), action))
        if scored[-1][0] <= -WIN:
            return
    for entry in sorted(scored)[:DEEPER]:
        child = after(state, entry[3])
        if child.winner is not None or child.current() == seat:
            deep.append(entry)
            continue
        reply = greedy_action(child, rng)
        deep.append((-race_after_reply(after(child, reply), seat), entry[1], entry[2], entry[3]))


def race_after_reply(state: BloxState, seat: int) -> float:
    """The race once an opponent has replied: now `seat`'s own tempo counts."""
    if state.winner is not None:
        return WIN if state.winner == seat else -WIN
    mine = plan_for(state, seat).need
    leader = min(plan_for(state, s).need for s in opponents(state, seat))
    if mine <= 1 and state.current() == seat:
        return WIN / 2
    return float(leader - mine)


def main() -> None:
    rng = random.Random(seed_from_environment())

    def choose(state: State, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return choose_action(cast(BloxState, state), rng, think_time(request, fraction=0.5, default_s=0.5))

    serve("blox", "blox-search", choose, rng=rng)


if __name__ == "__main__":
    main()
