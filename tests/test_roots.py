"""Roots: every rule of rules/roots.md on a concrete position or action sequence, a
plain reference of the rules checked against the engine in thousands of positions, and
seeded random games that end after round 12 and verify from their records."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import CHANCE, TERMINAL, GameError, IllegalAction, get_game
from arena.games.perft import perft
from arena.games.roots import RootsState
from arena.games.roots_map import build_map, hex_disc, load_map, map_to_json, side_angle
from arena.games.roots_pieces import CROSSES, special_offsets
from arena.records.reader import read_records
from arena.records.record import GameRecord
from arena.records.replay import state_at, verify
from arena.records.writer import write_records
from arena.render.roots import render_roots, text_roots
from tests.helpers.games import random_game_record

GAME = get_game("roots")


def new(radius: int = 4) -> RootsState:
    state = GAME.new_state(2, {"radius": str(radius)})
    assert isinstance(state, RootsState)
    return state


def region(state: RootsState, name: str) -> int:
    return state.planet.index[name]


def tip_of(state: RootsState, text: str) -> tuple[int, int]:
    name, side = text.split("/")
    return region(state, name), int(side)


def add_tip(state: RootsState, seat: int, text: str) -> None:
    """An open tip of `seat`, its side used in both regions it borders."""
    tip = tip_of(state, text)
    state.tips[seat].add(tip)
    state.used[tip[0]] |= 1 << tip[1]
    neighbour = state.planet.neighbours[tip[0]][tip[1]]
    if neighbour >= 0:
        state.used[neighbour] |= 1 << (tip[1] + 3) % 6
    state._legal = None


def add_stroke(state: RootsState, seat: int, text: str, *offsets: int) -> None:
    """A stroke of `seat` already on the board: a tip there, drawn with these offsets."""
    add_tip(state, seat, text)
    state._draw(seat, tip_of(state, text), offsets)
    state._legal = None


def ready(regular: Sequence[int], special: Sequence[int] = (), tips0: Sequence[str] = ("0,0/0",),
          tips1: Sequence[str] = ("-3,3/3",)) -> RootsState:
    """A round-1 position on the radius-4 planet, seat 0 to move: tips and pools given."""
    state = new()
    state.planted, state.round, state.mover = 2, 1, 0
    for seat, tips in enumerate((tips0, tips1)):
        for text in tips:
            add_tip(state, seat, text)
    state.regular, state.special = sorted(regular), sorted(special)
    state._legal = None
    return state


def play(state: RootsState, *actions: str) -> RootsState:
    for action in actions:
        state.apply(action)
    return state


def legal_at(state: RootsState, prefix: str) -> list[str]:
    return [a for a in state.legal_actions() if a.startswith(prefix)]


def tips(state: RootsState, seat: int = 0) -> set[str]:
    return {state.tip_name(t) for t in state.tips[seat]}


# ---- the map ------------------------------------------------------------------------------


def test_radius_4_has_61_regions_54_surface_segments_and_shared_sides() -> None:
    planet = hex_disc(4)
    assert planet.size == 61 and len(planet.surface) == 54
    assert hex_disc(3).size == 37 and len(hex_disc(3).surface) == 42 == 6 * (2 * 3 + 1)
    shared = 0
    for i, row in enumerate(planet.neighbours):
        for k, j in enumerate(row):
            if j >= 0:
                assert planet.neighbours[j][(k + 3) % 6] == i  # side k here is side k+3 there
                shared += 1
    assert shared == 61 * 6 - 54  # every inner side counted once from each of its two regions


def test_sides_are_numbered_clockwise_from_north_with_the_rules_directions() -> None:
    planet = hex_disc(4)
    names = [planet.names[j] for j in planet.neighbours[planet.index["0,0"]]]
    assert names == ["0,-1", "1,-1", "1,0", "0,1", "-1,1", "-1,0"]  # (q, r) + D[k]
    top = planet.neighbours[planet.index["0,-4"]]
    assert [k for k in range(6) if top[k] < 0] == [0, 1, 5]  # N, NE and NW face the surface


def test_surface_segments_run_clockwise_from_the_top_regions_north_side() -> None:
    for radius in (3, 4):
        planet = hex_disc(radius)
        top = planet.index[f"0,{-radius}"]
        assert planet.surface[0] == (top, 0)
        assert planet.surface[1] == (top, 1) and planet.surface[-1] == (top, 5)
        angles = [side_angle(*planet.axial[r], k)[0] for r, k in planet.surface]
        assert angles == sorted(angles) and len(set(angles)) == len(angles)
        assert {planet.segment_of[rk] for rk in planet.surface} == set(range(6 * (2 * radius + 1)))
    planet = hex_disc(4)
    assert planet.surface[2] == (planet.index["1,-4"], 0)
    assert planet.surface[27] == (planet.index["0,4"], 3)  # straight down from segment 0


def test_the_radius_option_takes_3_or_4_and_defaults_to_4() -> None:
    assert GAME.new_state(2).planet.size == 61  # type: ignore[attr-defined]
    assert new(3).planet.size == 37
    for bad in ("5", "2", "four"):
        with pytest.raises(GameError, match="radius"):
            GAME.new_state(2, {"radius": bad})
    with pytest.raises(GameError, match="2 seats"):
        GAME.new_state(3)


def test_a_map_file_loads_and_plays(tmp_path: Path) -> None:
    good = tmp_path / "disc.json"
    good.write_text(map_to_json(hex_disc(2)))
    state = GAME.new_state(2, {"map": str(good)})
    assert isinstance(state, RootsState) and state.planet.size == 19
    assert len(state.legal_actions()) == 30  # 30 surface segments on a radius-2 disc
    unordered = tmp_path / "unordered.json"
    data = json.loads(good.read_text())
    del data["surface"]  # numbered clockwise from the top by default
    unordered.write_text(json.dumps(data))
    assert load_map(str(unordered)).surface == hex_disc(2).surface


def broken_map(tmp_path: Path, name: str, change: object) -> str:
    data = json.loads(map_to_json(hex_disc(2)))
    if callable(change):
        change(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data) if not isinstance(change, str) else change)
    return str(path)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("not-json", "{sides", "not JSON"),
    ("no-sides", lambda d: d.pop("sides"), "needs an object with \"sides\""),
    ("unknown-key", lambda d: d.update(extra=1), "unknown key 'extra'"),
    ("five-sides", lambda d: d["sides"]["0,0"].pop(), "region 0,0 has 5 entries; give a list of exactly 6"),
    ("one-way", lambda d: d["sides"]["0,0"].__setitem__(0, "2,-2"), "a shared side must name each region"),
    ("stranger", lambda d: d["sides"]["0,0"].__setitem__(0, "9,9"), "'9,9', which is not a region"),
    ("number", lambda d: d["sides"]["0,0"].__setitem__(0, 7), "write a neighbour as \"q,r\" or null"),
    ("bad-name", lambda d: d["sides"].update({"x": [None] * 6}), "region 'x' is not written q,r"),
    ("missing-surface", lambda d: d["surface"].pop(), "missing 0,-2/5"),
    ("inner-surface", lambda d: d["surface"].append(["0,0", 1]), "0,0/1 has a neighbour"),
    ("bad-surface", lambda d: d.update(surface=[["0,0", "N"]]), "list of \\[\"q,r\", side\\] pairs"),
])
def test_a_broken_map_file_is_refused_naming_the_problem(tmp_path: Path, name: str, change: object,
                                                         message: str) -> None:
    path = broken_map(tmp_path, name, change)
    with pytest.raises(GameError, match=message) as caught:
        GAME.new_state(2, {"map": path})
    assert path in str(caught.value)


def test_a_map_needs_room_for_two_trees_and_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(GameError, match="6 surface segments.*at least 10"):
        build_map({"0,0": [None] * 6})
    with pytest.raises(GameError, match="cannot read"):
        GAME.new_state(2, {"map": str(tmp_path / "none.json")})


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


# ---- scoring ------------------------------------------------------------------------------


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
    runner = CliRunner()
    result = runner.invoke(app, ["legal", "roots", "plant 0", "plant 27", "roll 1,2,3,3,5/6"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines == sorted(lines) and "draw r3 0,-4/0" in lines and "keep r5" in lines and "leave" in lines
    assert "draw r1 0,-4/0" not in lines  # r1 from the top's N side would leave by its NE side
    result = runner.invoke(app, ["perft", "roots", "2", "--option", "radius=3"])
    assert result.output.split() == ["1", "42", "2", str(42 * 33)]


# ---- a plain reference of the rules -------------------------------------------------------

SPECIAL_EXITS = {1: (1, 3), 2: (2, 3), 3: (2, 4), 4: (3, 4), 5: (3, 5), 6: (2, 3, 4)}


def sides_of(mask: int) -> set[int]:
    return {k for k in range(6) if mask >> k & 1}


def reference_used(state: RootsState) -> set[tuple[int, int]]:
    """(region, side) pairs used: every side of every stroke and every tip, both ways."""
    used = set()
    marks = [(r, k) for r, strokes in enumerate(state.strokes) for s in strokes for k in sides_of(s.mask)]
    marks += [tip for seat_tips in state.tips for tip in seat_tips]
    for r, k in marks:
        used.add((r, k))
        other = state.planet.neighbours[r][k]
        if other >= 0:
            used.add((other, (k + 3) % 6))
    return used


def reference_crosses(old: set[int], new_sides: set[int]) -> bool:
    """B crosses A unless all of B's sides lie in one arc between consecutive sides of A."""
    ordered = sorted(old)
    for i, a in enumerate(ordered):
        b = ordered[(i + 1) % len(ordered)]
        arc = {(a + step) % 6 for step in range(1, (b - a) % 6 or 6)}
        if new_sides <= arc:
            return False
    return True


