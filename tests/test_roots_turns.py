"""Roots: rounds and turns, the kept die and merges, and the power-ups (reroll, fast
growth, cross root, end) of rules/roots.md, each on a concrete position."""

from __future__ import annotations

import random

import pytest

from arena.games import CHANCE, TERMINAL, IllegalAction
from tests.helpers.roots import add_stroke, legal_at, new, play, ready, tips

# ---- rounds -------------------------------------------------------------------------------


class Scripted(random.Random):
    """A generator whose dice come from a list, to pin how a roll is made."""

    def __init__(self, values: list[int]) -> None:
        super().__init__(0)
        self.values = values

    def randint(self, a: int, b: int) -> int:
        return self.values.pop(0)


def test_a_round_rolls_six_dice_and_every_6_is_rolled_again_into_the_special_pool() -> None:
    state = play(new(), "plant 0", "plant 27")
    assert state.sample_chance(Scripted([6, 4, 1, 2, 6, 6, 3, 5])) == "roll 1,2,3,5/4,6"
    for wrong in ("roll 1,2,3,3,5/", "roll 1,2,3,3,5,6/", "roll 5,3,3,2,1/6", "roll 1,2,3,3,5/7", "roll 1,2,3,3,5,0/",
                  "draw r1 0,-4/1"):
        with pytest.raises(IllegalAction):
            state.apply(wrong)
    play(state, "roll 1,2,3,3,5/6")
    assert state.regular == [1, 2, 3, 3, 5] and state.special == [6] and state.current() == 0


def test_rounds_alternate_their_first_seat_and_the_game_ends_after_12() -> None:
    state = play(new(), "plant 0", "plant 27", "roll 1,2,3,3,5/6")
    assert state.mover == 0
    play(state, "leave", "leave")
    assert state.round == 2 and state.current() == CHANCE
    play(state, "roll 1,1,1,1,1,1/")
    assert state.mover == 1
    for round_ in range(3, 13):
        play(state, "leave", "leave", "roll 1,1,1,1,1,1/")
        assert state.round == round_ and state.mover == (round_ - 1) % 2
    play(state, "leave", "leave")
    assert state.current() == TERMINAL and state.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        state.apply("leave")


def test_turns_alternate_and_skip_a_seat_that_has_left() -> None:
    state = ready([1, 2, 3, 4], tips1=("-3,3/3", "-2,3/3"))
    state.powers = [type(state.powers[0])(False, False, False) for _ in range(2)]  # no power-ups: no `end`
    play(state, "draw r3 0,0/0")
    assert state.mover == 1
    play(state, "keep r1")
    assert state.mover == 0
    play(state, "leave")
    assert state.left == [True, False] and state.mover == 1
    play(state, "merge r4 -3,3/3")
    assert state.mover == 1  # seat 0 has left: seat 1 plays on
    play(state, "draw r2 -2,3/3")
    assert state.round == 2  # both pools empty and no kept die: the round is over


def test_both_seats_leaving_ends_the_round_and_leftover_dice_are_discarded() -> None:
    state = ready([1, 2, 3, 4], [5])
    play(state, "leave", "leave")
    assert state.round == 2 and state.current() == CHANCE and state.regular == [] and state.special == []
    play(state, "roll 2,2,2,2,2,2/")
    assert state.regular == [2] * 6 and state.left == [False, False]


def test_the_round_goes_on_while_a_kept_die_is_held_and_it_is_never_lost() -> None:
    state = ready([2, 5], tips0=("0,-4/4",), tips1=("-3,3/3",))
    state.powers[0].fast = state.powers[0].reroll = False
    play(state, "keep r2")  # seat 0 keeps 2; merges {2, 5} from 0,-4/4 leave by the surface
    play(state, "draw r5 -3,3/3")  # seat 1 takes the last regular die
    assert state.regular == [] and state.special == [] and state.kept[0] == 2
    assert state.round == 1 and state.mover == 0  # pools empty, but a kept die is held
    assert state.legal_actions() == ["leave"]  # nothing to merge with
    play(state, "leave")
    assert state.regular == [2] and state.mover == 1  # the die goes back to the pool
    play(state, "end") if "end" in state.legal_actions() else None
    assert state.round == 1


# ---- the kept die -------------------------------------------------------------------------


def test_keep_needs_a_regular_die_left_and_no_kept_die() -> None:
    assert legal_at(ready([4], [6]), "keep") == []
    assert legal_at(ready([4, 5], [6]), "keep") == ["keep r4", "keep r5"]  # never a special die
    state = ready([4, 5])
    state.kept[0] = 2
    assert legal_at(state, "keep") == []


