"""Treeblox: every rule of rules/treeblox.md pinned with a position or action sequence."""

from __future__ import annotations

import pytest

from arena import games
from arena.games import TERMINAL, IllegalAction
from arena.games.perft import perft
from arena.games.treeblox import DARK, FINAL, LIGHT, MAIN, OVER, TreebloxState
from arena.render.treeblox import render_treeblox, text_treeblox
from tests.helpers.cli import run_cli

GAME = games.get("treeblox")
OPENING = ["L0,0,0", "L3,3,0"]


def play(*actions: str) -> TreebloxState:
    state = GAME.new_state(2)
    assert isinstance(state, TreebloxState)
    for action in actions:
        state.apply(action)
    return state


def places(state: TreebloxState) -> set[str]:
    """Cells named by the legal placements (without the kind letter)."""
    return {a[1:] for a in state.legal_actions() if a != "pass"}


# ---- the opening --------------------------------------------------------------------------


def test_dark_opens_with_a_leaf_in_any_of_the_16_holes() -> None:
    state = play()
    assert state.current() == DARK
    assert state.legal_actions() == sorted(f"L{x},{y},0" for x in range(4) for y in range(4))


def test_light_answers_with_a_leaf_in_one_of_the_15_others() -> None:
    state = play("L1,2,0")
    assert state.current() == LIGHT
    legal = state.legal_actions()
    assert len(legal) == 15 and "L1,2,0" not in legal and all(a.startswith("L") for a in legal)
    for bad in ("B0,0,0", "pass", "L1,2,0", "L4,0,0"):
        with pytest.raises(IllegalAction):
            state.apply(bad)


def test_after_the_opening_dark_has_exactly_the_14_free_board_holes() -> None:
    state = play(*OPENING)
    assert state.phase == MAIN and state.current() == DARK
    assert places(state) == {f"{x},{y},0" for x in range(4) for y in range(4)} - {"0,0,0", "3,3,0"}
    assert len(state.legal_actions()) == 14 * 2 + 1  # a leaf or a branch in each, or pass


def test_perft_from_the_start() -> None:
    assert perft(GAME.new_state(2), 3) == [16, 240, 6960]


# ---- available holes ----------------------------------------------------------------------


def test_a_branch_opens_its_six_neighbours_to_its_owner_only() -> None:
    state = TreebloxState.position(["L0,0,0", "B3,3,0", "l1,1,0"], mover=DARK)
    dark = places(state)
    assert {"4,3,0", "3,4,0", "3,3,1", "2,3,0", "3,2,0"} <= dark
    assert "3,3,-1" not in dark and "5,3,0" not in dark
    light = TreebloxState.position(["L0,0,0", "B3,3,0", "l1,1,0"], mover=LIGHT)
    assert "4,3,0" not in places(light) and "3,3,1" not in places(light)
    with pytest.raises(IllegalAction):
        light.apply("L3,3,1")


def test_nothing_attaches_to_a_leaf() -> None:
    state = TreebloxState.position(["L1,1,0", "l2,2,0"], mover=DARK)
    assert "1,1,1" not in places(state) and "0,1,0" in places(state)  # (0,1,0) is a board hole
    assert "-1,1,0" not in places(state)


def test_branches_reach_below_off_the_board_and_up_without_limit() -> None:
    tower = [f"B5,0,{z}" for z in range(12)]
    # a Dark column of branches standing off the board, reached through (4,0,0)
    state = TreebloxState.position(["L0,0,0", "B3,0,0", "B4,0,0", *tower, "l2,2,0"], mover=DARK)
    cells = places(state)
    assert "5,0,12" in cells and "6,0,11" in cells and "4,0,11" in cells
    hanging = TreebloxState.position(["L0,0,0", "B1,0,0", "B1,0,1", "B0,0,1", "l2,2,0"], mover=DARK)
    assert "-1,0,1" in places(hanging) and "0,1,1" in places(hanging)
    assert "0,0,0" not in places(hanging)  # taken by the leaf


def test_nothing_goes_under_the_board() -> None:
    state = TreebloxState.position(["B0,0,0", "L1,1,0", "l2,2,0"], mover=DARK)
    assert all(int(cell.split(",")[2]) >= 0 for cell in places(state))
    for bad in ("L0,0,-1", "B3,3,-1"):
        assert not state.is_legal(bad)


def test_a_cube_hanging_into_a_board_hole_covers_it_for_both() -> None:
    base = ["L1,1,0", "B0,1,0", "B0,1,1", "B0,0,1", "l3,3,0"]
    state = TreebloxState.position(base, mover=DARK)
    assert "0,0,0" in places(state)  # a board hole, and below the branch at (0,0,1)
    state.apply("L0,0,0")  # rate 1: the turn ends with it
    assert state.current() == LIGHT
    assert "0,0,0" not in places(state) and "1,0,0" in places(state)


