"""Branches and Twigs and Thorns: the board drawn in the terminal, and the greedy bot."""

from __future__ import annotations

import random

from rich.console import Console

from arena.games.btt import BTTState
from arena.games.btt_board import board_layout
from arena.render.btt import render_btt, text_btt
from bots.btt_greedy import choose_action
from bots.tracking import TrackedGame
from tests.helpers.btt import new, play

# ---- renderer ---------------------------------------------------------------------------


def test_text_of_a_two_player_position() -> None:
    state = play(2, ["Nh1", "Rb3", "1c3>b3", "2b2>b3", "3b1>b2"])
    assert text_btt(state).splitlines() == [
        "4  .   .   .   .   .   .   .   .",
        "3  .   @  01<  .   .   .   .   .",
        "2  .  12^  .   .   .   .   .   .",
        "1  .  03^  .   .   .   .   .   #",
        "   a   b   c   d   e   f   g   h",
        "",
        "seat 0  score   3  left 1:4 2:5 3:4",
        "seat 1  score   8  left 1:5 2:4 3:5  <- to move",
        "play, ply 6: seat 1 places a pyramid",
    ]


def test_text_of_a_sectioned_board_shows_seam_arrows() -> None:
    state = play(3, ["Nc33", "Ra00", "Rb00", "1a01>a00", "2b10>a01", "3c00>b00", "1a10>a00"])
    # Each section as section a sits on a chessboard: (0, 0) top right, i leftwards, j
    # downwards. a01 points up at the root a00, a10 left of a00 points right at it; b10
    # points across the seam into the previous section (up), c00 at b00 (up as well).
    assert text_btt(state).splitlines()[:6] == [
        "  section a            section b            section c",
        "0  .   .  01>  @     0  .   .  12^  @     0  .   .   .  23^",
        "1  .   .   .  01^    1  .   .   .   .     1  .   .   .   .",
        "2  .   .   .   .     2  .   .   .   .     2  .   .   .   .",
        "3  .   .   .   .     3  .   .   .   .     3  #   .   .   .",
        "   3   2   1   0        3   2   1   0        3   2   1   0",
    ]
    for action in ["1a02>a01", "2b20>b10", "1b30>b20", "1a03>b30"]:
        state.apply(action)
    # Seat 1's a03 points across the seam into the next section: right.
    assert text_btt(state).splitlines()[4].startswith("3  .   .   .  11>")


def test_rich_render_has_the_pieces_and_arrows() -> None:
    state = play(2, ["Nh1", "Rb3", "1c3>b3", "2b2>b3"])
    console = Console(record=True, width=80, color_system=None)
    console.print(render_btt(state))
    out = console.export_text()
    assert "◆" in out and "01←" in out and "12↑" in out and "▪" in out
    assert "seat 0  score   5" in out


def test_layout_covers_every_square_once() -> None:
    for seats in range(2, 7):
        for board in ("wedge", "rect"):
            squares = [sq for panel in board_layout(seats, board) for row in panel.rows for sq in row if sq is not None]
            assert sorted(squares) == list(range(16 * seats))


# ---- greedy bot ---------------------------------------------------------------------------


def test_greedy_beats_random_in_most_games() -> None:
    wins = 0
    for k in range(40):
        seats = 2 + k % 3
        rng = random.Random(k)
        state = new(seats)
        me = k % seats
        while not state.is_terminal():
            if state.current() == me:
                state.apply(choose_action(state))
            else:
                state.apply(rng.choice(state.legal_actions()))
        wins += state.result().ranks[me] == 1
    assert wins >= 34


def test_greedy_prefers_a_free_move_and_a_big_pyramid_when_exposed() -> None:
    state = play(2, ["Nh1", "Rb3", "2b2>b3"])
    # Every square near the root touches seat 0's size-2 or the root; pointing at the
    # root is free and keeps the lead, so the greedy seat 1 never attacks here.
    action = choose_action(state)
    assert action.endswith(">b3") and action[0] == "3"


def test_a_tracked_game_follows_events_without_double_applying() -> None:
    tracked = TrackedGame("btt")
    start = {"type": "start", "game": "btt", "options": {"board": "wedge"}, "seat": 1, "seats": 2}
    tracked.on_start(start)
    state = tracked.sync({"ply": 2, "events": [{"ply": 1, "seat": 0, "action": "Nc3"}]}, start)
    assert isinstance(state, BTTState)
    first = choose_action(state)
    assert first.startswith("R")
    events = [{"ply": 1, "seat": 0, "action": "Nc3"}, {"ply": 2, "seat": 1, "action": first},
              {"ply": 3, "seat": 0, "action": play(2, ["Nc3", first]).legal_actions()[0]}]
    state = tracked.sync({"ply": 4, "events": events}, start)
    assert tracked.applied == 3 and isinstance(state, BTTState) and state.ply == 3
    tracked.on_start(start)
    assert isinstance(tracked.state, BTTState) and tracked.state.ply == 0
