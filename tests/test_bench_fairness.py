"""The fairness measure's arithmetic: what a sleeping bot was charged beyond its own
sleep, by seat and seating, with time-outs counted apart (the timing itself belongs to
`arena bench --only fairness`, not to a test)."""

from __future__ import annotations

from arena.bench.fairness import SLEEPS_MS, Charged, _tally
from arena.process.faults import SeatFault
from arena.records.record import GameRecord, Ply
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.termination import Termination


def _outcome(plies: list[Ply], faults: list[SeatFault]) -> GameOutcome:
    return GameOutcome(GameRecord(tags={}, plies=plies), (1, 2), None, faults, Termination.NORMAL, len(plies))


def test_each_decision_is_charged_beyond_its_own_bots_sleep() -> None:
    slow, fast = SLEEPS_MS[1], SLEEPS_MS[0]
    first = _outcome([Ply(1, "a", actor=0, elapsed_ms=fast + 1.5), Ply(1, "b", actor=1, elapsed_ms=slow + 4.0),
                      Ply(2, "~c", chance=True, actor=-1)], [])
    # The second game swaps the seats: seat 0 is the slow bot.
    second = _outcome([Ply(1, "a", actor=0, elapsed_ms=slow + 0.5)],
                      [SeatFault(1, Termination.TIME_OUT, "answered after 400 ms", 2)])
    result = MatchResult(["fast", "slow"], [first, second], [[0, 1], [1, 0]])
    charged = Charged()
    _tally(result, charged)
    assert charged.extra_ms == [1.5, 4.0, 0.5]
    assert charged.time_outs == 1
    assert charged.worst_ms == 4.0


def test_percentiles_of_few_decisions() -> None:
    assert Charged().worst_ms == 0.0 and Charged().p99_ms == 0.0
    assert Charged([3.0]).p99_ms == 3.0
    assert 9.0 < Charged([float(i) for i in range(11)]).p99_ms <= 10.0
