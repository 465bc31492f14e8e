"""The Tree: the rules of rules/the-tree.md pinned with deals, positions and sequences:
the tiles and the deal, the start, the geometry and rule b, extra turns."""

from __future__ import annotations

import random

import pytest

from arena.games import CHANCE, TERMINAL, IllegalAction
from arena.games.perft import perft
from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import TILES, fits_above, tile_name
from tests.helpers.cli import run_cli
from tests.helpers.games import random_game_record
from tests.helpers.the_tree import BASE, GAME, PERFT_DEAL, dealt, placement, position, reference_legal

# ---- tiles, rings, deal -----------------------------------------------------------------


def test_the_set_has_36_tiles_and_rule_b_adds_exactly_one_ring() -> None:
    assert len(TILES) == 36 and len({tile_name(t) for t in TILES}) == 36
    above = {down: sorted(up for up in range(8) if fits_above(up, down)) for down in range(8)}
    assert above == {0: [1, 2, 4], 1: [3, 5], 2: [3, 6], 4: [5, 6], 3: [7], 5: [7], 6: [7], 7: []}


@pytest.mark.parametrize(("seats", "supply"), [(1, 27), (2, 18), (3, 9), (4, 0)])
def test_the_deal_gives_nine_tiles_each_in_seat_order_and_the_rest_is_the_supply(seats: int, supply: int) -> None:
    state = dealt(seats)
    names = PERFT_DEAL.split(",")
    for seat in range(seats):
        assert [tile_name(t) for t in state.hands[seat]] == names[9 * seat:9 * seat + 9]
    assert [tile_name(t) for t in state.supply] == names[9 * seats:]
    assert len(state.supply) == supply


@pytest.mark.parametrize("deal", ["00,01", PERFT_DEAL.replace("67", "66", 1), PERFT_DEAL + ",00", "x",
                                  PERFT_DEAL.replace("67", "76", 1), PERFT_DEAL.replace(",", ", ")])
def test_a_deal_must_be_a_permutation_of_the_set_in_canonical_names(deal: str) -> None:
    state = GAME.new_state(2)
    with pytest.raises(IllegalAction):
        state.apply(deal)
    assert state.current() == CHANCE


def test_any_permutation_is_a_deal_and_sampled_deals_are_seeded_permutations() -> None:
    state = GAME.new_state(3)
    first = state.sample_chance(random.Random(5))
    assert sorted(first.split(",")) == sorted(tile_name(t) for t in TILES)
    assert first == state.sample_chance(random.Random(5))
    assert first != state.sample_chance(random.Random(6))
    state.apply(first)
    assert state.current() in (0, 1, 2)


def test_with_four_seats_the_supply_is_empty_and_nobody_ever_draws() -> None:
    for seed in range(40):
        record = random_game_record("the-tree", 4, seed, {})
        assert "draw" not in [p.action for p in record.plies]


# ---- the start ----------------------------------------------------------------------------


def test_the_holder_of_the_lowest_double_starts_with_it_and_chooses_only_its_orientation() -> None:
    state = dealt(2)  # seat 0 holds 55, 66; seat 1 holds 77; 00..44 are in the supply
    assert state.current() == 0 and state.legal_actions() == ["55@0,0"]  # a double: one action
    four = dealt(4)  # 00 is the 22nd tile: seat 2
    assert four.current() == 2 and four.legal_actions() == ["00@0,0"]
    three = dealt(3)  # seat 2 holds 00 (and 33, 44); seat 0 holds 55 and 66
    assert three.current() == 2 and three.legal_actions() == ["00@0,0"]
    state.apply("55@0,0")
    assert state.current() == 1  # the start is the starter's turn; the next seat follows
    four.apply("00@0,0")
    assert four.current() == 3


def test_without_a_double_the_lowest_tile_starts_in_either_orientation() -> None:
    # Lowest by (low, high): 01 beats 02 and 12 ("blank-any" before "one-any").
    state = position([], [["13", "27", "02"], ["12", "56", "01"]])
    assert state.starter() == 1
    state.mover = 1
    assert state.legal_actions() == ["01@0,0", "10@0,0"]
    for bad in ("12@0,0", "01@0,1", "01@1,0"):
        with pytest.raises(IllegalAction):
            state.apply(bad)
    state.apply("10@0,0")
    assert state.cells == {(0, 0): 1, (1, 0): 0} and state.current() == 0


