"""The Tree: drawing, passing and the end of rules/the-tree.md, what each seat sees, and
the views."""

from __future__ import annotations

import pytest

from arena.games import CHANCE, TERMINAL, IllegalAction
from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import tile_name
from arena.render.the_tree import render_the_tree, symbol, text_the_tree
from tests.helpers.the_tree import BASE, GAME, PERFT_DEAL, dealt, position

# ---- drawing, passing, the end ------------------------------------------------------------


def test_a_blocked_seat_draws_the_top_tile_and_its_turn_ends() -> None:
    state = position(["77@0,0"], [["12"], ["34"]], supply=["56", "00"])
    assert state.legal_actions() == ["draw"]
    with pytest.raises(IllegalAction):
        state.apply("pass")
    state.apply("draw")
    assert state.current() == 1 and sorted(state.hands[0]) == [(1, 2), (5, 6)]
    assert [tile_name(t) for t in state.supply] == ["00"]


def test_a_seat_that_can_place_may_not_draw() -> None:
    state = position(["00@0,0"], [["01"], ["34"]], supply=["56"])
    assert "draw" not in state.legal_actions()
    with pytest.raises(IllegalAction):
        state.apply("draw")


def test_a_drawn_tile_that_fits_waits_for_the_next_turn() -> None:
    state = position(["00@0,0"], [["77", "66"], ["57"]], supply=["01", "02"])
    assert state.legal_actions() == ["draw"]
    state.apply("draw")  # draws 01, which fits at once: the turn ends anyway
    assert state.current() == 1
    state.apply("draw")  # seat 1 blocked too
    assert state.current() == 0 and "01@-1,1" in state.legal_actions()


def test_with_an_empty_supply_a_blocked_seat_passes_and_all_passing_ends_the_game() -> None:
    state = position(["77@0,0"], [["12"], ["34"], []], supply=[], finished=[2])
    assert state.legal_actions() == ["pass"]
    with pytest.raises(IllegalAction):
        state.apply("draw")
    state.apply("pass")
    assert state.current() == 1 and state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.current() == TERMINAL
    assert state.result().ranks == (2, 2, 1)  # the blocked seats share the next rank
    assert state.result().scores == (1.0, 1.0, 0.0)
    assert state.blocked == [0, 1]


def test_a_placement_or_a_draw_restarts_the_pass_count() -> None:
    state = position(["00@0,0"], [["37"], ["01", "33"], ["45"]], supply=[])
    state.apply("pass")
    assert state.passes == 1
    state.apply("01@-1,1")  # seat 1 places (no extra turn: one support, nothing above)
    assert state.passes == 0 and state.current() == 2
    drawn = position(["77@0,0"], [["12"], ["34"]], supply=["56"], mover=1)
    drawn.passes = 1
    drawn.apply("draw")
    assert drawn.passes == 0 and drawn.current() == 0
    drawn.apply("pass")
    assert drawn.current() == 1 and not drawn.is_terminal()  # one pass since the draw, two holders
    drawn.apply("pass")
    assert drawn.is_terminal() and drawn.result().ranks == (1, 1)


def test_the_first_to_empty_its_hand_wins_and_others_play_on_for_places() -> None:
    state = position(["00@0,0"], [["01"], ["02", "66"], ["77"]], supply=[])
    state.apply("01@-1,1")
    assert state.finished == [0] and state.current() == 1 and not state.is_terminal()
    state.apply("20@1,1")
    state.apply("pass")  # seat 2: a 7 fits over nothing here
    assert state.current() == 1  # seat 0 is skipped: it has finished
    state.apply("pass")  # seat 1 with 66: both holders passed in succession
    assert state.is_terminal() and state.result().ranks == (1, 2, 2)


def test_four_seats_play_on_until_one_holder_is_left() -> None:
    state = position(["00@0,0"], [["01"], ["02"], ["55", "77"], ["66"]], supply=[])
    state.apply("01@-1,1")
    assert state.current() == 1
    state.apply("20@1,1")
    assert state.finished == [0, 1] and state.current() == 2
    state.apply("pass")  # seat 2: a 5 or a 7 fits nowhere
    state.apply("pass")
    assert state.is_terminal() and state.result().ranks == (1, 2, 3, 3)


def test_the_last_holder_takes_the_last_place() -> None:
    state = position(["00@0,0"], [["01"], ["66"], ["02"]], supply=[])
    state.apply("01@-1,1")
    state.apply("pass")  # seat 1
    state.apply("20@1,1")  # seat 2 finishes: only seat 1 holds tiles
    assert state.is_terminal() and state.result().ranks == (1, 3, 2)
    assert state.result().scores == (0.0, 1.0, 0.0)


def test_two_seats_end_when_one_empties_its_hand_and_the_extra_turn_lapses() -> None:
    state = position(BASE, [["35"], ["22", "44"]], supply=["07"])
    state.apply("53@0,2")  # rests on two tiles, but the hand is empty: it finishes
    assert state.is_terminal() and state.result().ranks == (1, 2)
    assert state.result().scores == (0.0, 2.0)


