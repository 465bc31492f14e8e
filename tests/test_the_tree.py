"""The Tree: the rules of rules/the-tree.md pinned with deals, positions and sequences."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import CHANCE, TERMINAL, IllegalAction, get_game
from arena.games.the_tree import TILES, TheTreeState, fits_above, tile_name
from arena.perft import perft
from arena.record import read_records, write_records
from arena.render.the_tree import render_the_tree, text_the_tree
from arena.replay import verify
from tests.test_selfplay import random_game_record

GAME = get_game("the-tree")
PERFT_DEAL = ("67,34,02,55,26,45,35,24,66,13,14,25,05,01,12,57,77,47,33,16,44,00,46,03,06,37,15,27,22,17,"
              "36,56,07,23,04,11")


def dealt(seats: int, deal: str = PERFT_DEAL) -> TheTreeState:
    state = GAME.new_state(seats)
    assert isinstance(state, TheTreeState) and state.current() == CHANCE
    state.apply(deal)
    return state


def position(tiles: list[str], hands: list[list[str]], supply: list[str] | None = None, mover: int = 0) -> TheTreeState:
    """A position built directly: placed tiles as 'lr@x,y', hands and supply as tile names."""
    state = TheTreeState(len(hands))
    state.dealt = True
    for text in tiles:
        symbols, _, where = text.partition("@")
        x, y = (int(v) for v in where.split(","))
        left, right = int(symbols[0]), int(symbols[1])
        state.cells[(x, y)] = left
        state.cells[(x + 1, y)] = right
        state.tiles.append((left, right, x, y))
    state.hands = [[(int(t[0]), int(t[1])) for t in hand] for hand in hands]
    state.supply = [(int(t[0]), int(t[1])) for t in supply or []]
    state.mover = mover
    return state


# ---- tiles, rings, deal -----------------------------------------------------------------


def test_the_set_has_36_tiles_and_rule_b_adds_exactly_one_ring() -> None:
    assert len(TILES) == 36 and len({tile_name(t) for t in TILES}) == 36
    above = {down: sorted(up for up in range(8) if fits_above(up, down)) for down in range(8)}
    assert above == {0: [1, 2, 4], 1: [3, 5], 2: [3, 6], 4: [5, 6], 3: [7], 5: [7], 6: [7], 7: []}


@pytest.mark.parametrize(("seats", "supply"), [(1, 27), (2, 18), (3, 9), (4, 0)])
def test_the_deal_gives_nine_tiles_each_and_the_rest_is_the_supply(seats: int, supply: int) -> None:
    state = dealt(seats)
    assert [len(h) for h in state.hands] == [9] * seats
    assert len(state.supply) == supply
    assert tile_name(state.hands[0][0]) == "67" and (seats == 4 or tile_name(state.supply[0]) ==
                                                     PERFT_DEAL.split(",")[9 * seats])


@pytest.mark.parametrize("deal", ["00,01", PERFT_DEAL.replace("67", "66", 1), PERFT_DEAL + ",00", "x"])
def test_a_deal_must_be_a_permutation_of_the_set(deal: str) -> None:
    state = GAME.new_state(2)
    with pytest.raises(IllegalAction):
        state.apply(deal)


def test_sampled_deals_are_permutations_and_seeded() -> None:
    import random

    state = GAME.new_state(3)
    first = state.sample_chance(random.Random(5))
    assert sorted(first.split(",")) == sorted(tile_name(t) for t in TILES)
    assert first == state.sample_chance(random.Random(5))


# ---- the start ----------------------------------------------------------------------------


def test_the_holder_of_the_lowest_double_starts_with_it_and_chooses_only_its_orientation() -> None:
    state = dealt(2)  # seat 0 holds 55, 66; seat 1 holds 77; 00..44 are in the supply
    assert state.current() == 0 and state.legal_actions() == ["55@0,0"]
    four = dealt(4)  # 00 is the 22nd tile: seat 2
    assert four.current() == 2 and four.legal_actions() == ["00@0,0"]
    state.apply("55@0,0")
    assert state.current() == 1  # the start is the starter's turn; the next seat follows


def test_without_a_double_the_lowest_tile_starts_in_either_orientation() -> None:
    state = position([], [["13", "27"], ["12", "56"]])
    state.tiles.clear()
    assert state._starter() == 1
    state.mover = 1
    assert state.legal_actions() == ["12@0,0", "21@0,0"]


def test_perft_from_the_rules_deal() -> None:
    assert perft(dealt(2), 3) == [1, 6, 18]


# ---- geometry ---------------------------------------------------------------------------


def test_rule_b_over_a_start_tile_00() -> None:
    state = position(["00@0,0"], [["01", "12", "03", "13"], ["44"]])
    legal = state.legal_actions()
    assert "01@-1,1" in legal  # 1 over 0 at x = 0; the 0 hangs over nothing
    assert "10@-1,1" not in legal  # 0 over 0
    assert all(not a.endswith("@0,1") for a in legal)  # aligned with the tile below: brick bond
    assert "30@1,1" not in legal  # 3 is two rings more than 0
    assert "13@-1,1" not in legal and "31@-1,1" in legal  # 3 may not sit on the 0; 1 may
    with pytest.raises(IllegalAction):
        state.apply("12@0,1")


def test_tiles_need_support_from_the_row_below_and_never_overlap() -> None:
    state = position(["00@0,0", "01@-1,1"], [["12", "13", "15"], ["44"]])
    legal = state.legal_actions()
    assert all(int(a.split(",")[1]) >= 1 for a in legal)
    assert not any(a.endswith("@-1,1") for a in legal)  # taken
    assert not any(a.endswith("@3,1") or a.endswith("@-3,1") for a in legal)  # nothing below
    assert {"12@-2,2", "21@-2,2", "31@-2,2", "51@-2,2"} <= set(legal)  # 1 or 2 over the 0 at (-1,1)
    assert "31@0,2" in legal and "13@0,2" not in legal  # over the 1 at (0,1): 3 yes, 1 no


def test_a_tile_inserted_under_a_tile_obeys_rule_b_against_it_and_earns_an_extra_turn() -> None:
    # Start 11 at (0,0); a 3 sits at (1,1) over the 1 at (1,0). The cell (1,1)'s
    # neighbour rows: a tile at (0,2)-(1,2) above row 1. Insert into (-1,1)-(0,1).
    state = position(["11@0,0", "37@1,1", "77@0,2"], [["13", "35"], ["66"]])
    legal = state.legal_actions()
    # (0,1) is under the 7 at (0,2) and above the 1 at (0,0): it must be 3 or 5 (1 plus a ring,
    # and the 7 above contains it with one ring more only for 3, 5, 6 -> 3 or 5).
    assert legal == ["13@-1,1", "35@-1,1", "53@-1,1"]  # never 31: a 1 over the 1
    state.apply("13@-1,1")
    assert state.current() == 0  # clause d: a tile above it -> an extra turn


def test_resting_on_two_tiles_earns_exactly_one_extra_turn_even_with_a_tile_above() -> None:
    state = position(["11@0,0", "33@2,0", "77@0,2"], [["57", "66", "44"], ["22"]])
    assert state.extra_turn(1, 1)  # rests on (1,0) and (2,0), and (1,2) is above
    state.apply("57@1,1")
    assert state.current() == 0 and [len(h) for h in state.hands] == [2, 1]
    state.apply(state.legal_actions()[0])  # the one extra turn: a draw or placement, then seat 1
    assert state.current() == 1


def test_a_tile_on_one_support_and_nothing_above_ends_the_turn() -> None:
    state = dealt(2)
    state.apply("55@0,0")
    state.apply("77@1,1")
    assert state.current() == 0


# ---- drawing, passing, the end ------------------------------------------------------------


def test_a_blocked_seat_draws_the_top_tile_and_its_turn_ends() -> None:
    state = position(["77@0,0"], [["12"], ["34"]], supply=["56", "00"])
    assert state.legal_actions() == ["draw"]
    state.apply("draw")
    assert state.current() == 1 and sorted(state.hands[0]) == [(1, 2), (5, 6)]
    assert [tile_name(t) for t in state.supply] == ["00"]


def test_with_an_empty_supply_a_blocked_seat_passes_and_all_passing_ends_the_game() -> None:
    state = position(["77@0,0"], [["12"], ["34"], []], supply=[])
    state.finished = [2]
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.current() == 1 and state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.current() == TERMINAL
    assert state.result().ranks == (2, 2, 1)  # the blocked seats share the next rank


def test_a_placement_or_draw_restarts_the_pass_count() -> None:
    state = position(["00@0,0"], [["37"], ["01", "33"], ["45"]], supply=[])
    state.apply("pass")
    state.apply("01@-1,1")  # seat 1 places (no extra turn: one support, nothing above)
    assert state.passes == 0 and state.current() == 2


def test_the_first_to_empty_its_hand_wins_and_others_play_on_for_places() -> None:
    state = position(["00@0,0"], [["01"], ["02", "66"], ["77"]], supply=[])
    state.apply("01@-1,1")
    assert state.finished == [0] and state.current() == 1 and not state.is_terminal()
    state.apply("20@1,1")
    state.apply("pass")  # seat 2: a 7 fits over nothing here
    state.apply("pass")  # seat 1 with 66: both holders passed in succession
    assert state.is_terminal() and state.result().ranks == (1, 2, 2)


def test_two_seats_end_when_one_empties_its_hand_and_the_extra_turn_lapses() -> None:
    state = position(["11@0,0", "33@2,0"], [["37"], ["22", "44"]], supply=["00"])
    state.apply("37@1,1")  # rests on two tiles, but the hand is empty: it finishes
    assert state.is_terminal() and state.result().ranks == (1, 2)
    assert state.result().scores == (0.0, 2.0)


def test_solo_win_and_loss() -> None:
    win = position(["00@0,0"], [["01"]], supply=["77"])
    win.apply("01@-1,1")
    assert win.is_terminal() and win.result().ranks == (1,)
    loss = position(["77@0,0"], [["01"]], supply=[])
    loss.apply("pass")
    assert loss.is_terminal() and loss.result().ranks == (2,) and loss.result().scores == (1.0,)


# ---- what each seat sees -------------------------------------------------------------------


def test_each_seat_sees_its_own_hand_in_the_deal_and_only_its_own_draws() -> None:
    state = GAME.new_state(2)
    seen = [state.visible_action(PERFT_DEAL, CHANCE, seat) for seat in (0, 1)]
    tiles = PERFT_DEAL.split(",")
    assert seen == ["deal " + ",".join(tiles[:9]), "deal " + ",".join(tiles[9:18])]
    blocked = position(["77@0,0"], [["12"], ["34"]], supply=["56"])
    assert blocked.visible_action("draw", 0, 0) == "draw 56"
    assert blocked.visible_action("draw", 0, 1) == "draw"
    obs = blocked.observation(1)
    assert obs["hand"] == ["34"] and obs["hand_sizes"] == [1, 1] and obs["supply_size"] == 1
    assert "12" not in str(obs) and "56" not in str(obs)


def test_only_canonical_actions_are_accepted() -> None:
    state = dealt(2)
    for bad in ("55@00,0", "55@0, 0", "55 @0,0", "draw", "pass", "56@0,0", "55@+0,0"):
        assert bad not in state.legal_actions()
        with pytest.raises(IllegalAction):
            state.apply(bad)


def test_views_draw_rings_hands_and_supply() -> None:
    state = dealt(2)
    state.apply("55@0,0")
    text = text_the_tree(state)
    assert "[5p.b 5p.b]" in text and "seat 1:" in text and "supply (top first): 33" in text
    render_the_tree(state)


def test_cli_legal_with_a_deal_and_with_a_seed() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["legal", "the-tree", "--players", "2", "--deal", PERFT_DEAL, "55@0,0"])
    assert result.exit_code == 0 and result.output.split() == [
        "47@-1,1", "57@-1,1", "74@1,1", "75@1,1", "77@-1,1", "77@1,1"]
    seeded = runner.invoke(app, ["legal", "the-tree", "--players", "2", "--seed", "5"])
    assert seeded.exit_code == 0 and len(seeded.output.split()) in (1, 2)
    bad = runner.invoke(app, ["legal", "the-tree", "--players", "2", "--deal", "00,11"])
    assert bad.exit_code == 2 and "--deal" in bad.output


# ---- self-play ------------------------------------------------------------------------------


def self_play(games_per_count: int, seed: int) -> None:
    for seats in range(1, 5):
        records = [random_game_record("the-tree", seats, seed * 100_000 + i, {}) for i in range(games_per_count)]
        text = write_records(records)
        again = read_records(text)
        assert write_records(again) == text
        for record in again:
            assert verify(record) == []
            assert record.plies[0].chance and len(record.plies) <= 1 + 36 * 4


def test_random_games_end_and_verify() -> None:
    self_play(60, seed=1)


@pytest.mark.slow
def test_thousands_of_random_games_end_and_verify() -> None:
    self_play(2000, seed=2)