def test_a_dealt_game_without_doubles_in_hands_starts_with_the_lowest_tile() -> None:
    # Two seats; every double in the supply. Seat 1 holds 01.
    singles = [t for t in TILES if t[0] != t[1]]
    order = singles[1:10] + [singles[0]] + singles[10:18] + [t for t in TILES if t[0] == t[1]] + singles[18:]
    state = dealt(2, ",".join(tile_name(t) for t in order))
    assert state.current() == 1 and state.legal_actions() == ["01@0,0", "10@0,0"]


def test_perft_from_the_rules_deal() -> None:
    assert perft(dealt(2), 3) == [1, 6, 18]


def test_cli_legal_with_a_deal_and_with_a_seed() -> None:
    result = run_cli("legal", "the-tree", "--players", "2", "--deal", PERFT_DEAL, "55@0,0")
    assert result.exit_code == 0 and result.output.split() == [
        "47@-1,1", "57@-1,1", "74@1,1", "75@1,1", "77@-1,1", "77@1,1"]
    chance = run_cli("legal", "the-tree", "--players", "2", PERFT_DEAL, "55@0,0")
    assert chance.output == result.output
    seeded = run_cli("legal", "the-tree", "--players", "2", "--seed", "5")
    assert seeded.exit_code == 0 and len(seeded.output.split()) in (1, 2)
    bad = run_cli("legal", "the-tree", "--players", "2", "--deal", "00,11")
    assert bad.exit_code == 2 and "--deal" in bad.output


# ---- geometry and rule b --------------------------------------------------------------------


def test_rule_b_over_a_start_tile_00() -> None:
    state = position(["00@0,0"], [["01", "12", "03", "13"], ["44"]])
    legal = state.legal_actions()
    assert "01@-1,1" in legal  # 1 over 0 at x = 0; the 0 hangs over nothing
    assert "10@-1,1" not in legal  # 0 over 0
    assert all(not a.endswith("@0,1") for a in legal)  # aligned with the tile below: brick bond
    assert "30@1,1" not in legal  # 3 is two rings more than 0
    assert "13@-1,1" not in legal and "31@-1,1" in legal  # 3 may not sit on the 0; 1 may
    assert legal == reference_legal(state)
    with pytest.raises(IllegalAction):
        state.apply("12@0,1")


def test_tiles_need_support_from_the_row_below_and_never_overlap() -> None:
    state = position(["00@0,0", "01@-1,1"], [["12", "13", "15"], ["44"]])
    legal = state.legal_actions()
    assert all(int(a.split(",")[1]) >= 1 for a in legal)  # nothing beside or under the start
    assert not any(a.endswith("@-1,1") or a.endswith("@0,1") or a.endswith("@-2,1") for a in legal)  # taken
    assert not any(a.endswith("@3,1") or a.endswith("@-3,1") for a in legal)  # nothing below
    assert {"12@-2,2", "21@-2,2", "31@-2,2", "51@-2,2"} <= set(legal)  # 1 or 2 over the 0 at (-1,1)
    assert "31@0,2" in legal and "13@0,2" not in legal  # over the 1 at (0,1): 3 yes, 1 no
    assert not any(a.endswith("@-1,2") for a in legal)  # exactly over the tile 01: brick bond
    assert legal == reference_legal(state)


def test_a_half_over_empty_space_is_unconstrained_so_the_tree_grows_without_limit() -> None:
    # A 7 can carry nothing, but a tile may hang its other half beside it.
    state = position(["77@0,0"], [["00"], ["11"]])
    assert state.legal_actions() == ["draw"] or state.legal_actions() == ["pass"]
    state = position(["07@0,0"], [["01", "77"], ["11"]])
    assert state.legal_actions() == ["01@-1,1"] == reference_legal(state)  # nothing over the 7 or a 0 on 0
    # A chain of tiles each hanging a half over nothing climbs to row 5.
    tall = position(["00@0,0", "21@-1,1", "63@-2,2", "57@-3,3", "47@-4,4"], [["16", "45"], ["22"]])
    legal = tall.legal_actions()
    assert {"16@-5,5", "45@-5,5"} <= set(legal) and "61@-5,5" not in legal and "54@-5,5" not in legal
    assert legal == reference_legal(tall)


