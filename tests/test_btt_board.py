"""Branches and Twigs and Thorns: the game's identity and its boards (rules/btt.md):
square names, sections, seams and rings for 2 to 6 seats, the wedge and the rectangle."""

from __future__ import annotations

import pytest

from arena import games
from arena.games.base import GameError
from arena.games.btt import BTT
from arena.games.btt_board import geometry, square_names
from tests.helpers.btt import FILES, grid, neighbours, new, play

# ---- the game's identity ----------------------------------------------------------


def test_registered_with_its_seats_and_board_option() -> None:
    game = games.get("btt")
    assert isinstance(game, BTT)
    assert (game.id, game.name, game.min_seats, game.max_seats) == ("btt", "Branches and Twigs and Thorns", 2, 6)
    (option,) = game.options
    assert (option.name, option.default, option.choices) == ("board", "wedge", ("wedge", "rect"))
    assert new(2).geo.board == "wedge"


# ---- boards -------------------------------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 7))
@pytest.mark.parametrize("board", ["wedge", "rect"])
def test_every_board_has_16_squares_per_seat(seats: int, board: str) -> None:
    names = square_names(seats, board)
    assert len(names) == len(set(names)) == 16 * seats
    nbs = neighbours(seats, board)
    assert all(sq not in nb and all(sq in nbs[o] for o in nb) for sq, nb in nbs.items())


def test_unknown_board_or_seat_count_is_refused() -> None:
    with pytest.raises(GameError):
        geometry(2, "hex")
    with pytest.raises(GameError):
        BTT().new_state(7)
    with pytest.raises(GameError):
        BTT().new_state(2, {"board": "hex"})


def test_board_sizes_32_48_64() -> None:
    assert [len(square_names(n)) for n in range(2, 7)] == [32, 48, 64, 80, 96]


def test_four_player_board_is_the_chessboard() -> None:
    assert neighbours(4) == grid(8, 8)


def test_two_player_board_is_an_8_by_4_rectangle() -> None:
    assert neighbours(2) == grid(8, 4)
    assert set(square_names(2)) == {f"{f}{r}" for f in FILES for r in "1234"}


def test_chess_quadrants_are_the_sections_with_centre_corners() -> None:
    names = square_names(4)
    quadrants = [("abcd", "1234"), ("efgh", "1234"), ("efgh", "5678"), ("abcd", "5678")]
    for s, (files, ranks) in enumerate(quadrants):
        assert set(names[16 * s:16 * s + 16]) == {f + r for f in files for r in ranks}
    assert [names[16 * s] for s in range(4)] == ["d4", "e4", "e5", "d5"]
    assert square_names(2) == names[:32]


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_lettered_square_names(seats: int) -> None:
    letters = "abcdef"[:seats]
    assert square_names(seats) == [f"{s}{i}{j}" for s in letters for i in "0123" for j in "0123"]


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_inside_a_section_squares_are_orthogonal_neighbours(seats: int) -> None:
    nbs = neighbours(seats)
    assert nbs["b11"] == {"b01", "b21", "b10", "b12"}
    assert nbs["b33"] == {"b23", "b32"}


def test_seam_joins_0j_of_a_section_to_j0_of_the_next() -> None:
    nbs = neighbours(6)
    for s in range(6):
        here, nxt = "abcdef"[s], "abcdef"[(s + 1) % 6]
        for j in range(4):
            assert f"{nxt}{j}0" in nbs[f"{here}0{j}"]
    assert "c30" in nbs["b03"] and "a10" in nbs["f01"]
    assert nbs["b02"] == {"b01", "b03", "b12", "c20"}
    assert "a10" in neighbours(3)["c01"]  # the closed 3-seat ring: c joins a


@pytest.mark.parametrize("seats", [3, 6])
def test_closed_ring_centres_form_a_cycle(seats: int) -> None:
    nbs = neighbours(seats)
    centres = [f"{s}00" for s in "abcdef"[:seats]]
    for k, centre in enumerate(centres):
        linked = {c for c in centres if c in nbs[centre]}
        assert linked == {centres[k - 1], centres[(k + 1) % seats]}
    assert nbs["a00"] == {"a10", "a01", "b00", centres[-1]}


def test_four_player_centre_is_a_cycle_of_four() -> None:
    nbs = neighbours(4)
    assert {"e4", "d5"} <= nbs["d4"] and {"d4", "e5"} <= nbs["e4"] and {"e4", "d5"} <= nbs["e5"]


def test_two_player_ring_is_open() -> None:
    nbs = neighbours(2)
    # The missing seam would join h4-a4, g4-b4, f4-c4 (e4-d4 is the other seam).
    assert "a4" not in nbs["h4"] and "b4" not in nbs["g4"] and "c4" not in nbs["f4"]
    assert nbs["f4"] == {"e4", "g4", "f3"}


def test_five_player_ring_is_open_between_e_and_a() -> None:
    nbs = neighbours(5)
    assert nbs["a00"] == {"a10", "a01", "b00"}
    assert nbs["e00"] == {"e10", "e01", "d00"}
    assert "a10" not in nbs["e01"] and "b10" in nbs["a01"] and "e10" in nbs["d01"]
    assert all(not (nb[0] == "a" and sq[0] == "e") for sq, nb_set in nbs.items() for nb in nb_set)


@pytest.mark.parametrize("seats", range(2, 7))
def test_rect_variant_is_an_8_by_2n_rectangle(seats: int) -> None:
    assert neighbours(seats, "rect") == grid(8, 2 * seats)


def test_rect_equals_wedge_for_two_and_four_players() -> None:
    assert neighbours(2, "rect") == neighbours(2) and neighbours(4, "rect") == neighbours(4)


def test_rect_actions_on_two_digit_ranks() -> None:
    state = play(5, ["Na1", "Nh10", "Ra9", "Rh1", "Rd5"], board="rect")
    legal = state.legal_actions()
    # Plain ASCII: "1a10>a9" sorts before "1a8>a9" because "1" < "8".
    assert legal.index("1a10>a9") < legal.index("1a8>a9")
    assert legal == sorted(legal)
