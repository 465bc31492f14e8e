"""Blox: every rule of rules/blox.md pinned with a constructed position."""

from __future__ import annotations

import pytest

from arena import games
from arena.games import TERMINAL, GameError, IllegalAction
from arena.games.blox import BloxState
from arena.games.perft import perft
from arena.render.blox import render_blox, text_blox, text_blox_level

GAME = games.get("blox")


def board(seats: int = 2, **options: str) -> BloxState:
    state = GAME.new_state(seats, options)
    assert isinstance(state, BloxState)
    return state


def build(state: BloxState, bricks: list[tuple[int, str]], mover: int = 0) -> BloxState:
    """Put bricks down without the placement rules (for constructed positions)."""
    for owner, name in bricks:
        x, y, z = (int(v) for v in name[1:].split(","))
        state._add(owner, name[0], state.geo.index(x, y), z)
    state._legal = None
    state.mover = mover
    return state


def legal(state: BloxState) -> set[str]:
    return set(state.legal_actions())


# ---- space --------------------------------------------------------------------------------


def test_an_empty_board_has_646_level_zero_placements() -> None:
    actions = board().legal_actions()
    assert len(actions) == 2 * 19 * 17
    assert all(a.endswith(",0") for a in actions)
    assert "H-3,-1,0" in actions and "H15,15,0" in actions and "V-1,-3,0" in actions
    assert "H-4,0,0" not in actions and "H0,-2,0" not in actions  # no board stud covered


def test_perft_on_8_by_8() -> None:
    assert perft(board(width="8", height="8"), 2) == [198, 41166]


def test_above_level_zero_a_brick_may_lie_wholly_off_the_board_within_the_volume() -> None:
    state = build(board(), [(1, "H-3,0,0")])
    actions = legal(state)
    assert "V-4,-3,1" in actions  # over (-3,0): off the board, connected to the brick below
    far = build(board(), [(1, "H-3,0,0"), (1, "H-7,0,1")])
    assert "H-8,0,2" in legal(far) and "H-9,0,2" not in legal(far)  # the volume ends at x = -8


def test_the_volume_ends_at_level_15() -> None:
    tower = [(1, f"H0,0,{z}") for z in range(16)]
    state = build(board(), tower)
    assert not any(a.endswith(",16") for a in legal(state))
    assert "H0,0,15" not in legal(state) and "H1,0,14" not in legal(state)  # taken / squeezed


# ---- connections: down or up, never both; two spaces --------------------------------------


def test_a_brick_connects_down_onto_a_brick_or_the_board() -> None:
    state = build(board(), [(1, "H4,4,0")])
    actions = legal(state)
    assert "H5,5,1" in actions and "V4,4,1" in actions  # overlapping studs of the brick below
    assert "H8,4,1" not in actions  # beside it, over nothing


def test_level_zero_under_an_overhanging_brick_is_illegal() -> None:
    # A level-1 brick overhangs the board (supported by one end): the board below its
    # free end would make a new brick connect down (board) and up (the overhang) at once.
    state = build(board(), [(1, "H4,4,0"), (1, "H6,4,1")])
    actions = legal(state)
    assert "V8,4,0" not in actions  # under the overhang at x = 8..9: board plus bottom
    assert "V10,4,0" in actions  # clear of it


def test_hanging_under_a_brick_two_levels_up() -> None:
    # A level-2 brick reaches out over empty board; a level-1 brick may hang under it
    # when level 0 below is empty, not when it would also touch a level-0 brick.
    base = [(1, "V4,4,0"), (1, "V4,4,1"), (1, "H4,4,2")]
    state = build(board(), base)
    assert "V6,3,1" in legal(state)  # hangs from the level-2 brick; nothing under it
    touching = build(board(), [*base, (1, "V6,0,0")])
    assert "V6,3,1" not in legal(touching)  # would rest on V6,0,0 too: down and up


def test_two_spaces_nothing_hangs_under_a_level_one_brick() -> None:
    state = build(board(), [(1, "H4,4,0"), (1, "H6,4,1")])
    actions = legal(state)
    assert not {"V8,1,0", "V8,2,0", "V8,3,0", "V8,4,0", "V8,5,0", "V9,4,0"} & actions
    assert "V8,0,0" in actions and "V8,6,0" in actions  # clear of the overhang's studs
    assert not any(a.endswith(",-1") for a in actions)