def reference_stroke(state: RootsState, used: set[tuple[int, int]], tip: tuple[int, int],
                     offsets: Sequence[int]) -> int | None:
    """None when the side rules forbid it, else how many strokes it crosses."""
    r, entry = tip
    exits = [(entry + o) % 6 for o in offsets]
    if len(set(exits)) != len(exits):
        return None
    if any((r, e) in used or state.planet.neighbours[r][e] < 0 for e in exits):
        return None
    return sum(reference_crosses(sides_of(s.mask), {entry, *exits}) for s in state.strokes[r])


def reference_main(state: RootsState, used: set[tuple[int, int]], out: set[str]) -> None:
    seat = state.mover
    kept, regular, cross = state.kept[seat], state.regular, state.powers[seat].cross

    def strokes(prefix: str, offsets: Sequence[int]) -> bool:
        found = False
        for tip in state.tips[seat]:
            crossed = reference_stroke(state, used, tip, offsets)
            if crossed == 0 or (crossed == 1 and cross):
                out.add(f"{prefix} {state.tip_name(tip)}" + (" x" if crossed else ""))
                found = True
        return found

    for value in set(regular):
        if kept is None or len(regular) > 1:
            strokes(f"draw r{value}", [value])
        if kept is None and len(regular) > 1:
            out.add(f"keep r{value}")
    for value in set(state.special):
        strokes(f"draw s{value}", SPECIAL_EXITS[value])
    merge = kept is not None and any([strokes(f"merge r{v}", sorted({kept, v})) for v in set(regular)])
    if not merge:
        out.add("leave")


