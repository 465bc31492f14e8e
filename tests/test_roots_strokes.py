"""Roots: dice drawn as strokes from tips, sides used once, strokes that cross, and
planting the two trees (rules/roots.md), each on a concrete position."""

from __future__ import annotations

import pytest

from arena.games import CHANCE, IllegalAction
from arena.games.perft import perft
from arena.games.roots_pieces import CROSSES, special_offsets
from tests.helpers.roots import add_stroke, legal_at, new, play, ready, region, tips

# ---- dice, strokes and tips ---------------------------------------------------------------


@pytest.mark.parametrize(("die", "new_tips"), [
    ("r1", {"1,-1/4"}), ("r2", {"1,0/5"}), ("r3", {"0,1/0"}), ("r4", {"-1,1/1"}), ("r5", {"-1,0/2"}),
    ("s1", {"1,-1/4", "0,1/0"}), ("s2", {"1,0/5", "0,1/0"}), ("s3", {"1,0/5", "-1,1/1"}),
    ("s4", {"0,1/0", "-1,1/1"}), ("s5", {"0,1/0", "-1,0/2"}), ("s6", {"1,0/5", "0,1/0", "-1,1/1"}),
])
def test_each_die_exits_by_its_offsets_from_tip_0_0_side_0(die: str, new_tips: set[str]) -> None:
    # r<d>: side d; s<d>: {d, 3}, {2, 4} for a 3, {2, 3, 4} for a 6; each exit becomes
    # a tip in the region across it, entering by the opposite side
    pool = "regular" if die[0] == "r" else "special"
    state = ready([1, 1] if pool == "special" else [int(die[1]), 1], [int(die[1])] if pool == "special" else [])
    play(state, f"draw {die} 0,0/0")
    assert tips(state) == new_tips
    stroke = state.strokes[region(state, "0,0")][0]
    assert stroke.entry == 0 and state.exits_of(stroke) == sorted(int(t.split("/")[1]) + 3 - 6 * (
        int(t.split("/")[1]) >= 3) for t in new_tips)
    assert special_offsets(3) == (2, 4) and special_offsets(6) == (2, 3, 4) and special_offsets(5) == (3, 5)


def test_exits_are_counted_clockwise_from_the_entry_side() -> None:
    # from side 4 (SW): r3 exits by side 1 (NE), s6 by sides 0, 1 and 2
    state = play(ready([3, 3], tips0=("0,0/4",)), "draw r3 0,0/4")
    assert tips(state) == {"1,-1/4"}
    state = play(ready([3, 3], [6], tips0=("0,0/4",)), "draw s6 0,0/4")
    assert tips(state) == {"0,-1/3", "1,-1/4", "1,0/5"}


def test_a_merge_draws_both_dice_in_one_stroke_and_equal_dice_one_exit() -> None:
    state = play(ready([1, 2, 4]), "keep r2", "end", "leave")  # seat 1 leaves; seat 0 again
    assert state.mover == 0 and "merge r4 0,0/0" in state.legal_actions()
    play(state, "merge r4 0,0/0")
    assert tips(state) == {"1,0/5", "-1,1/1"}  # offsets 2 and 4
    assert state.kept[0] is None and state.regular == [1]
    twin = ready([2, 5])
    twin.kept[0] = 2
    play(twin, "merge r2 0,0/0")
    assert tips(twin) == {"1,0/5"}  # {2, 2} is the single exit 2


def test_a_die_with_an_exit_on_the_surface_cannot_be_drawn() -> None:
    # 0,-4 is the top region: its sides 0 (N), 1 (NE) and 5 (NW) are surface segments.
    # From side 4, r1 exits by 5 and r3 by 1 (surface); r5 exits by 3 (S), inside.
    state = ready([1, 3, 5], [1, 4], tips0=("0,-4/4",))
    # s1 = {5, 1}: surface; s4 = {1, 2}: side 1 is surface although side 2 is not
    assert legal_at(state, "draw") == ["draw r5 0,-4/4"]


def test_sides_are_used_once_by_either_player() -> None:
    state = ready([3, 3], tips0=("0,0/0",), tips1=("0,1/4",))
    play(state, "draw r3 0,0/0", "end")  # uses side 3 of 0,0 = side 0 of 0,1
    assert tips(state) == {"0,1/0"}
    assert state.mover == 1
    assert "draw r3 0,1/4" in state.legal_actions()  # 4 -> 1 is free
    assert legal_at(state, "draw r2 0,1/4") == []  # 4 -> 0 is used (seat 0's tip waits there)
    blocked = ready([1, 2], tips0=("0,0/0", "0,0/2"))
    assert legal_at(blocked, "draw r2 0,0/0") == []  # side 2 is another tip's side, used