# ---- access --------------------------------------------------------------------------------

WALLS = [f"{o}{x},{y},{z}" for z in (0, 1) for o, x, y in (("H", 4, 2), ("H", 4, 6), ("V", 2, 2), ("V", 8, 4))]
ROOF = ["V3,3,2", "V5,3,2", "V7,3,2"]


def test_a_cavity_closed_on_every_side_and_above_cannot_be_filled() -> None:
    open_top = build(board(), [(1, w) for w in WALLS])
    assert "H4,4,0" in legal(open_top)  # the well is open above: lowered in from the top
    closed = build(board(), [(1, w) for w in WALLS + ROOF])
    assert "H4,4,0" not in legal(closed)
    assert "H4,4,1" not in legal(closed)  # up against the roof: the staging cell is closed too
    assert closed.occupied[0] & closed.geo.footprint("H", closed.geo.index(4, 4)) == 0  # it is empty


def test_a_cavity_open_at_one_side_can_be_filled_by_sliding() -> None:
    walls = [w for w in WALLS if not w.startswith("V8,4")]  # no wall at the right
    state = build(board(), [(1, w) for w in walls + ROOF])
    assert "H4,4,0" in legal(state)


# ---- exact cover ---------------------------------------------------------------------------


def test_no_exact_cover_of_an_opponents_brick_but_of_ones_own() -> None:
    state = build(board(), [(1, "H4,4,0"), (0, "H10,4,0")])
    actions = legal(state)
    assert "H4,4,1" not in actions and "H5,4,1" in actions and "H4,5,1" in actions
    assert "H10,4,1" in actions
    under = build(board(), [(0, "V4,4,0"), (0, "V4,4,1"), (1, "H4,4,2")])
    assert "H4,4,1" not in legal(under)  # its bottom, from below, is no better


# ---- winning -------------------------------------------------------------------------------

CHAIN = [(0, "H0,0,0"), (0, "V3,2,0"), (0, "H4,6,0"), (0, "V2,0,1")]


def test_one_chain_touching_all_four_edges_wins_at_once() -> None:
    state = build(board(width="8", height="8"), CHAIN + [(1, "H0,6,0")])
    state.apply("V4,4,1")  # joins V3,2,0 to H4,6,0
    assert state.current() == TERMINAL and state.winner == 0
    assert state.result().ranks == (1, 2) and state.result().scores == (1.0, 0.0)


def test_the_same_edges_in_two_chains_do_not_win() -> None:
    state = build(board(width="8", height="8"), CHAIN + [(1, "H0,6,0")])
    state.apply("H4,3,1")  # elsewhere: not joining the two chains
    assert state.current() == 1 and state.winner is None
    edges = sorted(e for _, e in state.chain_edges(0))
    assert 0b1111 not in edges and edges[-1] | edges[-2] == 0b1111


def test_a_chain_through_another_players_brick_does_not_count() -> None:
    state = build(board(width="8", height="8"), [(0, "H0,0,0"), (1, "V2,0,1"), (0, "V3,2,0"),
                                                 (0, "H4,6,0"), (0, "V4,4,1")])
    assert all(edges != 0b1111 for _, edges in state.chain_edges(0))


# ---- passing, the end, options ------------------------------------------------------------


def test_a_seat_without_bricks_passes_and_everyone_passing_is_a_draw() -> None:
    state = board(bricks="1", width="8", height="8")
    state.apply("H0,0,0")
    state.apply("H4,4,0")
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    state.apply("pass")
    assert state.current() == TERMINAL and state.result().ranks == (1, 1)
    assert state.result().scores == (0.0, 0.0)


def test_pass_is_not_allowed_while_a_placement_is() -> None:
    with pytest.raises(IllegalAction):
        board().apply("pass")


def test_max_turns_ends_the_game_in_a_draw() -> None:
    state = board(3, max_turns="1", width="8", height="8")
    for action in ("H0,0,0", "H4,4,0", "V0,4,0"):
        state.apply(action)
    assert state.current() == TERMINAL and state.result().ranks == (1, 1, 1)


@pytest.mark.parametrize(("name", "value"), [("width", "3"), ("height", "x"), ("bricks", "0"), ("max_turns", "05")])
def test_options_are_checked(name: str, value: str) -> None:
    with pytest.raises(GameError, match=name):
        GAME.new_state(2, {name: value})