def test_holding_a_kept_die_the_last_regular_die_is_only_merged() -> None:
    state = ready([1], [2])
    state.kept[0] = 2
    assert legal_at(state, "draw r") == [] and legal_at(state, "keep") == []
    assert legal_at(state, "merge") == ["merge r1 0,0/0"]
    assert "leave" not in state.legal_actions()  # a legal merge exists
    assert "draw s2 0,0/0" in state.legal_actions()  # special dice stay free to take
    two = ready([1, 3], [2])
    two.kept[0] = 2
    assert legal_at(two, "draw r") == ["draw r1 0,0/0", "draw r3 0,0/0"]  # one would stay


def test_leaving_with_a_kept_die_returns_it_and_is_allowed_only_without_a_merge() -> None:
    state = ready([3], tips0=("0,-4/4",))  # from 0,-4/4 a merge {3, 2} would exit by 1: surface
    state.kept[0] = 2
    assert legal_at(state, "merge") == [] and "leave" in state.legal_actions()
    play(state, "leave")
    assert state.kept[0] is None and state.regular == [2, 3] and state.left[0]
    assert state.mover == 1


def test_a_merge_legal_only_with_cross_root_forbids_leaving_until_the_power_is_spent() -> None:
    state = ready([3, 4], tips0=("0,0/1",))
    add_stroke(state, 1, "0,0/0", 3)  # merges {3} and {3, 4} from side 1 exit by 4 (and 5): across 0-3
    state.kept[0] = 3
    assert legal_at(state, "merge") == ["merge r3 0,0/1 x", "merge r4 0,0/1 x"]
    assert "leave" not in state.legal_actions()
    state.powers[0].cross = False
    state._legal = None
    assert legal_at(state, "merge") == [] and "leave" in state.legal_actions()


def test_both_seats_may_hold_a_kept_die_and_merge_is_regular_only() -> None:
    state = ready([1, 2, 3, 4], [2], tips1=("-3,3/3",))
    state.powers = [type(state.powers[0])(False, False, False) for _ in range(2)]
    play(state, "keep r1", "keep r2")
    assert state.kept == [1, 2] and state.regular == [3, 4]
    assert legal_at(state, "merge") == ["merge r3 0,0/0", "merge r4 0,0/0"]  # never with s2
    assert legal_at(state, "reroll") == []  # spent here; a kept die is never rerolled anyway


# ---- power-ups ----------------------------------------------------------------------------


def test_reroll_before_the_main_action_sends_sixes_to_the_special_pool() -> None:
    state = ready([1, 2, 2], [5])
    state.kept[0] = 4
    assert "reroll r1,r2,r2,s5" in state.legal_actions() and legal_at(state, "reroll r4") == []
    assert len(legal_at(state, "reroll")) == 2 * 3 * 2 - 1  # every non-empty set of pool dice
    play(state, "reroll r1,r2")
    assert state.current() == CHANCE and state.regular == [2] and state.special == [5]
    assert state.sample_chance(Scripted([6, 3, 4])) == "roll 4/3"
    with pytest.raises(IllegalAction):
        state.apply("roll 1,2,3/")  # three dice for two rerolled
    play(state, "roll 4/3")  # one die came up 4, the other 6 and then 3
    assert state.regular == [2, 4] and state.special == [3, 5]
    assert not state.powers[0].reroll and not state.acted and state.mover == 0
    assert legal_at(state, "reroll") == [] and "end" not in state.legal_actions()


def test_reroll_after_the_main_action_and_then_the_turn_goes_on_or_closes() -> None:
    state = ready([1, 3, 5], [6], tips0=("0,0/0", "2,-2/0"))
    play(state, "draw r3 0,0/0")
    assert "reroll r1,r5,s6" in state.legal_actions() and "end" in state.legal_actions()
    play(state, "reroll s6", "roll 2/")
    assert state.regular == [1, 2, 5] and state.special == [] and state.mover == 0
    assert "end" in state.legal_actions()  # fast growth is still there
    spent = ready([1, 3, 5], [6])
    spent.powers[0].fast = False
    play(spent, "draw r3 0,0/0", "reroll r1", "roll /6")
    assert spent.mover == 1 and spent.special == [6, 6]  # nothing left: the turn closed


def test_fast_growth_draws_two_dice_in_two_regions_and_leaves_them_in_the_pool() -> None:
    state = ready([1, 3, 3, 5], tips0=("0,0/0", "-2,2/0", "2,-2/0"))
    play(state, "keep r5")
    fast = legal_at(state, "fast")
    assert "fast r3 -2,2/0 r3 2,-2/0" in fast  # equal values: the pool holds two 3s
    assert "fast r1 -2,2/0 r3 0,0/0" in fast  # halves in ascending string order
    play(state, "fast r3 -2,2/0 r3 2,-2/0")
    assert state.regular == [1, 3, 3]  # the dice stay
    assert not state.powers[0].fast and state.mover == 1  # and the turn is over
    assert {"-2,3/0", "2,-1/0"} <= tips(state)


