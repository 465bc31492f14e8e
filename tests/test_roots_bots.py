"""The Roots bots: greedy heads for the free regions, both play over the protocol
without fault within their time; slow: greedy beats random in 90% of 200 games and
search beats greedy clearly."""

from __future__ import annotations

import random

import pytest

from arena.cli.summary import totals
from arena.records.replay import verify
from bots.roots_greedy import choose_action
from tests.helpers.botmatch import match
from tests.helpers.roots import play, ready, three_in_a_row


def test_greedy_takes_the_region_the_opponent_could_also_reach() -> None:
    # A, B, C in a row; B is reachable by both seats, so nobody's. Drawing r2 at A
    # makes B unreachable for seat 1: greedy takes it over keeping or leaving.
    state = three_in_a_row()
    state.regular = [2, 4]
    action = choose_action(state, random.Random(1))
    assert action == "draw r2 0,0/0"
    assert play(state, action).scores() == (2, 1)


def test_greedy_grows_towards_the_free_middle_rather_than_along_the_rim() -> None:
    # From the top region, entering by its north side: r2 and r4 lead to rim regions,
    # r3 south towards the centre, nearer to more regions than the opponent at the bottom.
    state = ready([2, 3, 4], tips0=("0,-4/0",), tips1=("0,4/3",))
    assert state.reach_distances(0)[state.planet.index["0,0"]] == 4
    assert choose_action(state, random.Random(1)) == "draw r3 0,-4/0"


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_bot_plays_both_seats_within_a_short_time_limit(bot: str) -> None:
    """0.4 s a move: the bots think for half of it, which leaves a loaded machine 0.2 s."""
    result = match("roots", [bot, "random"], 2, per_move=0.4, options={"radius": "3"})
    assert all(o.faults == [] and o.termination == "normal" for o in result.outcomes)
    assert all(verify(o.record) == [] for o in result.outcomes)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_greedy_beats_random_in_most_of_200_games() -> None:
    result = match("roots", ["greedy", "random"], 200, per_move=5.0)
    greedy = totals(result)[0]
    assert greedy.faults == 0
    assert greedy.wins >= 180, f"greedy won {greedy.wins} of 200"


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_search_beats_greedy_clearly() -> None:
    result = match("roots", ["search", "greedy"], 60, per_move=0.6)
    search, greedy = totals(result)
    assert search.faults == 0 and greedy.faults == 0
    assert search.wins >= 30 and search.wins >= 1.5 * greedy.wins, f"search {search.wins}, greedy {greedy.wins} of 60"
