"""Ratings and the SPRT: hand-computed Elo fits, OpenSkill through the library, and the
SPRT's error rates on simulated pairs."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats.ratings import PairResult, PairTotal, elo_fit, elo_from_totals, openskill_ratings, pair_totals
from arena.stats.sprt import PairStats, SprtParameters, elo_of_score, expected_score

ELO = 400 / math.log(10)


def test_two_bot_fit_matches_the_hand_computation() -> None:
    # A beats B 3 times out of 4: the MLE of the difference solves p = 3/4, so it is
    # 400 log10(3); the Fisher information of the difference is n p (1 - p) = 0.75.
    games = [PairResult(0, 1, 1.0)] * 3 + [PairResult(1, 0, 1.0)]
    a, b = elo_fit(2, games, prior_draws=0)
    assert a.value - b.value == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert a.value == pytest.approx(-b.value)
    half_difference_sigma = 0.5 * math.sqrt(1 / 0.75)
    assert a.error == pytest.approx(1.959964 * half_difference_sigma * ELO, rel=1e-5)


def test_the_prior_is_one_virtual_draw_per_pairing() -> None:
    games = [PairResult(0, 1, 1.0)] * 3 + [PairResult(0, 1, 0.0)]
    a, b = elo_fit(2, games)
    assert a.value - b.value == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)


def test_a_perfect_score_stays_finite_and_draws_count_half() -> None:
    a, b = elo_fit(2, [PairResult(0, 1, 1.0)] * 10)
    assert math.isfinite(a.value) and a.value - b.value == pytest.approx(400 * math.log10(10.5 / 0.5))
    a, b = elo_fit(2, [PairResult(0, 1, 0.5)] * 6, prior_draws=0)
    assert a.value == pytest.approx(0.0, abs=1e-9)


def test_three_bot_fit_uses_all_games_at_once() -> None:
    # A-B 2:2 and B-C 3:1 and A-C 3:1: A and B equal, C below both by 400 log10 3.
    games = ([PairResult(0, 1, 1.0)] * 2 + [PairResult(0, 1, 0.0)] * 2
             + [PairResult(1, 2, 1.0)] * 3 + [PairResult(1, 2, 0.0)]
             + [PairResult(0, 2, 1.0)] * 3 + [PairResult(0, 2, 0.0)])
    a, b, c = elo_fit(3, games, prior_draws=0)
    assert a.value == pytest.approx(b.value, abs=1e-6)
    assert a.value - c.value == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert a.value + b.value + c.value == pytest.approx(0.0, abs=1e-6)


def test_a_bot_without_games_has_no_interval() -> None:
    ratings = elo_fit(3, [PairResult(0, 1, 1.0)])
    assert ratings[2].value == 0 and math.isinf(ratings[2].error)


def test_an_anchored_bot_carries_its_value_and_the_others_the_difference() -> None:
    # As the hand computation above, but bot 0 pinned at 1500: B's interval is now that
    # of the whole difference, sigma sqrt(1 / 0.75) rather than half of it.
    games = [PairResult(0, 1, 1.0)] * 3 + [PairResult(1, 0, 1.0)]
    a, b = elo_fit(2, games, prior_draws=0, anchor=0, anchor_value=1500.0)
    assert a.value == pytest.approx(1500.0) and a.error == 0
    assert b.value == pytest.approx(1500.0 - 400 * math.log10(3), abs=1e-6)
    assert b.error == pytest.approx(1.959964 * math.sqrt(1 / 0.75) * ELO, rel=1e-5)


def test_pair_totals_sum_each_ordered_pair() -> None:
    results = [(1, 0, 1.0), (0, 1, 0.5), (0, 1, 1.0), (2, 1, 0.0), (0, 1, 0.0)]
    assert pair_totals(results) == [PairTotal(0, 1, 1.5, 3), PairTotal(1, 0, 1.0, 1), PairTotal(2, 1, 0.0, 1)]
    assert pair_totals([]) == []


def test_the_fit_from_totals_is_the_fit_from_games() -> None:
    # A beats B 5 times of 8 and C twice of 3, with B-C drawn, in both seat orders.
    games = ([PairResult(0, 1, 1.0)] * 3 + [PairResult(1, 0, 1.0)] * 2 + [PairResult(1, 0, 0.0)] * 2
             + [PairResult(0, 1, 0.0)] + [PairResult(2, 0, 0.0)] * 2 + [PairResult(0, 2, 0.0)]
             + [PairResult(1, 2, 0.5)])
    one_order = [PairTotal(0, 1, 5.0, 8), PairTotal(0, 2, 2.0, 3), PairTotal(2, 1, 0.5, 1)]
    both_orders = [PairTotal(0, 1, 4.0, 6), PairTotal(1, 0, 1.0, 2), PairTotal(2, 0, 1.0, 3), PairTotal(1, 2, 0.5, 1)]
    for prior_draws, anchor in ((1.0, None), (0.0, None), (1.0, 2)):
        expected = elo_fit(3, games, prior_draws=prior_draws, anchor=anchor, anchor_value=100.0)
        for totals in (one_order, both_orders):
            got = elo_from_totals(3, totals, prior_draws=prior_draws, anchor=anchor, anchor_value=100.0)
            assert [r.value for r in got] == pytest.approx([r.value for r in expected], abs=1e-9)
            assert [r.error for r in got] == pytest.approx([r.error for r in expected], rel=1e-9)
    a, b, c = elo_fit(3, games, prior_draws=0)
    assert a.value > b.value > c.value


@pytest.mark.parametrize(("totals", "message"), [
    ([PairTotal(0, 3, 1.0, 1)], "numbered 0..2"), ([PairTotal(-1, 0, 1.0, 1)], "numbered 0..2"),
    ([PairTotal(0, 1, 3.0, 2)], "number of games"), ([PairTotal(0, 1, -0.5, 2)], "number of games"),
])
def test_totals_that_cannot_be_are_refused(totals: list[PairTotal], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        elo_from_totals(3, totals)


@pytest.mark.parametrize("points", [2.0, -1.0, math.nan])
def test_a_games_points_lie_in_0_to_1(points: float) -> None:
    with pytest.raises(ValueError, match="outside 0..1"):
        pair_totals([(0, 1, 1.0), (0, 1, points)])


def test_openskill_orders_consistent_finishers() -> None:
    ratings = openskill_ratings(3, [[(0, 1), (1, 2), (2, 3)]] * 20)
    assert ratings[0].value > ratings[1].value > ratings[2].value
    assert all(r.error < 1.96 * 25 / 3 for r in ratings)  # more certain than the prior


# ---- SPRT ---------------------------------------------------------------------------------


def simulate(elo: float, params: SprtParameters, rng: random.Random, draw: float = 0.3,
             cap: int = 5000) -> tuple[str | None, int]:
    """Pairs of games between bots `elo` apart (a draw rate `draw`) until the SPRT decides."""
    p = expected_score(elo)
    stats = PairStats()
    for pairs in range(1, cap + 1):
        points = 0.0
        for _ in range(2):
            r = rng.random()
            points += 1.0 if r < p - draw / 2 else 0.5 if r < p + draw / 2 else 0.0
        stats.add_pair(points)
        if decision := stats.decision(params):
            return decision, pairs
    return None, cap


def test_sprt_rarely_accepts_h1_between_equal_bots() -> None:
    params = SprtParameters(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    rng = random.Random(11)
    results = [simulate(0.0, params, rng) for _ in range(200)]
    false_positives = sum(1 for decision, _ in results if decision == "H1")
    assert all(decision is not None for decision, _ in results)
    assert false_positives / len(results) <= 0.09  # alpha 0.05 plus sampling slack (sd 0.015)


def test_sprt_stops_quickly_on_a_clear_difference() -> None:
    params = SprtParameters(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    rng = random.Random(12)
    results = [simulate(200.0, params, rng) for _ in range(50)]
    assert all(decision == "H1" for decision, _ in results)
    assert max(pairs for _, pairs in results) < 100


def test_sprt_bounds_pentanomial_and_estimates() -> None:
    params = SprtParameters(0, 10, 0.05, 0.05)
    assert params.upper_bound == pytest.approx(math.log(0.95 / 0.05))
    assert params.lower_bound == pytest.approx(math.log(0.05 / 0.95))
    stats = PairStats()
    for points in (2, 1.5, 1, 1, 0.5):
        stats.add_pair(points)
    assert stats.counts == [0, 1, 2, 1, 1]
    assert stats.score() == pytest.approx(6 / 10)
    elo, low, high = stats.elo()
    assert elo == pytest.approx(elo_of_score(0.6)) and low < elo < high
    assert 0.5 < stats.los() < 1
    with pytest.raises(ValueError):
        stats.add_pair(0.7)


@pytest.mark.parametrize(("items", "message"), [
    (["elo0=10", "elo1=5"], "below"), (["alpha=0.7"], "alpha"), (["gamma=1"], "not one of"), (["elo1=x"], "number"),
])
def test_sprt_parameters_are_checked(items: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SprtParameters.parse(items)