@pytest.mark.parametrize("action", ["H00,0,0", "H0,0,00", "h0,0,0", "H0,0", "X0,0,0", "H-0,0,0", "H0, 0,0"])
def test_only_canonical_actions_are_accepted(action: str) -> None:
    with pytest.raises(IllegalAction):
        board().apply(action)


def test_seats_take_turns_in_order() -> None:
    state = board(4, width="8", height="8")
    for seat, action in enumerate(("H0,0,0", "H4,4,0", "V0,4,0", "V6,0,0")):
        assert state.current() == seat
        state.apply(action)
    assert state.current() == 0


def test_observation_and_views() -> None:
    state = build(board(width="8", height="8"), CHAIN)
    obs = state.observation(1)
    assert obs["bricks"][0] == [0, "H0,0,0"] and obs["bricks_left"] == [44, 48]
    assert obs["width"] == 8 and obs["to_move"] == 0 and obs["max_turns"] == 100
    text = text_blox(state)
    assert "0a" in text and "0b" in text
    assert "WS (3 bricks)" in text and "EN (1 bricks)" in text
    assert "0b" in text_blox_level(state, 1) and "0a" not in text_blox_level(state, 1)
    render_blox(state)


# ---- the bridge variant -------------------------------------------------------------------


def bridge(**options: str) -> BloxState:
    return board(2, variant="bridge", **options)


def test_bridge_starts_with_two_bricks_each_around_an_empty_centre() -> None:
    state = bridge()
    assert [(b.owner, state.brick_name(b)) for b in state.bricks] == [
        (0, "V7,11,0"), (0, "V7,1,0"), (1, "H1,7,0"), (1, "H11,7,0")]
    assert state.left == [46, 46] and state.current() == 0 and state.turns == 0
    assert state.observation(1)["variant"] == "bridge" and board().observation(0)["variant"] == "standard"
    tall = bridge(width="14", height="20")
    assert [tall.brick_name(b) for b in tall.bricks] == ["V6,13,0", "V6,3,0", "H0,9,0", "H10,9,0"]


def test_bridge_is_won_by_joining_ones_own_starting_bricks() -> None:
    state = build(bridge(), [(0, "V5,7,0"), (1, "H0,0,0"), (0, "H4,10,1"), (1, "H12,0,0")])
    assert not state.joined(0)
    state.apply("V6,4,1")  # on V7,1,0 and V5,7,0; H4,10,1 already joins V5,7,0 to V7,11,0
    assert state.current() == TERMINAL and state.winner == 0 and state.joined(0)
    assert state.result().ranks == (1, 2)


FOUR_EDGES_20 = ([(1, f"H{x},0,0") for x in (0, 4, 8, 12, 16)] + [(1, f"H{x},0,1") for x in (2, 6, 10, 14)]
                 + [(1, f"V0,{y},0") for y in (2, 6, 10, 14)] + [(1, f"V0,{y},1") for y in (1, 5, 9, 13)]
                 + [(1, "H0,18,0")])
"""Seat 1's bricks on 20 x 20: along the north edge to the east edge, down the west edge
to the south edge, one brick short (H0,17,1) of a chain touching all four."""


@pytest.mark.parametrize("variant", ["standard", "bridge"])
def test_bridge_ignores_the_edges(variant: str) -> None:
    state = build(board(variant=variant, width="20", height="20"), FOUR_EDGES_20, mover=1)
    state.apply("H0,17,1")
    assert any(edges == 0b1111 for _, edges in state.chain_edges(1))
    if variant == "standard":
        assert state.winner == 1
    else:
        assert state.winner is None and state.current() == 0 and not state.joined(1)


@pytest.mark.parametrize(("options", "seats", "message"), [
    ({"width": "13"}, 2, "even width of 14"), ({"height": "12"}, 2, "even height of 14"),
    ({}, 3, "bridge variant of blox is played by 2 seats"), ({"variant": "tower"}, 2, "not one of standard, bridge"),
    ({"bricks": "2"}, 2, "give at least 3")])
def test_bridge_options_are_checked(options: dict[str, str], seats: int, message: str) -> None:
    with pytest.raises(GameError, match=message):
        GAME.new_state(seats, {"variant": "bridge", **options})
