"""Branches and Twigs and Thorns: every rule of rules/btt.md on a concrete position or
action sequence (setup, play, scoring, the end), the decisions of docs/games/btt.md,
perft and the State interface."""

from __future__ import annotations

import random
from collections import deque

import pytest

from arena.games.base import TERMINAL, IllegalAction
from arena.games.btt_board import EMPTY, NULL, cut_squares, geometry
from arena.games.perft import perft
from tests.helpers.btt import PEACEFUL_GAME, SEED_EXAMPLE, new, play, random_game

# ---- setup ------------------------------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 7))
def test_setup_is_nulls_then_roots_in_seat_order(seats: int) -> None:
    state = new(seats)
    kinds = []
    for ply in range(seats):
        assert state.current() == ply and state.phase() == "setup"
        legal = state.legal_actions()
        kinds.append(legal[0][0])
        assert {a[0] for a in legal} == {legal[0][0]}
        wrong = ("R" if legal[0][0] == "N" else "N") + legal[0][1:]
        assert not state.is_legal(wrong)
        with pytest.raises(IllegalAction):
            state.clone().apply(wrong)
        state.apply(legal[-1])
    assert "".join(kinds) == "N" * (seats // 2) + "R" * (seats - seats // 2)
    assert state.phase() == "play" and state.current() == 0


def test_two_players_seat_0_null_seat_1_root() -> None:
    state = new(2)
    with pytest.raises(IllegalAction, match="must place a null"):
        state.clone().apply("Rd2")
    state.apply("Nc3")
    with pytest.raises(IllegalAction, match="must place a root"):
        state.clone().apply("Nd2")
    with pytest.raises(IllegalAction, match="not empty"):
        state.clone().apply("Rc3")
    state.apply("Rd2")
    assert state.current() == 0


def test_first_null_may_go_anywhere() -> None:
    assert len(new(2).legal_actions()) == 32
    assert len(new(4).legal_actions()) == 64


def test_null_that_cuts_off_a_corner_is_illegal() -> None:
    state = play(4, ["Na2"])
    assert "Nb1" not in state.legal_actions()  # a1 would be cut off
    assert not state.is_legal("Nb1")
    with pytest.raises(IllegalAction, match="cut the board"):
        state.apply("Nb1")
    assert "Nb2" in state.legal_actions()
    assert len(state.legal_actions()) == 63 - 1


def test_null_that_cuts_off_a_region_of_two_is_illegal() -> None:
    state = play(6, ["Na23", "Na22"])
    assert "Na31" not in state.legal_actions()  # a32 and a33 would be cut off
    assert "Na32" not in state.legal_actions()  # a33 would be cut off
    assert "Na33" in state.legal_actions() and "Na21" in state.legal_actions()


def test_a_root_may_cut_the_board() -> None:
    state = play(4, ["Na2", "Nc1"])
    assert "Rb1" in state.legal_actions()  # a1 is then reachable only through a root
    state.apply("Rb1")
    assert "Ra1" in state.legal_actions() and "Rc2" in state.legal_actions()
    state.apply("Rc2")
    assert "1a1>b1" in state.legal_actions()


def test_null_legality_agrees_with_a_breadth_first_search() -> None:
    rng = random.Random(4)
    for seats in (3, 4, 6):
        geo = geometry(seats, "wedge")
        for _ in range(20):
            owner = [EMPTY] * len(geo.names)
            for sq in rng.sample(range(len(owner)), 3 * seats):
                owner[sq] = NULL
                if not _connected(geo.adj, owner):
                    owner[sq] = EMPTY
            brute = set()
            for sq, who in enumerate(owner):
                if who == EMPTY:
                    owner[sq] = NULL
                    if not _connected(geo.adj, owner):
                        brute.add(sq)
                    owner[sq] = EMPTY
            assert cut_squares(geo, owner) == brute


def _connected(adj: tuple[tuple[int, ...], ...], owner: list[int]) -> bool:
    alive = [sq for sq, who in enumerate(owner) if who != NULL]
    seen = {alive[0]}
    queue = deque([alive[0]])
    while queue:
        for nb in adj[queue.popleft()]:
            if owner[nb] != NULL and nb not in seen:
                seen.add(nb)
                queue.append(nb)
    return len(seen) == len(alive)


# ---- play ---------------------------------------------------------------------------


def test_first_pyramids_grow_from_the_root_never_on_the_null() -> None:
    state = play(2, ["Nc3", "Rd2"])
    assert state.legal_actions() == sorted(f"{size}{sq}>d2" for size in "123" for sq in ("c2", "d1", "d3", "e2"))


def test_pyramid_must_point_at_an_adjacent_occupied_square() -> None:
    state = play(2, ["Nc3", "Rd2"])
    for action, reason in [("1a1>a2", "a2 is empty"), ("1d3>d4", "d4 is empty"), ("1d2>d3", "d2 is not empty")]:
        assert not state.is_legal(action)
        with pytest.raises(IllegalAction, match=reason):
            state.clone().apply(action)
    with pytest.raises(IllegalAction, match="not an action"):
        state.apply("1d4>d2")  # not adjacent: no such action on this board


def test_never_on_or_pointing_at_a_null() -> None:
    state = play(2, ["Nc3", "Rd2", "1c2>d2"])
    legal = state.legal_actions()
    assert not any(a[1:3] == "c3" or a.endswith(">c3") for a in legal)
    with pytest.raises(IllegalAction, match="c3 is a null"):
        state.clone().apply("2b3>c3")
    with pytest.raises(IllegalAction, match="c3 is not empty"):
        state.clone().apply("2c3>c2")
    assert "2c1>c2" in legal and "2b2>c2" in legal


def test_any_occupied_neighbour_may_be_the_target() -> None:
    state = play(2, ["Nc3", "Rd2", "1d3>d2", "1e2>d2"])
    legal = state.legal_actions()
    assert {"3e3>d3", "3e3>e2"} <= set(legal)
    assert "1e1>e2" in legal and "1d4>d3" in legal


def test_size_is_chosen_among_the_remaining_pyramids() -> None:
    state = play(2, SEED_EXAMPLE[:14])  # seat 0 has played all five size-1 pyramids
    assert state.current() == 0 and state.left[0:3] == [0, 4, 5]
    legal = state.legal_actions()
    assert legal and all(a[0] in "23" for a in legal)
    with pytest.raises(IllegalAction, match="no size-1 pyramid left"):
        state.apply("1" + legal[0][1:])


def test_pointing_at_root_or_own_pyramid_is_free() -> None:
    state = play(2, ["Nh1", "Rb3", "3b2>b3", "2c3>b3", "1b1>b2", "1c4>c3"])
    assert state.scores == [5, 5]


def test_size_1_at_opponent_size_2_costs_2_and_gives_1() -> None:
    state = play(2, ["Nh1", "Rb3", "2b2>b3"])
    state.apply("1b1>b2")
    assert state.scores == [6, 3]


def test_attack_pays_the_target_size_and_gives_the_placed_size() -> None:
    state = play(3, ["Na33", "Ra00", "Rc00", "3a10>a00", "2a01>a00"])
    state.apply("1a11>a10")  # seat 2 points its 1 at seat 0's 3
    assert state.scores == [6, 5, 2]
    state.apply("3a20>a10")  # seat 0 points at its own 3: free
    state.apply("3a21>a11")  # seat 1 points its 3 at seat 2's 1
    assert state.scores == [6, 4, 5]


def test_scores_may_go_below_zero() -> None:
    state = play(2, ["Nh1", "Rb3", "3b2>b3", "1b1>b2", "3a2>b2", "1a1>a2"])
    assert state.scores == [7, -1]


def test_the_seed_example_white_1_black_4() -> None:
    state = new(2)
    attacks = []
    for action in SEED_EXAMPLE:
        before, seat = list(state.scores), state.current()
        state.apply(action)
        if state.scores != before:
            other = 1 - seat
            assert action[0] == "1"
            assert state.scores[seat] == before[seat] - 2 and state.scores[other] == before[other] + 1
            attacks.append(seat)
    assert sorted(attacks) == [0, 0, 0, 1, 1]
    assert state.is_terminal()
    assert state.result().scores == (1.0, 4.0) and state.result().ranks == (2, 1)


# ---- end and result -------------------------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 7))
def test_game_ends_after_exactly_15n_pyramids(seats: int) -> None:
    state, actions = random_game(seats, "wedge", seed=seats)
    assert len(actions) == seats + 15 * seats
    assert state.placed == 15 * seats and state.left == [0] * (3 * seats)
    assert EMPTY not in state.owner  # every free square got a pyramid
    replay = play(seats, actions[:-1])
    assert replay.current() == (seats + 15 * seats - 1) % seats and len(replay.legal_actions()) > 0


def test_nothing_is_legal_once_the_game_is_over() -> None:
    state = play(2, SEED_EXAMPLE)
    assert state.current() == TERMINAL and state.phase() == "over"
    assert state.legal_actions() == [] and not state.is_legal("pass")
    with pytest.raises(IllegalAction, match="game is over"):
        state.apply("1a1>a2")


def test_equal_scores_share_the_rank() -> None:
    state = play(2, PEACEFUL_GAME)
    assert state.result().scores == (5.0, 5.0) and state.result().ranks == (1, 1)
    three, _ = random_game(3, "wedge", seed=1)
    three.scores = [4, 4, 2]
    assert three.result().ranks == (1, 1, 3)
    three.scores = [2, 7, 2]
    assert three.result().ranks == (2, 1, 2)


def test_pass_only_without_a_move_and_everyone_passing_ends_the_game() -> None:
    state = play(2, ["Nh1", "Rb3"])
    assert not state.is_legal("pass")
    with pytest.raises(IllegalAction, match="pass is only legal"):
        state.clone().apply("pass")
    state.valid.clear()  # no empty square next to an occupied one (cannot happen in play)
    state._legal = None
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.current() == 1 and state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.is_terminal() and state.result().ranks == (1, 1)


# ---- perft ----------------------------------------------------------------------------


def test_perft_two_players() -> None:
    assert perft(new(2), 3) == [32, 992, 9360]


def test_perft_three_players() -> None:
    assert perft(new(3), 2) == [48, 2256]


def test_perft_four_players_second_null_cannot_cut_a_corner() -> None:
    # 64 * 63 second nulls, less the 8 that would cut off a corner (b1 after a2, ...).
    assert perft(new(4), 2) == [64, 64 * 63 - 8]


def test_perft_rect_two_players_equals_wedge() -> None:
    assert perft(new(2, "rect"), 3) == [32, 992, 9360]


# ---- interface ----------------------------------------------------------------------------


def test_unknown_and_malformed_actions_raise() -> None:
    state = play(2, ["Nc3", "Rd2"])
    for action in ["", "xx", "Nz9", "4d3>d2", "1d3>d2 ", "1D3>D2", "1d3-d2", "Ra9"]:
        assert not state.is_legal(action)
        with pytest.raises(IllegalAction):
            state.apply(action)
    assert state.scores == [5, 5] and state.ply == 2


def test_nulls_and_roots_only_during_setup() -> None:
    state = play(2, ["Nc3", "Rd2"])
    with pytest.raises(IllegalAction, match="only during setup"):
        state.apply("Ra1")
    with pytest.raises(IllegalAction, match="must place a null"):
        new(2).apply("1a1>a2")


@pytest.mark.parametrize(("seats", "board"), [(2, "wedge"), (3, "wedge"), (5, "rect"), (6, "wedge")])
def test_legal_actions_are_in_ascii_order_and_agree_with_is_legal(seats: int, board: str) -> None:
    rng = random.Random(seats)
    state = new(seats, board)
    everything = list(state.geo.parse)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        chosen = set(legal)
        for action in rng.sample(everything, 40):
            assert state.is_legal(action) == (action in chosen)
        state.apply(rng.choice(legal))


def test_legal_actions_returns_a_fresh_list() -> None:
    state = play(2, ["Nc3", "Rd2"])
    state.legal_actions().clear()
    assert len(state.legal_actions()) == 12


def test_clone_is_independent() -> None:
    state = play(2, ["Nc3", "Rd2", "1d3>d2"])
    legal, seen = state.legal_actions(), state.observation(0)
    twin = state.clone()
    assert twin == state
    twin.apply("2d4>d3")
    assert state.legal_actions() == legal and state.observation(0) == seen
    state.apply("1e2>d2")
    assert "2d4>d3" not in twin.legal_actions() and twin.owner != state.owner
    assert twin != state


def test_observation_lists_everything() -> None:
    state = play(2, ["Nc3", "Rd2", "1d3>d2", "2e3>d3"])
    assert state.observation(1) == {
        "board": "wedge",
        "seats": 2,
        "seat": 1,
        "ply": 4,
        "phase": "play",
        "to_move": 0,
        "squares": {
            "c3": {"kind": "null"},
            "d2": {"kind": "root"},
            "d3": {"kind": "pyramid", "seat": 0, "size": 1, "target": "d2"},
            "e3": {"kind": "pyramid", "seat": 1, "size": 2, "target": "d3"},
        },
        "pyramids_left": [[4, 5, 5], [5, 4, 5]],
        "scores": [7, 4],  # seat 1's 2 at seat 0's 1: seat 1 pays 1, seat 0 gets 2
    }
    assert new(3).observation(0)["phase"] == "setup"
    over = play(2, SEED_EXAMPLE).observation(0)
    assert over["phase"] == "over" and over["to_move"] is None and len(over["squares"]) == 32


def test_forced_action_is_the_first_legal() -> None:
    state = play(2, ["Nc3", "Rd2"])
    assert state.forced_action() == "1c2>d2"
