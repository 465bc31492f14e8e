"""Roots: every rule of rules/roots.md on a concrete position or action sequence, and
seeded random games that end after round 12 and verify from their records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.games import CHANCE, TERMINAL, GameError, IllegalAction, get_game
from arena.games.roots import CROSSES, RootsState, special_offsets
from arena.games.roots_map import build_map, hex_disc, load_map, map_to_json
from arena.record import read_records, write_records
from arena.render.roots import text_roots
from arena.replay import verify
from tests.test_selfplay import random_game_record


def new(radius: int = 4) -> RootsState:
    state = get_game("roots").new_state(2, {"radius": str(radius)})
    assert isinstance(state, RootsState)
    return state


def region(state: RootsState, name: str) -> int:
    return state.planet.index[name]


def ready(regular: list[int], special: list[int] = (), tips0: tuple[str, ...] = ("0,0/0",),
          tips1: tuple[str, ...] = ("-3,3/3",)) -> RootsState:
    """A round-1 position with seat 0 to move: the given tips (their sides used) and pools."""
    state = new()
    state.planted, state.round, state.mover = 2, 1, 0
    for seat, tips in enumerate((tips0, tips1)):
        for text in tips:
            name, side = text.split("/")
            tip = (region(state, name), int(side))
            state.tips[seat].add(tip)
            state.used[tip[0]] |= 1 << tip[1]
            neighbour = state.planet.neighbours[tip[0]][tip[1]]
            if neighbour >= 0:
                state.used[neighbour] |= 1 << (tip[1] + 3) % 6
    state.regular, state.special = sorted(regular), sorted(special)
    state._legal = None
    return state


def play(state: RootsState, *actions: str) -> RootsState:
    for action in actions:
        state.apply(action)
    return state


def legal_at(state: RootsState, prefix: str) -> list[str]:
    return [a for a in state.legal_actions() if a.startswith(prefix)]


# ---- the map ------------------------------------------------------------------------------


def test_radius_4_has_61_regions_54_surface_segments_and_shared_sides() -> None:
    planet = hex_disc(4)
    assert planet.size == 61 and len(planet.surface) == 54
    assert hex_disc(3).size == 37 and len(hex_disc(3).surface) == 42
    for i, row in enumerate(planet.neighbours):
        for k, j in enumerate(row):
            if j >= 0:
                assert planet.neighbours[j][(k + 3) % 6] == i  # every inner side shared by two


def test_sides_are_numbered_clockwise_from_north_and_segment_0_tops_the_planet() -> None:
    planet = hex_disc(4)
    centre = planet.index["0,0"]
    names = [planet.names[planet.neighbours[centre][k]] for k in range(6)]
    assert names == ["0,-1", "1,-1", "1,0", "0,1", "-1,1", "-1,0"]
    assert planet.surface[0] == (planet.index["0,-4"], 0)
    # clockwise: the next segments run east along the top-right rim
    assert planet.surface[1] == (planet.index["0,-4"], 1)
    assert planet.surface[2] == (planet.index["1,-4"], 0)


def test_a_map_file_loads_and_a_broken_one_names_the_problem(tmp_path: Path) -> None:
    good = tmp_path / "disc.json"
    good.write_text(map_to_json(hex_disc(2)))
    state = get_game("roots").new_state(2, {"map": str(good)})
    assert isinstance(state, RootsState) and state.planet.size == 19
    assert len(state.legal_actions()) == 30
    data = json.loads(good.read_text())
    data["sides"]["0,0"][0] = "2,-2"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(GameError, match="shared side"):
        load_map(str(bad))
    with pytest.raises(GameError, match="cannot read"):
        get_game("roots").new_state(2, {"map": str(tmp_path / "none.json")})
    with pytest.raises(GameError, match="radius"):
        get_game("roots").new_state(2, {"radius": "9"})


# ---- dice and strokes ---------------------------------------------------------------------


def test_exits_of_every_die_kind_from_tip_0_0_side_0() -> None:
    state = ready([1, 2, 3, 4, 5], [3, 6])
    actions = set(state.legal_actions())
    for value in range(1, 6):
        assert f"draw r{value} 0,0/0" in actions
    assert special_offsets(3) == (2, 4) and special_offsets(6) == (2, 3, 4)
    assert special_offsets(1) == (1, 3) and special_offsets(5) == (3, 5)
    play(state, "draw r3 0,0/0")
    assert (region(state, "0,1"), 0) in state.tips[0]  # exit by side 3 (S)
    state = play(ready([1, 1], [3]), "draw s3 0,0/0")
    assert {state.tip_name(t) for t in state.tips[0]} == {"1,0/5", "-1,1/1"}  # sides 2 and 4
    state = play(ready([1, 1], [6]), "draw s6 0,0/0")
    assert {state.tip_name(t) for t in state.tips[0]} == {"1,0/5", "0,1/0", "-1,1/1"}  # 2, 3, 4


def test_a_merge_draws_both_dice_in_one_stroke_and_equal_dice_one_exit() -> None:
    state = play(ready([1, 2, 4]), "keep r2", "end", "leave")  # seat 1 leaves; seat 0 again
    assert state.mover == 0 and "merge r4 0,0/0" in state.legal_actions()
    play(state, "merge r4 0,0/0")
    assert {state.tip_name(t) for t in state.tips[0]} == {"1,0/5", "-1,1/1"}  # offsets 2 and 4
    assert state.kept[0] is None and state.regular == [1]
    twin = ready([2, 2, 5])
    twin.kept[0] = 2
    twin.regular = [2, 5]
    play(twin, "merge r2 0,0/0")
    assert {twin.tip_name(t) for t in twin.tips[0]} == {"1,0/5"}


def test_a_die_with_an_exit_on_the_surface_cannot_be_drawn() -> None:
    # 0,-4 is the top region: its sides 0 (N), 1 (NE) and 5 (NW) are surface segments.
    # From side 4, r1 exits by 5 and r3 by 1 (surface); r5 exits by 3 (S), inside.
    state = ready([1, 3, 5], tips0=("0,-4/4",))
    assert legal_at(state, "draw") == ["draw r5 0,-4/4"]


def test_chord_crossing_rules_in_one_region() -> None:
    chord_03 = 0b001001
    assert CROSSES[chord_03][0b010010]  # 1-4 crosses 0-3
    assert not CROSSES[chord_03][0b000110]  # 1-2 does not
    assert not CROSSES[chord_03][0b110000]  # 4-5 does not
    assert CROSSES[0b010101][0b001010]  # 1-3 splits the Y through sides 0, 2, 4
    assert not CROSSES[0b000111][0b101000]  # 3-5 stays clear of the Y through 0, 1, 2
    state = play(ready([3, 3], tips0=("0,0/0", "0,0/1")), "draw r3 0,0/0", "end", "leave")
    assert "draw r3 0,0/1" not in state.legal_actions()  # 1-4 would cross 0-3
    assert "draw r3 0,0/1 x" in state.legal_actions()  # the cross-root power-up allows it


def test_sides_are_used_once_by_either_player() -> None:
    state = ready([3, 3], tips0=("0,0/0",), tips1=("0,1/4",))
    play(state, "draw r3 0,0/0", "end")  # uses side 3 of 0,0 = side 0 of 0,1
    assert (region(state, "0,1"), 0) in state.tips[0]
    assert state.mover == 1
    assert "draw r3 0,1/4" in state.legal_actions()  # 4 -> 1 is free
    assert not any(a.startswith("draw r2 0,1/4") for a in state.legal_actions())  # 4 -> 0 is used


# ---- the kept die -------------------------------------------------------------------------


def test_keep_needs_a_regular_die_left_and_no_kept_die() -> None:
    assert legal_at(ready([4]), "keep") == []
    assert legal_at(ready([4, 5]), "keep") == ["keep r4", "keep r5"]
    state = ready([4, 5])
    state.kept[0] = 2
    state._legal = None
    assert legal_at(state, "keep") == []


def test_holding_a_kept_die_the_last_regular_die_is_only_merged() -> None:
    state = ready([1], [2])
    state.kept[0] = 2
    state._legal = None
    assert legal_at(state, "draw r") == []
    assert legal_at(state, "merge") == ["merge r1 0,0/0"]
    assert "leave" not in state.legal_actions()  # a legal merge exists
    assert "draw s2 0,0/0" in state.legal_actions()  # special dice stay free to take


def test_leaving_with_a_kept_die_returns_it_and_is_allowed_only_without_a_merge() -> None:
    state = ready([3], tips0=("0,-4/4",))  # from 0,-4/4 a merge {3, 2} would exit by 0: surface
    state.kept[0] = 2
    state._legal = None
    assert legal_at(state, "merge") == [] and "leave" in state.legal_actions()
    play(state, "leave")
    assert state.kept[0] is None and state.regular == [2, 3] and state.left[0]
    assert state.mover == 1


# ---- power-ups ----------------------------------------------------------------------------


def test_reroll_sends_sixes_to_the_special_pool_then_the_main_action_follows() -> None:
    state = ready([1, 2, 2], [5])
    play(state, "reroll r1,r2")
    assert state.current() == CHANCE and state.regular == [2] and state.special == [5]
    with pytest.raises(IllegalAction):
        state.apply("roll 1,2,3/")  # three dice for two rerolled
    play(state, "roll 4/3")
    assert state.regular == [2, 4] and state.special == [3, 5]
    assert not state.powers[0].reroll and not state.acted
    assert not legal_at(state, "reroll")


def test_fast_growth_draws_two_dice_in_two_regions_and_leaves_them_in_the_pool() -> None:
    state = ready([1, 3, 3, 5], tips0=("0,0/0", "-2,2/0", "2,-2/0"))
    play(state, "keep r5")
    fast = legal_at(state, "fast")
    assert "fast r3 -2,2/0 r3 2,-2/0" in fast  # equal values: the pool holds two 3s
    play(state, "fast r3 -2,2/0 r3 2,-2/0")
    assert state.regular == [1, 3, 3]  # the dice stay
    assert not state.powers[0].fast and state.mover == 1
    assert (region(state, "-2,3"), 0) in state.tips[0] and (region(state, "2,-1"), 0) in state.tips[0]


def test_fast_growth_needs_two_regions_and_two_dice() -> None:
    state = ready([3, 5], tips0=("0,0/0", "0,0/1"))
    play(state, "keep r5")
    assert legal_at(state, "fast") == []  # one region only
    state = ready([3, 4], tips0=("0,0/0", "2,-2/0"))
    play(state, "keep r4")
    assert legal_at(state, "fast") == []  # a single 3 cannot be drawn twice


def test_end_closes_the_turn_and_is_offered_only_while_a_power_up_is_legal() -> None:
    state = ready([2, 3, 4])
    play(state, "draw r3 0,0/0")
    assert "end" in state.legal_actions() and state.mover == 0
    play(state, "end")
    assert state.mover == 1
    spent = ready([2, 3, 4])
    spent.powers[0].reroll = spent.powers[0].fast = False
    play(spent, "draw r3 0,0/0")
    assert spent.mover == 1  # nothing left to use: the turn closed by itself


def test_cross_root_is_listed_only_for_exactly_one_crossing_and_spends_the_power() -> None:
    state = ready([3, 3, 3], tips0=("0,0/0", "0,0/1", "0,0/2"))
    play(state, "draw r3 0,0/0", "end", "leave")
    assert "draw r3 0,0/2" not in state.legal_actions()
    play(state, "draw r3 0,0/2 x")  # 2-5 crosses 0-3 only
    assert not state.powers[0].cross
    play(state, "end")
    assert state.mover == 0 and legal_at(state, "draw r3 0,0/1") == []
    state.powers[0].cross = True  # even with the power-up back: 1-4 would cross two strokes
    state._legal = None
    assert legal_at(state, "draw r3 0,0/1") == []


def test_leave_ends_the_turn_without_power_ups_and_the_round_goes_on_for_the_other() -> None:
    state = ready([1, 2, 3])
    play(state, "leave")
    assert state.left[0] and state.mover == 1
    play(state, "draw r3 -3,3/3", "end")
    assert state.mover == 1  # seat 0 has left: seat 1 plays on
    play(state, "leave")
    assert state.round == 2 and state.current() == CHANCE  # both left: the round ends


# ---- rounds and the end -------------------------------------------------------------------


def test_planting_takes_five_segments_and_the_second_tree_avoids_them() -> None:
    state = new()
    assert len(state.legal_actions()) == 54
    play(state, "plant 0")
    assert len(state.legal_actions()) == 45
    assert len(state.tips[0]) == 5
    assert "plant 50" not in state.legal_actions() and "plant 5" in state.legal_actions()
    play(state, "plant 27")
    assert state.current() == CHANCE and state.round == 1


def test_rounds_alternate_their_first_seat_and_the_game_ends_after_12() -> None:
    state = play(new(), "plant 0", "plant 27", "roll 1,2,3,3,5/6")
    assert state.mover == 0
    play(state, "leave", "leave")
    assert state.round == 2 and state.current() == CHANCE
    play(state, "roll 1,1,1,1,1,1/")
    assert state.mover == 1
    for _ in range(10):
        play(state, "leave", "leave", "roll 1,1,1,1,1,1/")
    assert state.round == 12
    play(state, "leave", "leave")
    assert state.current() == TERMINAL


def three_in_a_row() -> RootsState:
    """A planet of three regions A = 0,0, B = 1,0, C = 2,0 joined SE-NW (sides 2 and
    5); every other side is surface. Seat 0 waits at A's side 0, seat 1 at C's side 0."""
    planet = build_map({"0,0": [None, None, "1,0", None, None, None],
                        "1,0": [None, None, "2,0", None, None, "0,0"],
                        "2,0": [None, None, None, None, None, "1,0"]})
    state = RootsState(2, {}, planet)
    state.planted, state.round = 2, 1
    for seat, name in enumerate(("0,0", "2,0")):
        state.tips[seat].add((planet.index[name], 0))
        state.used[planet.index[name]] |= 1
    state.regular = [2, 3, 3]
    return state


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


def test_a_seat_without_tips_reaches_nothing_but_still_takes_turns() -> None:
    state = three_in_a_row()
    state.tips[1].clear()
    assert state.reach(1) == set()
    state.mover, state._legal = 1, None
    assert state.legal_actions() == ["keep r2", "keep r3", "leave", "reroll r2", "reroll r2,r3", "reroll r2,r3,r3",
                                     "reroll r3", "reroll r3,r3"]


# ---- views and self-play ------------------------------------------------------------------


def test_board_view_shows_strokes_tips_pools_and_powers() -> None:
    state = play(ready([2, 3], [6]), "draw s6 0,0/0")
    text = text_roots(state)
    assert "0,0: A 0>2,3,4 Y" in text and "regular [2, 3]" in text and "tips" in text


def self_play(games: int, seed: int, radius: str) -> None:
    records = [random_game_record("roots", 2, seed * 100_000 + i, {"radius": radius}) for i in range(games)]
    text = write_records(records)
    again = read_records(text)
    assert write_records(again) == text
    for record in again:
        assert verify(record) == []
        assert "round 12" in record.tags.get("Termination", "") or record.tags.get("Termination") == "normal"


@pytest.mark.parametrize("radius", ["3", "4"])
def test_random_games_end_after_round_12_and_verify(radius: str) -> None:
    self_play(100, seed=1, radius=radius)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("radius", ["3", "4"])
def test_2000_random_games_per_radius(radius: str) -> None:
    self_play(2000, seed=2, radius=radius)


def test_random_games_reach_round_12() -> None:
    game = get_game("roots")
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_state(2, {"radius": "3"})
        assert isinstance(state, RootsState)
        while state.current() != TERMINAL:
            state.apply(state.sample_chance(rng) if state.current() == CHANCE else rng.choice(state.legal_actions()))
        assert state.round == 12
