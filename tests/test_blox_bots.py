"""The Blox bots: the planner counts the bricks a chain still needs; over the protocol
the bots play without fault; the connection bot beats random in at least 95% of 100
games on 16 x 16 and the search bot beats it clearly on 12 x 12 (slow)."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.cli.summary import totals
from arena.games.blox import BloxState
from arena.records.replay import verify
from bots.blox_greedy import choose_action
from bots.blox_plan import UNREACHABLE, node_action, plan_for
from bots.blox_search import choose_action as search_action
from tests.helpers.botmatch import match


def blox(width: int = 16, height: int = 16, seats: int = 2) -> BloxState:
    state = games.get("blox").new_state(seats, {"width": str(width), "height": str(height)})
    assert isinstance(state, BloxState)
    return state


def play(state: BloxState, *actions: str) -> BloxState:
    for action in actions:
        state.apply(action)
    return state


def test_empty_board_plan_is_an_l_of_six_floor_bricks_and_five_bridges() -> None:
    # 16 studs per edge: three 4-stud floor bricks with 2-stud gaps span it, two bridges
    # join them; two such lines meeting in a corner touch all four edges.
    plan = plan_for(blox(), 0)
    assert plan.need == 11
    levels = sorted(int(node_action(blox(), n).rsplit(",", 1)[1]) for n in plan.missing)
    assert levels == [0] * 6 + [1] * 5


def test_the_plan_is_a_real_winning_chain() -> None:
    # 8 x 8, seat 0 holds H0,0,0 (W and N): two floor bricks and one bridge over all
    # three remain; playing exactly them wins.
    state = play(blox(8, 8), "H0,0,0", "H0,6,0")
    plan = plan_for(state, 0)
    assert plan.need == 3
    assert sorted(node_action(state, n) for n in plan.missing) == ["H4,0,0", "V3,1,1", "V4,4,0"]
    play(state, "H4,0,0", "V6,4,0", "V4,4,0", "H0,4,0")
    assert plan_for(state, 0).need == 1
    play(state, "V3,1,1")
    assert state.winner == 0 and plan_for(state, 0).need == 0


def test_an_edge_covered_by_the_opponent_is_unreachable() -> None:
    # Seat 1's floor bricks cover the whole south edge of an 8 x 8 board.
    state = play(blox(8, 8), "H0,0,0", "H0,6,0", "H4,0,0", "H4,6,0", "H2,0,1")
    assert plan_for(state, 0).need == UNREACHABLE


def test_bridge_plan_joins_the_starting_bricks() -> None:
    # 16 x 16 bridge: seat 0's V7,11,0 and V7,1,0 are six studs apart; a floor brick
    # between them and two bridges onto it join them, and playing exactly those wins.
    state = games.get("blox").new_state(2, {"variant": "bridge"})
    assert isinstance(state, BloxState)
    plan = plan_for(state, 0)
    assert plan.need == 3
    actions = [node_action(state, n) for n in plan.missing]
    assert [a.rsplit(",", 1)[1] for a in actions] == ["0", "1", "1"]
    for action, reply in zip(actions, ("H0,0,0", "H12,0,0", "H0,14,0")):
        play(state, action)
        if state.winner is None:
            play(state, reply)
    assert state.winner == 0 and state.joined(0)


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_each_bot_wins_the_bridge_variant_against_random(bot: str) -> None:
    result = match("blox", [bot, "random"], 2, per_move=0.6, options={"variant": "bridge", "width": "14",
                                                                    "height": "14"})
    assert all(o.faults == [] and o.termination == "normal" for o in result.outcomes)
    assert totals(result)[0].wins == 2


def opponent_one_brick_from_winning() -> BloxState:
    # Seat 1 joins W, N and E along the top and has a floor brick on the south edge
    # (V0,4,0); a bridge V-1,1,1 or V0,1,1 would win. Seat 0 is to move.
    state = play(blox(8, 8), "H3,4,0", "H0,0,0", "H3,6,0", "H4,0,0", "V7,4,0", "H2,0,1", "H3,2,0", "V0,4,0")
    assert state.current() == 0 and plan_for(state, 1).need == 1
    return state


def test_search_blocks_an_opponent_one_brick_from_winning() -> None:
    state = opponent_one_brick_from_winning()
    action, _ = search_action(state, random.Random(2), 2.0)
    assert plan_for(play(state, action), 1).need >= 2


def test_greedy_only_builds_and_leaves_the_threat() -> None:
    state = opponent_one_brick_from_winning()
    assert plan_for(play(state, choose_action(state, random.Random(2))), 1).need == 1


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_each_bot_plays_both_seats_without_fault(bot: str) -> None:
    result = match("blox", [bot, "random"], 2, per_move=0.5, options={"width": "12", "height": "12"})
    assert all(o.faults == [] and o.termination == "normal" for o in result.outcomes)
    assert all(verify(o.record) == [] for o in result.outcomes)
    assert totals(result)[0].wins == 2


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_greedy_beats_random_in_95_percent_of_100_games_on_16x16() -> None:
    result = match("blox", ["greedy", "random"], 100, per_move=5.0)
    greedy = totals(result)[0]
    assert greedy.faults == 0
    assert greedy.wins >= 95, f"greedy won {greedy.wins} of 100"


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_search_beats_greedy_clearly_on_12x12() -> None:
    result = match("blox", ["search", "greedy"], 60, per_move=1.0, options={"width": "12", "height": "12"})
    search, greedy = totals(result)
    assert search.faults == 0 and greedy.faults == 0
    assert search.wins >= 2 * greedy.wins and search.wins >= 40, (search.wins, search.draws, greedy.wins)
