"""Time controls as users write them, and the clocks a game keeps from them."""

from __future__ import annotations

import pytest

from arena.timecontrol import MAX_SECONDS, SeatClocks, TimeControl, TimeControlError, parse_seconds


@pytest.mark.parametrize(("text", "seconds"), [
    ("1", 1.0), ("0.5", 0.5), ("2s", 2.0), ("500ms", 0.5), (" 1.5S ", 1.5), ("1e-3", 0.001), ("1ms", 0.001),
    ("604800", float(MAX_SECONDS)),
])
def test_times_in_every_written_form(text: str, seconds: float) -> None:
    assert parse_seconds(text, "--x") == pytest.approx(seconds)


@pytest.mark.parametrize(("text", "fragment"), [
    ("", "is not a time"), ("fast", "is not a time"), ("1h", "is not a time"), ("nan", "is not a time"),
    ("inf", "is not a time"), ("-1", "must be more than zero"), ("0", "must be more than zero"),
    ("0.0001", "less than a millisecond"), ("604801", "more than a week"), ("1e308", "more than a week"),
    ("ms", "is not a time"),
])
def test_times_that_cannot_be_used_say_why(text: str, fragment: str) -> None:
    with pytest.raises(TimeControlError, match=fragment):
        parse_seconds(text, "--x")


def test_parse_builds_per_move_clock_and_defaults() -> None:
    assert TimeControl.parse(None, None) == TimeControl(per_move_s=5.0)
    assert TimeControl.parse("200ms", None) == TimeControl(per_move_s=0.2)
    assert TimeControl.parse(None, "60+0.5") == TimeControl(per_move_s=None, base_s=60.0, increment_s=0.5)
    assert TimeControl.parse(None, "60") == TimeControl(per_move_s=None, base_s=60.0, increment_s=0.0)
    assert TimeControl.parse(None, "60+0") == TimeControl(per_move_s=None, base_s=60.0, increment_s=0.0)
    assert TimeControl.parse("1s", "10+1") == TimeControl(per_move_s=1.0, base_s=10.0, increment_s=1.0)
    for bad in ("+1", "10+x", "10+-1", "x+1"):
        with pytest.raises(TimeControlError):
            TimeControl.parse(None, bad)
    assert TimeControl.parse("1s", "10+1").describe() == "move=1s clock=10s+1s"


def test_seat_clocks_limit_charge_and_never_go_below_zero() -> None:
    clocks = SeatClocks([TimeControl(per_move_s=2.0, base_s=3.0, increment_s=0.5)] * 2)
    assert clocks.limit(0) == 2.0
    clocks.charge(0, 1.0)
    assert clocks.remaining[0] == 2.5 and clocks.limit(0) == 2.0
    clocks.charge(0, 2.4)
    assert clocks.remaining[0] == pytest.approx(0.6) and clocks.limit(0) == pytest.approx(0.6)
    clocks.charge(0, 0.7)  # late by less than the grace: the clock is empty, then the increment
    assert clocks.remaining[0] == 0.5
    wire = clocks.wire(1, clocks.limit(1))
    assert (wire.move_ms, wire.remaining_ms, wire.increment_ms) == (2000, 3000, 500)
    no_clock = SeatClocks([TimeControl(per_move_s=0.2)])
    no_clock.charge(0, 5.0)
    assert no_clock.limit(0) == 0.2 and no_clock.wire(0, 0.2).remaining_ms is None