def test_an_occupied_hole_is_not_available() -> None:
    state = play(*OPENING)
    assert not state.is_legal("L3,3,0") and not state.is_legal("B0,0,0")
    with pytest.raises(IllegalAction, match="taken"):
        state.apply("B0,0,0")


# ---- active leaves ------------------------------------------------------------------------


def test_a_leaf_is_active_until_any_cube_is_above_it_even_far_above() -> None:
    state = TreebloxState.position(["L0,0,0", "B1,0,0", "B1,0,1", "B1,0,2", "B0,0,2", "l3,3,0"], mover=DARK)
    assert state.active == [0, 1]  # the branch at (0,0,2) shades the leaf two cells below
    assert state.active_leaf_cells(DARK) == []
    two = TreebloxState.position(["L0,0,0", "L2,0,0", "B1,0,0", "B1,0,1", "B1,0,2", "B0,0,2", "l3,3,0"])
    two.apply("L0,0,3")  # two cells above the leaf at (0,0,0), not touching it
    assert two.active[DARK] == 2
    assert two.active_leaf_cells(DARK) == [(0, 0, 3), (2, 0, 0)]


def test_own_cubes_shade_own_leaves() -> None:
    state = TreebloxState.position(["L0,0,0", "L2,0,0", "B0,1,0", "B0,1,1", "l3,3,0"], mover=DARK)
    assert state.active[DARK] == 2
    state.apply("B0,0,1")
    assert state.active[DARK] == 1


# ---- growth rate and turns ----------------------------------------------------------------


def test_fewer_than_three_active_leaves_grow_one_cube_per_turn() -> None:
    state = TreebloxState.position(["L0,0,0", "L1,0,0", "l3,3,0"], mover=DARK)
    assert state.rate == 1
    state.apply("B2,0,0")
    assert state.current() == LIGHT


def test_rate_two_is_kept_for_the_whole_turn_after_shading_an_own_leaf() -> None:
    state = TreebloxState.position(["L0,0,0", "L1,0,0", "L2,0,0", "B0,1,0", "B0,1,1", "l3,3,0"], mover=DARK)
    assert state.rate == 2
    state.apply("B0,0,1")  # shades the leaf at (0,0,0): two active leaves now
    assert state.active[DARK] == 2 and state.current() == DARK
    state.apply("L3,0,0")
    assert state.current() == LIGHT and state.rate == 1


def test_a_branch_placed_first_offers_its_holes_to_the_second_cube() -> None:
    state = TreebloxState.position(["L0,0,0", "L1,0,0", "L2,0,0", "l3,3,0"], mover=DARK)
    assert "0,1,1" not in places(state)
    state.apply("B0,1,0")
    assert state.current() == DARK and {"0,1,1", "-1,1,0"} <= places(state)
    state.apply("L0,1,1")


def test_pass_ends_the_turn_after_zero_or_one_cube() -> None:
    state = TreebloxState.position(["L0,0,0", "L1,0,0", "L2,0,0", "l3,3,0"], mover=DARK)
    state.apply("B0,1,0")
    assert "pass" in state.legal_actions()
    state.apply("pass")
    assert state.current() == LIGHT and state.empty_turns == 0  # one cube: not an empty turn
    state.apply("pass")
    assert state.current() == DARK and state.empty_turns == 1


def test_two_consecutive_empty_turns_end_the_game() -> None:
    state = play(*OPENING, "pass", "pass")
    assert state.current() == TERMINAL and state.phase == OVER
    assert state.result().ranks == (1, 1)  # one active leaf each: a draw


def test_an_empty_turn_between_placements_does_not_end_the_game() -> None:
    state = play(*OPENING, "pass", "B3,2,0", "pass")
    assert state.current() == LIGHT and state.phase == MAIN


def test_no_available_hole_leaves_only_pass() -> None:
    holes = [f"{'L' if (x + y) % 2 else 'l'}{x},{y},0" for x in range(4) for y in range(4)]
    state = TreebloxState.position(holes, mover=DARK)
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.current() == TERMINAL


# ---- the end --------------------------------------------------------------------------------


def test_shading_the_opponents_last_leaf_ends_the_game_mid_turn() -> None:
    state = TreebloxState.position(["L0,0,0", "L1,0,0", "L2,0,0", "B2,3,0", "B2,3,1", "l3,3,0"], mover=DARK)
    assert state.rate == 2 and state.active[LIGHT] == 1
    state.apply("L3,3,1")  # the first cube of a rate-2 turn, above Light's only leaf
    assert state.current() == TERMINAL
    assert state.result().scores == (4.0, 0.0) and state.result().ranks == (1, 2)