def test_a_stroke_starts_only_at_an_open_tip_of_the_mover() -> None:
    state = ready([3, 3], tips0=("0,0/0",), tips1=("2,-2/0",))
    assert legal_at(state, "draw r3") == ["draw r3 0,0/0"]
    with pytest.raises(IllegalAction):
        state.apply("draw r3 2,-2/0")  # the opponent's tip
    with pytest.raises(IllegalAction):
        state.apply("draw r3 0,0/1")  # no root waits there
    play(state, "draw r3 0,0/0", "end", "leave")
    assert legal_at(state, "draw r3 0,0/0") == []  # a drawn tip is no longer open


# ---- crossing -----------------------------------------------------------------------------


def test_a_chord_0_3_forbids_1_4_and_allows_1_2_and_4_5() -> None:
    chord_03 = 0b001001
    assert CROSSES[chord_03][0b010010]  # 1-4 crosses 0-3
    assert not CROSSES[chord_03][0b000110] and not CROSSES[chord_03][0b110000]  # 1-2, 4-5 do not
    for tip, crossing, clear in (("0,0/1", "draw r3 0,0/1 x", "draw r1 0,0/1"),
                                 ("0,0/4", "draw r3 0,0/4 x", "draw r1 0,0/4")):
        state = ready([1, 3], tips0=(tip,))
        add_stroke(state, 1, "0,0/0", 3)  # the opponent's chord 0-3
        assert legal_at(state, "draw r3") == [crossing]  # 1-4 and 4-1 cross it
        assert legal_at(state, "draw r1") == [clear]  # 1-2 and 4-5 do not


def test_own_strokes_block_too() -> None:
    state = play(ready([3, 3], tips0=("0,0/0", "0,0/1")), "draw r3 0,0/0", "end", "leave")
    assert "draw r3 0,0/1" not in state.legal_actions()  # 1-4 would cross own 0-3
    assert "draw r3 0,0/1 x" in state.legal_actions()  # the cross-root power-up allows it


def test_a_y_splits_the_region_into_its_arcs() -> None:
    y_024 = 0b010101
    assert CROSSES[y_024][0b001010]  # 1-3 crosses the Y through 0, 2, 4
    assert CROSSES[y_024][0b100010]  # 1-5 too: every arc of this Y holds one side
    assert not CROSSES[0b000111][0b101000]  # 3-5 stays in the arc 3, 4, 5 of the Y 0, 1, 2
    assert not CROSSES[0b000111][0b111000]  # and so does the Y 3, 4, 5
    assert CROSSES[0b001001][0b100100]  # 2-5 crosses 0-3
    state = ready([1, 2], tips0=("0,0/3",))
    add_stroke(state, 1, "0,0/0", 1, 2)  # the opponent's Y 0 -> 1, 2
    assert legal_at(state, "draw r") == ["draw r1 0,0/3", "draw r2 0,0/3"]  # 3-4 and 3-5 fit
    state = ready([1, 2], [3], tips0=("0,0/1",))
    add_stroke(state, 1, "0,0/0", 2, 4)  # the Y 0 -> 2, 4
    # 1-3 and the Y 1 -> 3, 5 cross the Y once (a Y is one stroke); r1 would use side 2
    assert legal_at(state, "draw") == ["draw r2 0,0/1 x", "draw s3 0,0/1 x"]


def test_a_stroke_never_crosses_itself_and_strokes_in_other_regions_never_cross() -> None:
    state = ready([3], [6], tips0=("0,0/0", "0,1/1"))
    add_stroke(state, 1, "1,0/0", 3)  # a chord next door changes nothing in 0,0
    assert "draw s6 0,0/0" in state.legal_actions()


# ---- setup --------------------------------------------------------------------------------


def test_seat_0_has_54_plants_then_seat_1_has_45() -> None:
    state = new()
    assert state.current() == 0 and len(state.legal_actions()) == 54
    play(state, "plant 0")
    assert state.current() == 1 and len(state.legal_actions()) == 45
    assert tips(state) == {"0,-4/0", "0,-4/1", "1,-4/0", "1,-4/1", "2,-4/0"}
    assert "plant 50" not in state.legal_actions() and "plant 49" in state.legal_actions()
    assert "plant 4" not in state.legal_actions() and "plant 5" in state.legal_actions()
    play(state, "plant 27")
    assert state.current() == CHANCE and state.round == 1
    assert tips(state, 1) == {"0,4/3", "0,4/4", "-1,4/3", "-1,4/4", "-2,4/3"}


def test_plants_wrap_around_the_surface_and_their_segments_are_used() -> None:
    state = play(new(), "plant 52")  # segments 52, 53, 0, 1, 2
    assert tips(state) == {"-1,-3/0", "0,-4/5", "0,-4/0", "0,-4/1", "1,-4/0"}
    assert len(state.legal_actions()) == 45 and "plant 48" not in state.legal_actions()
    top = region(state, "0,-4")
    assert state.used[top] == 0b100011
    assert perft(new(), 2) == [54, 54 * 45]