def reference_fast(state: RootsState, used: set[tuple[int, int]], out: set[str]) -> None:
    seat, regular = state.mover, state.regular
    halves = [(v, tip) for v in set(regular) for tip in state.tips[seat]
              if reference_stroke(state, used, tip, [v]) == 0]
    for (a, first), (b, second) in combinations(halves, 2):
        if first[0] == second[0] or (a == b and regular.count(a) < 2):
            continue
        names = sorted([f"r{a} {state.tip_name(first)}", f"r{b} {state.tip_name(second)}"])
        exit_side = (first[1] + a) % 6
        after = used | {(first[0], exit_side),
                        (state.planet.neighbours[first[0]][exit_side], (exit_side + 3) % 6)}
        if reference_stroke(state, after, second, [b]) == 0:
            out.add("fast " + " ".join(names))


def reference_legal(state: RootsState) -> set[str]:
    """The legal actions straight from rules/roots.md, slowly."""
    if state.current() in (CHANCE, TERMINAL):
        return set()
    used = reference_used(state)
    out: set[str] = set()
    count = len(state.planet.surface)
    if state.planted < 2:
        for k in range(count):
            if not any(state.planet.surface[(k + i) % count] in used for i in range(5)):
                out.add(f"plant {k}")
        return out
    seat = state.mover
    if not state.acted:
        reference_main(state, used, out)
    if state.powers[seat].reroll:
        dice = [f"r{v}" for v in state.regular] + [f"s{v}" for v in state.special]
        for size in range(1, len(dice) + 1):
            out.update("reroll " + ",".join(sorted(chosen)) for chosen in combinations(dice, size))
    if state.acted:
        if state.powers[seat].fast:
            reference_fast(state, used, out)
        if out:
            out.add("end")
    return out