def test_shading_your_own_last_leaf_loses_at_once() -> None:
    state = TreebloxState.position(["L0,0,0", "B0,1,0", "B0,1,1", "l3,3,0", "l2,2,0"], mover=DARK)
    state.apply("B0,0,1")
    assert state.current() == TERMINAL and state.result().ranks == (2, 1)


def test_running_out_mid_turn_starts_the_final_growth_which_cannot_pass() -> None:
    # Dark holds one cube, Light three; Dark has rate 2 but its first cube is its last.
    cubes = ["L0,0,0", "L1,0,0", "L2,0,0", "l3,3,0", "b3,2,0"]
    state = TreebloxState.position(cubes, mover=DARK, cubes_left=((1, 0), (2, 1)))
    assert state.rate == 2
    state.apply("L0,1,0")
    assert state.phase == FINAL and state.current() == LIGHT
    assert "pass" not in state.legal_actions()
    state.apply("B3,1,0")
    state.apply("L3,1,1")
    assert state.current() == LIGHT  # no rate limit in the final growth
    state.apply("L4,2,0")
    assert state.current() == TERMINAL and state.cubes_left(LIGHT) == 0


def test_the_final_growth_ends_when_no_hole_is_left() -> None:
    holes = [f"{'L' if (x + y) % 2 else 'l'}{x},{y},0" for x in range(4) for y in range(4) if (x, y) != (0, 0)]
    state = TreebloxState.position(holes, mover=DARK, cubes_left=((1, 0), (5, 5)))
    state.apply("L0,0,0")  # Dark's last cube takes the last hole
    assert state.current() == TERMINAL  # Light has no hole: the game ends at once


def test_the_final_growth_stops_when_holes_run_out() -> None:
    holes = [f"{'L' if (x + y) % 2 else 'l'}{x},{y},0" for x in range(4) for y in range(4)
             if (x, y) not in ((0, 0), (3, 3))]
    state = TreebloxState.position(holes, mover=DARK, cubes_left=((1, 0), (5, 5)))
    state.apply("L0,0,0")
    assert state.phase == FINAL and state.legal_actions() == ["B3,3,0", "L3,3,0"]
    state.apply("L3,3,0")
    assert state.current() == TERMINAL and state.cubes_left(LIGHT) == 9


def test_more_active_leaves_win_and_equal_is_a_draw() -> None:
    state = play(*OPENING, "L1,0,0", "pass", "pass")
    assert state.current() == TERMINAL and state.result().scores == (2.0, 1.0)
    assert state.result().ranks == (1, 2)


# ---- notation, observation, views ---------------------------------------------------------


@pytest.mark.parametrize("action", ["L01,0,0", "L-0,0,0", "L+1,0,0", "l1,0,0", "L1, 0,0", "L1,0", "Pass", "X1,0,0"])
def test_only_canonical_actions_are_accepted(action: str) -> None:
    state = play()
    assert not state.is_legal(action)
    with pytest.raises(IllegalAction):
        state.apply(action)


def test_legal_actions_are_in_ascii_order() -> None:
    state = TreebloxState.position(["L0,0,0", "B-1,0,0", "l3,3,0"], mover=DARK)
    legal = state.legal_actions()
    assert legal == sorted(legal) and legal[-1] == "pass" and legal[0].startswith("B-")


def test_observation_holds_the_whole_position() -> None:
    state = play(*OPENING, "B1,1,0")
    obs = state.observation(LIGHT)
    assert obs["seat"] == 1 and obs["to_move"] == 1 and obs["phase"] == "main" and obs["rate"] == 1
    assert obs["cubes"] == sorted([[0, 0, 0, 0, "L"], [1, 1, 0, 0, "B"], [3, 3, 0, 1, "L"]])
    assert obs["active_leaves"] == [1, 1]
    assert obs["leaves_left"] == [15, 15] and obs["branches_left"] == [15, 16]


def test_views_show_tops_heights_slices_and_counts() -> None:
    state = TreebloxState.position(["L0,0,0", "B1,0,0", "B1,0,1", "L1,0,2", "l3,3,0"], mover=DARK)
    text = text_treeblox(state)
    assert "L2" in text and "l0" in text  # the top of column (1,0) is a leaf at height 2
    assert "2 active leaves, 14 leaves and 14 branches left, growth rate 1" in text
    assert "y = 0" in text and "()" in text
    render_treeblox(state)
    over = play(*OPENING, "pass", "pass")
    assert "game over" in text_treeblox(over)


def test_cli_legal_and_perft() -> None:
    result = run_cli("legal", "treeblox", "L0,0,0", "L3,3,0")
    assert result.exit_code == 0 and len(result.output.split()) == 29
    result = run_cli("perft", "treeblox", "2")
    assert result.output.split() == ["1", "16", "2", "240"]
