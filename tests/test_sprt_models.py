"""The SPRT's two models (logistic and normalised Elo) on trinomial and pentanomial
counts, checked against the normal approximation of the log-likelihood ratio that the
exact (maximum-likelihood) ratio tends to on large samples."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats.sprt import NELO_PER_T, PairStats, SprtParameters, expected_score


def _moments(counts: list[int]) -> tuple[int, float, float]:
    """Count, mean and variance of the per-game (3 counts) or per-pair-game (5) score."""
    scores = [k / (len(counts) - 1) for k in range(len(counts))]
    n = sum(counts)
    mean = sum(c * a for c, a in zip(counts, scores)) / n
    return n, mean, sum(c * (a - mean) ** 2 for c, a in zip(counts, scores)) / n


@pytest.mark.parametrize("counts", [[3000, 4000, 3300], [500, 1500, 3000, 1700, 600]])
def test_the_normalized_llr_tends_to_its_normal_approximation(counts: list[int]) -> None:
    params = SprtParameters(0, 5, model="normalized")
    n, mean, variance = _moments(counts)
    t = (mean - 0.5) / math.sqrt(variance)
    scale = math.sqrt(2) if len(counts) == 5 else 1.0
    t0, t1 = scale * params.elo0 / NELO_PER_T, scale * params.elo1 / NELO_PER_T
    approximation = n * (t1 - t0) * (t - (t0 + t1) / 2)
    assert params.llr(counts) == pytest.approx(approximation, rel=0.01)


@pytest.mark.parametrize("counts", [[3000, 4000, 3300], [500, 1500, 3000, 1700, 600]])
def test_the_logistic_llr_tends_to_its_normal_approximation(counts: list[int]) -> None:
    params = SprtParameters(0, 5)
    n, mean, variance = _moments(counts)
    s0, s1 = expected_score(params.elo0), expected_score(params.elo1)
    approximation = n / (2 * variance) * ((mean - s0) ** 2 - (mean - s1) ** 2)
    assert params.llr(counts) == pytest.approx(approximation, rel=0.01)


def test_normalized_elo_does_not_depend_on_the_draw_rate() -> None:
    """Two samples with the same t (score distance from 0.5 in standard deviations) but
    very different draw rates give the same normalised LLR; the logistic LLRs differ."""
    few_draws = [4000, 1000, 5000]  # W - L = 1000 of 10000, high variance
    n, mean, variance = _moments(few_draws)
    t = (mean - 0.5) / math.sqrt(variance)
    draws = 8000  # find W, L with the same n and t but 80% draws
    wins = 1000 + next(w for w in range(1000) if _t([1000 - w, draws, 1000 + w]) >= t)
    many_draws = [2000 - wins, draws, wins]
    normalized = SprtParameters(0, 5, model="normalized")
    logistic = SprtParameters(0, 5)
    assert normalized.llr(many_draws) == pytest.approx(normalized.llr(few_draws), rel=0.03)
    assert abs(logistic.llr(many_draws) - logistic.llr(few_draws)) > 0.3 * abs(logistic.llr(few_draws))


def _t(counts: list[int]) -> float:
    _, mean, variance = _moments(counts)
    return (mean - 0.5) / math.sqrt(variance)


def test_pair_stats_follow_the_model_of_the_parameters() -> None:
    stats = PairStats()
    for points in [2, 1.5, 1.5, 1, 1, 1, 0.5, 2, 1.5, 1]:
        stats.add_pair(points)
    normalized = SprtParameters(0, 10, model="normalized")
    assert stats.llr(normalized) == pytest.approx(normalized.llr(stats.counts))
    assert stats.llr(normalized) != pytest.approx(stats.llr(SprtParameters(0, 10)))


def test_the_normalized_sprt_keeps_its_error_rates() -> None:
    params = SprtParameters(0, 60, alpha=0.05, beta=0.05, model="normalized")
    rng = random.Random(5)

    def run(score: float) -> str:
        counts = [0, 0, 0]
        while (decision := params.decision(counts)) is None:
            r = rng.random()
            counts[2 if r < score - 0.2 else 1 if r < score + 0.2 else 0] += 1
        return decision

    equal = [run(0.5) for _ in range(60)]
    assert equal.count("H1") / len(equal) <= 0.12  # alpha 0.05 with sampling slack (sd 0.028)
    clearly_better = [run(0.6) for _ in range(10)]
    assert clearly_better.count("H1") == 10


@pytest.mark.parametrize(("items", "message"), [
    (["model=bayes"], "logistic, normalized"), (["model="], "not one of"), (["elo0=1", "model"], "model="),
])
def test_the_model_is_checked(items: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SprtParameters.parse(items)


def test_parameters_parse_and_describe_the_model() -> None:
    params = SprtParameters.parse(["elo1=5", "model=normalized"])
    assert (params.elo0, params.elo1, params.model) == (0, 5, "normalized")
    assert params.describe() == "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"


@pytest.mark.parametrize(("counts", "message"), [([1, 2], r"3 \(L D W\) or 5"), ([1, -1, 3], "negative")])
def test_counts_are_checked(counts: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SprtParameters().llr(counts)
