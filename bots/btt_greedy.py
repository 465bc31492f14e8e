"""A greedy Branches and Twigs and Thorns bot: `python bots/btt_greedy.py`.

It keeps its own copy of the game (rebuilt from the start message and the events of
each request) and plays the move that leaves its score furthest ahead of the best
opponent's. Ties go to moves that are hard to punish: a pyramid with no empty
neighbour can never be pointed at, so the smallest one goes there; an exposed one
should be big (pointing at it costs its size); an attack uses the smallest pyramid
(the victim gains what was placed). Imports only the stdlib, protocol.bot and the
rules engine, so it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import os
import sys
from typing import cast

if __package__ in (None, ""):
    # Run as a script: make the project root importable (bots/ is sys.path[0]).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.btt import BTTState
from arena.games.btt_board import EMPTY, NULL, ROOT
from bots.tracking import serve


def choose_action(state: BTTState) -> str:
    """The greedy choice in any position where `state` has a seat to move."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if state.phase() == "setup":
        return _setup_choice(state, legal)
    seat = state.current()
    keys = [_move_key(state, seat, action) for action in legal]
    best = max(range(len(legal)), key=lambda k: (keys[k], -k))
    return legal[best]


def _setup_choice(state: BTTState, legal: list[str]) -> str:
    """A null goes where it takes the fewest neighbours away (a corner); a root where
    it has the most empty neighbours, nearest the first in ASCII order on ties."""
    geo = state.geo
    owner = state.owner

    def room(action: str) -> int:
        sq = geo.index[action[1:]]
        return sum(1 for nb in geo.adj[sq] if owner[nb] == EMPTY)

    if legal[0].startswith("N"):
        return min(legal, key=room)
    return max(legal, key=room)


def _move_key(state: BTTState, seat: int, action: str) -> tuple[int, int, int]:
    """(score lead after the move, size preference, room for the own tree)."""
    geo = state.geo
    _, size, pid = geo.parse[action]
    sq, tgt = geo.pair_src[pid], geo.pair_dst[pid]
    owner = state.owner
    victim = owner[tgt]
    scores = list(state.scores)
    attack = victim >= 0 and victim != seat
    if attack:
        scores[seat] -= state.size[tgt]
        scores[victim] += size
    lead = scores[seat] - max(s for k, s in enumerate(scores) if k != seat)
    exposure = sum(1 for nb in geo.adj[sq] if owner[nb] == EMPTY)
    if attack or exposure == 0:
        size_pref = -size
    else:
        size_pref = size
    room = -exposure if attack else _own_room(state, seat, sq)
    return (lead, size_pref, room)


def _own_room(state: BTTState, seat: int, sq: int) -> int:
    """Empty squares next to sq that no opponent pyramid touches: places where this
    seat can grow later without an opponent growing there first for free."""
    geo = state.geo
    owner = state.owner
    room = 0
    for nb in geo.adj[sq]:
        if owner[nb] != EMPTY:
            continue
        touching = [owner[x] for x in geo.adj[nb] if x != sq and owner[x] not in (EMPTY, NULL)]
        if all(o == seat or o == ROOT for o in touching):
            room += 1
    return room


def main() -> None:
    serve("btt", "btt-greedy", lambda state, request: choose_action(cast(BTTState, state)))


if __name__ == "__main__":
    main()