def test_a_tile_inserted_under_a_tile_obeys_rule_b_against_it_and_earns_an_extra_turn() -> None:
    # Start 11 at (0,0); 37 at (1,1) over it; 77 at (0,2) above (0,1)-(1,1). The gap
    # (-1,1)-(0,1) lies under the 7 at (0,2) and over the 1 at (0,0): its right half must
    # be 1 plus a ring (3 or 5) and be 7 minus a ring (3, 5 or 6): 3 or 5.
    state = position(["11@0,0", "37@1,1", "77@0,2"], [["13", "35", "16"], ["66"]])
    legal = state.legal_actions()
    assert legal == ["13@-1,1", "35@-1,1", "53@-1,1"] == reference_legal(state)  # never 31 or 16
    state.apply("13@-1,1")
    assert state.current() == 0  # clause d: a tile above it -> an extra turn


def test_rule_b_below_alone_forbids_an_insertion() -> None:
    # The gap (-1,1)-(0,1) under the 6 at (0,2): (0,1) over the 1 at (0,0) needs 3 or 5,
    # and neither is 6 minus a ring, so neither 13 nor 15 goes in (over the 1 both would).
    state = position(["11@0,0", "35@1,1", "67@0,2"], [["13", "15"], ["44"]], supply=["00"])
    assert state.legal_actions() == ["draw"] == reference_legal(state)
    open_top = position(["11@0,0", "35@1,1"], [["13", "15"], ["44"]], supply=["00"])
    assert {"13@-1,1", "15@-1,1"} <= set(open_top.legal_actions())


def test_resting_on_two_tiles_earns_an_extra_turn() -> None:
    state = position(BASE, [["35", "66", "44"], ["22"]], supply=["07"])
    assert state.extra_turn(0, 2) and not state.extra_turn(2, 2)
    state.apply("53@0,2")  # 5 over 1, 3 over 2
    assert state.current() == 0 and state.hands[0] == [(6, 6), (4, 4)]


def test_resting_on_two_tiles_with_a_tile_above_earns_exactly_one_extra_turn() -> None:
    # 14 at (2,2) over the 0 at (2,1), then 73 at (1,3) with its 3 over that 1 and its 7
    # over the empty (1,2). Inserting at (0,2): 5 over 1, 3 over 2 and under the 7.
    tiles = [*BASE, "14@2,2", "73@1,3"]
    state = position(tiles, [["35", "33", "03"], ["22"]], supply=["07"])
    assert "53@0,2" in state.legal_actions() and "35@0,2" not in state.legal_actions()
    state.apply("53@0,2")
    assert state.current() == 0 and [len(h) for h in state.hands] == [2, 1]
    assert state.legal_actions() == ["draw"] == reference_legal(state)  # the one extra turn
    state.apply("draw")
    assert state.current() == 1  # and no second one


def test_extra_turns_chain() -> None:
    state = position([*BASE, "14@2,2"], [["35", "37", "66"], ["22"]], supply=["07"])
    state.apply("53@0,2")  # rests on two tiles
    assert state.current() == 0
    state.apply("73@1,3")  # 7 over 3 and 3 over 1: rests on two tiles again
    assert state.current() == 0 and state.hands[0] == [(6, 6)]
    state.apply("66@3,3")  # 6 over the 4 at (3,2), 6 over nothing: the turn ends
    assert state.is_terminal() and state.result().ranks == (1, 2)


def test_one_support_and_nothing_above_ends_the_turn() -> None:
    state = dealt(2)
    state.apply("55@0,0")
    state.apply("77@1,1")
    assert state.current() == 0
    assert not state.extra_turn(1, 1)


def test_legal_actions_match_a_brute_force_reading_of_the_rules_in_random_games() -> None:
    rng = random.Random(11)
    checked = 0
    for game in range(60):
        state = GAME.new_state(1 + game % 4)
        assert isinstance(state, TheTreeState)
        state.apply(state.sample_chance(rng))
        state.apply(rng.choice(state.legal_actions()))
        while state.current() != TERMINAL:
            legal = state.legal_actions()
            assert legal == reference_legal(state) == sorted(legal)
            assert sorted(state.moves()) == sorted(placement(a) for a in legal if "@" in a)
            checked += 1
            state.apply(rng.choice(legal))
    assert checked > 1000