def test_fast_growth_needs_two_regions_two_dice_and_comes_after_the_main_action() -> None:
    state = ready([3, 5, 5], tips0=("0,0/0", "2,-2/0"))
    assert legal_at(state, "fast") == []  # not before the main action
    state = ready([3, 5], tips0=("0,0/0", "0,0/1"))
    play(state, "keep r5")
    assert legal_at(state, "fast") == []  # one region only
    state = ready([3, 4], tips0=("0,0/0", "2,-2/0"))
    play(state, "keep r4")
    assert legal_at(state, "fast") == []  # a single 3 cannot be drawn twice


def test_fast_growth_uses_tips_open_before_it_and_checks_the_second_stroke_after_the_first() -> None:
    state = ready([1, 3, 3, 4], tips0=("0,0/0", "-2,2/0"))
    play(state, "draw r4 -2,2/0")  # new tip -3,3/1; the tips before fast growth: 0,0/0 and -3,3/1
    assert all("-3,3/1" in a or "0,0/0" in a for a in legal_at(state, "fast"))
    play(state, "end", "leave")
    assert "fast" not in " ".join(state.legal_actions())  # nothing before a main action
    # two tips across one side: 0,0 by its side 2 and 1,0 by its side 5 would both use it
    clash = ready([2, 3, 5, 5], tips0=("0,0/0", "1,0/0"))
    play(clash, "keep r3")
    fast = legal_at(clash, "fast")
    assert "fast r2 0,0/0 r5 1,0/0" not in fast  # 0 -> 2 and 0 -> 5 meet on one segment
    assert "fast r2 0,0/0 r2 1,0/0" not in fast and "fast r5 0,0/0 r5 1,0/0" in fast


def test_fast_growth_has_no_cross_root() -> None:
    state = ready([1, 3, 3], tips0=("0,0/1", "2,-2/0"))
    add_stroke(state, 1, "0,0/0", 3)
    play(state, "keep r1")
    assert [a for a in legal_at(state, "fast") if "0,0/1" in a] == []  # 1-4 would cross 0-3
    assert state.powers[0].cross


def test_cross_root_is_listed_only_for_exactly_one_crossing_and_spends_the_power() -> None:
    state = ready([3, 3, 3], tips0=("0,0/0", "0,0/1", "0,0/2"))
    play(state, "draw r3 0,0/0", "end", "leave")
    assert "draw r3 0,0/2" not in state.legal_actions()
    play(state, "draw r3 0,0/2 x")  # 2-5 crosses 0-3 only
    assert not state.powers[0].cross and "x" not in " ".join(state.legal_actions())
    play(state, "end")
    assert state.mover == 0 and legal_at(state, "draw r3 0,0/1") == []
    state.powers[0].cross = True  # even with the power-up back: 1-4 would cross two strokes
    state._legal = None
    assert legal_at(state, "draw r3 0,0/1") == []
    with pytest.raises(IllegalAction, match="exactly one"):
        state.apply("draw r3 0,0/1 x")


def test_cross_root_counts_a_y_as_one_stroke_and_works_on_a_merge() -> None:
    state = ready([4, 4], tips0=("0,0/1",))
    add_stroke(state, 1, "0,0/0", 2, 4)  # the Y 0 -> 2, 4
    state.kept[0] = 4
    assert legal_at(state, "merge") == ["merge r4 0,0/1 x"]  # 1-5 runs between two of its arms
    play(state, "merge r4 0,0/1 x")  # 1 -> 5 crosses the Y once
    assert tips(state) == {"-1,0/2"} and not state.powers[0].cross


def test_end_closes_the_turn_and_is_offered_only_while_a_power_up_is_legal() -> None:
    state = ready([2, 3, 4])
    assert "end" not in state.legal_actions()  # never before the main action
    play(state, "draw r3 0,0/0")
    assert "end" in state.legal_actions() and state.mover == 0
    play(state, "end")
    assert state.mover == 1
    spent = ready([2, 3, 4])
    spent.powers[0].reroll = spent.powers[0].fast = False
    play(spent, "draw r3 0,0/0")
    assert spent.mover == 1  # nothing left to use: the turn closed by itself
    no_fast = ready([2, 3, 4])
    no_fast.powers[0].reroll = False
    play(no_fast, "draw r3 0,0/0")  # one tip left, one region: no fast growth possible
    assert no_fast.mover == 1


def test_leave_ends_the_turn_without_power_ups_and_the_round_goes_on_for_the_other() -> None:
    state = ready([1, 2, 3])
    play(state, "leave")
    assert state.left[0] and state.mover == 1 and state.powers[0].reroll
    play(state, "draw r3 -3,3/3", "end")
    assert state.mover == 1  # seat 0 has left: seat 1 plays on
    play(state, "leave")
    assert state.round == 2 and state.current() == CHANCE  # both left: the round ends


def test_reroll_then_leave_is_a_whole_turn() -> None:
    state = ready([1, 2, 3])
    play(state, "reroll r1", "roll 5/")
    play(state, "leave")
    assert state.mover == 1 and not state.powers[0].reroll
