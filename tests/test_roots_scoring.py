"""Roots: scoring by occupation and reach, the notation, the observation, the board
view and the command line (legal, perft)."""

from __future__ import annotations

import json

import pytest

from arena.games import IllegalAction
from arena.render.roots import render_roots, text_roots
from tests.helpers.cli import run_cli
from tests.helpers.roots import add_stroke, new, play, ready, region, three_in_a_row

# ---- scoring ------------------------------------------------------------------------------


def test_scoring_by_occupation_and_reach_a_region_both_reach_goes_to_nobody() -> None:
    state = three_in_a_row()
    a, b, c = 0, 1, 2
    assert state.reach(0) == {a, b} and state.reach(1) == {b, c}
    assert state.scores() == (1, 1)  # A to seat 0, C to seat 1, B to nobody
    play(state, "draw r2 0,0/0", "end")
    # A is occupied by seat 0 alone. Seat 1 would enter B by side 2 and could only leave
    # by side 5, now used: a state without a legal stroke reaches nothing, so B is seat 0's.
    assert state.reach(1) == {c} and state.scores() == (2, 1)
    play(state, "leave", "draw r3 1,0/5")  # seat 1 leaves; seat 0 draws B 5 -> 2
    # B is seat 0's; its exit used C's side 5, so seat 1 no longer reaches C, nor seat 0
    assert state.reach(1) == set() and state.reach(0) == set()
    assert state.scores() == (2, 0)


def test_a_region_occupied_by_both_goes_to_nobody_and_equal_scores_draw() -> None:
    state = ready([1], tips0=(), tips1=())
    add_stroke(state, 0, "0,0/0", 3)
    add_stroke(state, 1, "0,0/1", 1)
    state.tips = [set(), set()]
    assert state.scores() == (0, 0)  # no tips: nobody reaches anything; 0,0 is shared
    add_stroke(state, 0, "3,-3/1", 3)
    add_stroke(state, 1, "-3,3/4", 3)
    state.tips = [set(), set()]
    assert state.scores() == (1, 1)
    state.over = True
    result = state.result()
    assert result.ranks == (1, 1) and result.scores == (1.0, 1.0)


def test_reach_passes_occupied_regions_follows_legal_strokes_and_stops_at_crossings() -> None:
    state = ready([1], tips0=("0,-4/4",), tips1=())
    reach = state.reach(0)
    assert len(reach) == 61  # an empty planet: everything is reachable from one tip
    assert state.scores() == (61, 0)
    # wall off 0,-4: its only ways on are sides 2, 3 and 4 (the tip); chords 2-3... block
    walled = ready([1], tips0=("0,-4/4",), tips1=())
    add_stroke(walled, 1, "0,-4/2", 1)  # 2 -> 3 used by the opponent; from 4 only 2, 3 would lead on
    assert walled.reach(0) == set() and walled.reach(1) == set(range(61)) - {region(walled, "0,-4")} | set()
    assert walled.scores()[0] == 0


def test_reach_ignores_how_its_own_path_would_block_itself() -> None:
    # a corridor that turns back: 0,0 -> 1,0 -> 1,1 -> 0,1 -> 0,0 again by another side
    state = ready([1], tips0=("0,0/0",), tips1=())
    assert region(state, "0,0") in state.reach(0)
    assert (region(state, "0,1")) in state.reach(0)


# ---- notation, observation, views ---------------------------------------------------------


@pytest.mark.parametrize("action", ["draw r3 0,0/0 ", "draw  r3 0,0/0", "draw r3 0,0/6", "draw r7 0,0/0",
                                    "keep r3 ", "Leave", "reroll r2,r1", "fast r3 2,-2/0 r3 0,0/0", "end", ""])
def test_only_canonical_actions_are_accepted(action: str) -> None:
    state = ready([1, 2, 3, 3], tips0=("0,0/0", "2,-2/0"))
    with pytest.raises(IllegalAction):
        state.apply(action)


def test_legal_actions_are_unique_and_in_ascii_order() -> None:
    state = ready([1, 2, 3, 3, 5], [6], tips0=("0,0/0", "2,-2/0", "-2,2/0"))
    legal = state.legal_actions()
    assert legal == sorted(legal) == sorted(set(legal))
    assert all(state.is_legal(a) for a in legal) and not state.is_legal("draw r4 0,0/0")


def test_observation_holds_the_whole_position() -> None:
    state = ready([2, 3], [6], tips1=("-3,3/3",))
    state.kept[1] = 4
    play(state, "draw s6 0,0/0")
    seen = state.observation(1)
    assert seen == {
        "seat": 1, "to_move": 0, "phase": "after", "round": 1, "rounds": 12, "starter": 0,
        "regular": [2, 3], "special": [], "kept": [None, 4], "left": [False, False], "acted": True,
        "powers": [{"reroll": True, "fast": True, "cross": True}] * 2,
        "tips": [["-1,1/1", "0,1/0", "1,0/5"], ["-3,3/3"]],
        "strokes": [[0, "0,0", [0, 2, 3, 4]]],
        "score": list(state.scores()),
    }
    assert json.loads(json.dumps(seen)) == seen
    assert new().observation(0)["phase"] == "plant"


def test_board_view_shows_strokes_tips_pools_and_powers() -> None:
    state = play(ready([2, 3], [6]), "draw s6 0,0/0")
    text = text_roots(state)
    assert "0,0: A 0>2,3,4 Y" in text and "regular r2 r3" in text and "tips -1,1/1, 0,1/0, 1,0/5" in text
    assert "power-ups reroll, fast, cross" in text and "round 1 of 12" in text
    render_roots(state)
    plain = text_roots(new(3))
    assert plain.count("-------") > 20 and "0,0" in plain  # the honeycomb with its labels


def test_cli_legal_and_perft() -> None:
    result = run_cli("legal", "roots", "plant 0", "plant 27", "roll 1,2,3,3,5/6")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines == sorted(lines) and "draw r3 0,-4/0" in lines and "keep r5" in lines and "leave" in lines
    assert "draw r1 0,-4/0" not in lines  # r1 from the top's N side would leave by its NE side
    result = run_cli("perft", "roots", "2", "--option", "radius=3")
    assert result.output.split() == ["1", "42", "2", str(42 * 33)]
