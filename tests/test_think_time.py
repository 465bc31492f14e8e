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