def reference_scores(state: RootsState) -> tuple[int, int]:
    used = reference_used(state)
    reach: list[set[int]] = []
    for seat in (0, 1):
        todo, seen, regions = list(state.tips[seat]), set(state.tips[seat]), set()
        while todo:
            r, entry = todo.pop()
            for offset in range(1, 6):
                if reference_stroke(state, used, (r, entry), [offset]) == 0:
                    regions.add(r)
                    side = (entry + offset) % 6
                    step = (state.planet.neighbours[r][side], (side + 3) % 6)
                    if step not in seen:
                        seen.add(step)
                        todo.append(step)
        reach.append(regions)
    score = [0, 0]
    for r in range(state.planet.size):
        owners = {s.owner for s in state.strokes[r]}
        if len(owners) == 1:
            score[owners.pop()] += 1
        elif not owners and (r in reach[0]) != (r in reach[1]):
            score[0 if r in reach[0] else 1] += 1
    return score[0], score[1]


def varied_action(state: RootsState, rng: random.Random) -> str:
    """A random action, its kind (draw, keep, fast...) first, so rare kinds come up."""
    legal = state.legal_actions()
    kinds: dict[str, list[str]] = {}
    for action in legal:
        kinds.setdefault(action.split()[0] + (" x" if action.endswith(" x") else ""), []).append(action)
    if "leave" in kinds and len(kinds) > 1 and rng.random() < 0.8:
        del kinds["leave"]  # stay longer in the round: fuller boards
    return rng.choice(kinds[rng.choice(sorted(kinds))])


@pytest.mark.parametrize("radius", [3, 4])
def test_the_engine_agrees_with_a_plain_reference_of_the_rules(radius: int) -> None:
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = new(radius)
        while state.current() != TERMINAL:
            if state.current() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            assert set(state.legal_actions()) == reference_legal(state)
            used = reference_used(state)
            assert state.used == [sum(1 << k for k in range(6) if (r, k) in used) for r in range(state.planet.size)]
            if checked % 7 == 0:
                assert state.scores() == reference_scores(state)
            checked += 1
            state.apply(varied_action(state, rng))
        assert state.round == 12 and state.result().scores == tuple(map(float, reference_scores(state)))
    assert checked > 2000


# ---- self-play ----------------------------------------------------------------------------


def self_play(games: int, seed: int, radius: str) -> None:
    records: list[GameRecord] = [random_game_record("roots", 2, seed * 100_000 + i, {"radius": radius})
                                 for i in range(games)]
    text = write_records(records)
    again = read_records(text)
    assert write_records(again) == text
    for record in again:
        assert record.tags.get("Termination") == "normal"
        assert verify(record) == []
        final = state_at(record, len(record.plies))
        assert isinstance(final, RootsState) and final.round == 12 and final.current() == TERMINAL


@pytest.mark.parametrize("radius", ["3", "4"])
def test_random_games_end_after_round_12_and_verify(radius: str) -> None:
    self_play(150, seed=1, radius=radius)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("radius", ["3", "4"])
def test_2000_random_games_per_radius_end_after_round_12_and_verify(radius: str) -> None:
    self_play(2000, seed=2, radius=radius)