def test_in_three_seats_an_extra_turn_of_a_finished_seat_lapses_to_the_next_seat() -> None:
    state = position(BASE, [["35"], ["22", "44"], ["66"]], supply=["07"])
    state.apply("53@0,2")
    assert not state.is_terminal() and state.finished == [0] and state.current() == 1


def test_solo_win_and_loss() -> None:
    win = position(["00@0,0"], [["01"]], supply=["77"])
    win.apply("01@-1,1")
    assert win.is_terminal() and win.result().ranks == (1,) and win.result().scores == (0.0,)
    loss = position(["77@0,0"], [["01"]], supply=[])
    loss.apply("pass")
    assert loss.is_terminal() and loss.result().ranks == (2,) and loss.result().scores == (1.0,)
    drawing = position(["77@0,0"], [["66"]], supply=["01"])
    drawing.apply("draw")
    assert drawing.current() == 0 and drawing.legal_actions() == ["pass"]  # solo: its own next turn


def test_only_canonical_actions_are_accepted() -> None:
    state = dealt(2)
    for bad in ("55@00,0", "55@0, 0", "55 @0,0", "draw", "pass", "56@0,0", "55@+0,0", "55@-0,0", ""):
        assert not state.is_legal(bad)
        with pytest.raises(IllegalAction):
            state.apply(bad)
    state.apply("55@0,0")
    assert state.is_legal("75@1,1") and not state.is_legal("57@1,1") and not state.is_legal("75@1,01")


def test_a_finished_game_accepts_nothing() -> None:
    state = position(["00@0,0"], [["01"], ["77"]])
    state.apply("01@-1,1")
    assert state.is_terminal() and state.legal_actions() == [] and not state.is_legal("draw")
    with pytest.raises(IllegalAction):
        state.apply("draw")


# ---- what each seat sees -------------------------------------------------------------------


def test_each_seat_sees_its_own_hand_in_the_deal_and_only_its_own_draws() -> None:
    state = GAME.new_state(3)
    seen = [state.visible_action(PERFT_DEAL, CHANCE, seat) for seat in (0, 1, 2)]
    tiles = PERFT_DEAL.split(",")
    assert seen == ["deal " + ",".join(tiles[9 * s:9 * s + 9]) for s in range(3)]
    blocked = position(["77@0,0"], [["12"], ["34"]], supply=["56"])
    assert blocked.visible_action("draw", 0, 0) == "draw 56"
    assert blocked.visible_action("draw", 0, 1) == "draw"
    assert blocked.visible_action("77@1,1", 0, 1) == "77@1,1"


def test_the_observation_holds_the_own_hand_and_public_facts_only() -> None:
    state = dealt(2)
    state.apply("55@0,0")
    obs = state.observation(1)
    assert obs == {
        "seat": 1, "seats": 2, "to_move": 1, "hand": sorted(PERFT_DEAL.split(",")[9:18]),
        "hand_sizes": [8, 9], "supply_size": 18, "tiles": ["55@0,0"], "finished": [], "passes": 0,
    }
    others = set(PERFT_DEAL.split(",")[:9] + PERFT_DEAL.split(",")[18:]) - {"55"}
    assert not any(f'"{name}"' in repr(obs).replace("'", '"') for name in others)


def test_clones_are_independent() -> None:
    state = dealt(2)
    state.apply("55@0,0")
    copy = state.clone()
    copy.apply("77@1,1")
    assert state.current() == 1 and len(state.tiles) == 1 and (1, 1) not in state.cells
    assert state.legal_actions() == ["47@-1,1", "57@-1,1", "74@1,1", "75@1,1", "77@-1,1", "77@1,1"]


# ---- views ----------------------------------------------------------------------------------


def test_views_draw_rings_hands_and_supply() -> None:
    assert [symbol(v) for v in (0, 1, 2, 4, 5, 7)] == ["0...", "1p..", "2.s.", "4..b", "5p.b", "7psb"]
    state = dealt(2)
    assert "not dealt" in text_the_tree(TheTreeState(2))
    state.apply("55@0,0")
    state.apply("75@1,1")
    text = text_the_tree(state)
    lines = text.splitlines()
    # The 7 of row 1 sits exactly over the right-hand 5 of row 0.
    assert lines[0].index("7psb") == lines[1].index("5p.b", lines[1].index("5p.b") + 1)
    assert "|5p.b 5p.b|" in lines[1] and "seat 1 [8]:" in text and "supply [18] (top first): 33" in text
    render_the_tree(state)


def test_views_show_the_end() -> None:
    state = position(["77@0,0"], [["12"], ["34"]], supply=[])
    state.apply("pass")
    state.apply("pass")
    text = text_the_tree(state)
    assert "game over: ranks 1 1" in text and "(blocked)" in text
    render_the_tree(state)
