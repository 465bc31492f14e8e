"""The Roots greedy bot: it plays both seats without fault over the protocol and
beats random in most games (slow: 200 games)."""

from __future__ import annotations

import random

import pytest

from arena.replay import verify
from arena.summary import totals
from bots.roots_greedy import choose_action
from tests.botmatch import match
from tests.test_roots import play, three_in_a_row


def test_greedy_takes_the_region_the_opponent_could_also_reach() -> None:
    # A, B, C in a row; B is reachable by both seats, so nobody's. Drawing r2 at A
    # makes B unreachable for seat 1: greedy takes it over keeping or leaving.
    state = three_in_a_row()
    state.regular = [2, 4]
    action = choose_action(state, random.Random(1))
    assert action == "draw r2 0,0/0"
    assert play(state, action).scores() == (2, 1)


def test_greedy_plays_both_seats_without_fault() -> None:
    result = match("roots", ["greedy", "random"], 2, per_move=5.0, options={"radius": "3"})
    assert all(o.faults == [] and o.termination == "normal" for o in result.outcomes)
    assert all(verify(o.record) == [] for o in result.outcomes)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_greedy_beats_random_in_most_of_200_games() -> None:
    result = match("roots", ["greedy", "random"], 200, per_move=5.0)
    greedy = totals(result)[0]
    assert greedy.faults == 0
    assert greedy.wins >= 150, f"greedy won {greedy.wins} of 200"
