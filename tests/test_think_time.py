"""Shipped search bots keep a margin that holds on a loaded 2-core machine: at the
demo's 100 ms a move they think for a third of it, and never into the reserve."""

from __future__ import annotations

import pytest

from bots.tracking import RESERVE_S, think_time


@pytest.mark.parametrize(("move_ms", "fraction", "expected_s"), [
    (100, 0.5, 0.035),   # the demo: the reserve, not the fraction, sets the budget
    (100, 0.3, 0.03),
    (300, 0.5, 0.15),    # longer limits: the bot's own share, as before
    (1000, 0.3, 0.3),
    (50, 0.5, 0.001),    # shorter than the reserve: answer at once
])
def test_a_search_bot_thinks_for_its_share_minus_the_reserve(move_ms: int, fraction: float, expected_s: float) -> None:
    budget = think_time({"clock": {"move_ms": move_ms}}, fraction=fraction)
    assert budget == pytest.approx(expected_s)
    assert budget <= max(move_ms / 1000 - RESERVE_S, 0.001)


def test_a_clock_bounds_the_budget_to_a_twentieth_of_what_remains() -> None:
    assert think_time({"clock": {"move_ms": 1000, "remaining_ms": 2000}}) == pytest.approx(0.1)
    assert think_time({"clock": {"remaining_ms": 400}}, default_s=0.5) == pytest.approx(0.02)
    assert think_time({}, default_s=0.25) == pytest.approx(0.25)


def test_a_time_box_stops_a_step_that_runs_long() -> None:
    """A search step can cost 1 ms or 100 ms: the box stops it where it is, on time."""
    import time

    from bots.tracking import TimeUp, time_box

    started = time.monotonic()
    with pytest.raises(TimeUp), time_box(0.05):
        while True:  # one step that would never end
            sum(range(1000))
    assert 0.04 < time.monotonic() - started < 1.0


def test_blox_search_answers_within_its_budget_from_the_first_move() -> None:
    """Its candidates' scoring cost up to 55 ms a step and the leader's reply 95 ms on a
    16x16 board: at the demo's budget it still answers within a few ms of it."""
    import random
    import time

    from arena.games import get_game
    from arena.games.blox import BloxState
    from bots.blox_search import choose_action

    state = get_game("blox").new_state(2, {})
    assert isinstance(state, BloxState)
    rng = random.Random(1)
    choose_action(state, rng, 0.01)  # the engine's one-off tables for this board size
    for _ in range(6):
        started = time.thread_time()  # this thread's CPU: other threads of the test process do not count
        action, _info = choose_action(state, rng, 0.035)
        assert time.thread_time() - started < 0.035 + 0.03
        state.apply(action)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the lost ring, reported
def test_a_time_box_rings_again_when_a_ring_is_lost() -> None:
    """A TimeUp raised inside a garbage collector's callback cannot get out (Python
    reports it and goes on): the alarm rings again until the box closes."""
    import gc
    import time

    from bots.tracking import TimeUp, time_box

    started = time.monotonic()

    def callback_across_the_ring(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and 0.01 < time.monotonic() - started < 0.02:
            while time.monotonic() - started < 0.04:  # the ring at 20 ms lands here: lost
                pass

    gc.callbacks.append(callback_across_the_ring)
    try:
        with pytest.raises(TimeUp), time_box(0.02):
            while time.monotonic() - started < 1.0:
                gc.collect(0)
            raise AssertionError("the time box never closed")
    finally:
        gc.callbacks.remove(callback_across_the_ring)
    assert time.monotonic() - started < 0.5
