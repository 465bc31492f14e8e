"""The ladder's incremental ratings: OpenSkill one game at a time through the league's model,
and Elo from per-game results or per-pair totals through arena.stats.ratings' fit, which equals
`elo_fit` over every game."""

from __future__ import annotations

import math
import random

import pytest

from arena.ladder.ratings import (
    MODEL_BETA,
    MODEL_MU,
    MODEL_SIGMA,
    PairTotal,
    Skill,
    elo_from_totals,
    elo_table,
    initial_skill,
    rate_game,
)
from arena.stats.ratings import PairResult, elo_fit


def test_the_constants_are_the_models_defaults() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    assert (MODEL_MU, MODEL_SIGMA, MODEL_BETA) == pytest.approx((model.mu, model.sigma, model.beta))
    assert initial_skill() == Skill(model.mu, model.sigma)


def test_interval_is_two_sigma_and_ordinal_three() -> None:
    skill = Skill(30.0, 2.0)
    assert skill.interval() == (26.0, 34.0)
    assert skill.ordinal() == 24.0


def test_the_winner_rises_the_loser_falls_and_both_grow_certain() -> None:
    winner, loser = rate_game([initial_skill(), initial_skill()], [1, 2])
    assert winner.mu > MODEL_MU > loser.mu
    assert winner.sigma < MODEL_SIGMA and loser.sigma < MODEL_SIGMA


def test_seats_that_tie_share_the_result() -> None:
    a, b, c = rate_game([initial_skill()] * 3, [1, 1, 2])
    assert a == b and a.mu > c.mu
    draw = rate_game([initial_skill(), initial_skill()], [1, 1])
    assert draw[0] == draw[1] and draw[0].mu == pytest.approx(MODEL_MU)


def test_game_by_game_is_openskills_plackett_luce_without_dynamics() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    rng = random.Random(5)
    games = [list(zip(rng.sample(range(4), 3), (1, 2, 3), strict=True)) for _ in range(30)]
    skills = [initial_skill()] * 4
    reference = [[model.rating()] for _ in range(4)]
    for game in games:
        seats = [bot for bot, _ in game]
        for bot, skill in zip(seats, rate_game([skills[b] for b in seats], [r for _, r in game]), strict=True):
            skills[bot] = skill
        rated = model.rate([reference[b] for b in seats], ranks=[float(r) for _, r in game])
        for bot, team in zip(seats, rated, strict=True):
            reference[bot] = team
    for skill, team in zip(skills, reference, strict=True):
        assert skill.mu == pytest.approx(team[0].mu) and skill.sigma == pytest.approx(team[0].sigma)


@pytest.mark.parametrize("seed", range(5))
def test_a_fixed_versions_uncertainty_keeps_shrinking_and_its_mu_follows_a_clear_record(seed: int) -> None:
    """400 games between two versions in a random order, the first scoring 65%: its mu
    ends above the other's, and sigma shrinks game after game (with openskill's default
    dynamics it would stop near 2.6: a version's skill does not drift). Updated game by
    game, mu still leans to the latest games: at 55% the order of five seeds was seen
    to flip once (the Elo column, fitted over all games at once, does not)."""
    rng = random.Random(seed)
    results = [1] * 260 + [2] * 140
    rng.shuffle(results)
    a, b = initial_skill(), initial_skill()
    sigmas = []
    for rank in results:
        a, b = rate_game([a, b], [rank, 3 - rank])
        sigmas.append(a.sigma)
    assert a.mu > b.mu
    assert all(later < earlier for earlier, later in zip(sigmas, sigmas[1:]))
    assert sigmas[-1] < 1.5 and sigmas[99] > sigmas[-1] * 1.5


def test_rate_game_refuses_mismatched_ranks() -> None:
    with pytest.raises(ValueError, match="one rank per seat"):
        rate_game([initial_skill()] * 2, [1])


def test_three_quarters_of_400_games_is_about_190_elo() -> None:
    results = [(0, 1, 1.0)] * 300 + [(1, 0, 1.0)] * 100
    a, b = elo_table(2, results)
    difference = a.value - b.value
    assert difference == pytest.approx(400 * math.log10(300.5 / 100.5), abs=0.01)  # the prior: one virtual draw
    assert 185 < difference < 195
    # Each bot's interval is around the average of the two, so the difference's half-width
    # is twice a bot's; it still contains 190.8, the difference of a 75% score.
    assert 0 < a.error < 100
    assert difference - 2 * a.error < 400 * math.log10(3) < difference + 2 * a.error
    assert a.value - a.error < 400 * math.log10(3) / 2 < a.value + a.error


def test_elo_table_equals_elo_fit_over_the_same_games() -> None:
    rng = random.Random(7)
    results = [(a, b, rng.choice((0.0, 0.5, 1.0))) for a, b in (rng.sample(range(5), 2) for _ in range(300))]
    results += [(5, 0, 1.0)] * 4  # bot 5 won every game it played; bot 6 played none
    expected = elo_fit(7, [PairResult(a, b, points) for a, b, points in results])
    got = elo_table(7, results)
    for mine, theirs in zip(got, expected, strict=True):
        assert mine.value == pytest.approx(theirs.value, abs=1e-9)
        assert mine.error == pytest.approx(theirs.error, rel=1e-9)
    assert math.isinf(got[6].error) and got[6].value == 0


def test_totals_give_the_same_table_as_the_games() -> None:
    results = [(0, 1, 1.0), (0, 1, 0.5), (1, 0, 1.0), (1, 2, 0.0), (2, 1, 1.0), (0, 2, 1.0)]
    totals = [PairTotal(0, 1, 1.5, 2), PairTotal(1, 0, 1.0, 1), PairTotal(2, 1, 2.0, 2), PairTotal(0, 2, 1.0, 1)]
    from_totals, from_games = elo_from_totals(3, totals), elo_table(3, results)
    assert [r.value for r in from_totals] == pytest.approx([r.value for r in from_games])
    assert [r.error for r in from_totals] == pytest.approx([r.error for r in from_games])


def test_an_empty_table_rates_nobody() -> None:
    assert all(math.isinf(r.error) for r in elo_table(3, []))


@pytest.mark.parametrize(("results", "message"), [([(0, 3, 1.0)], "numbered 0..2"), ([(0, 1, 2.0)], "outside 0..1")])
def test_elo_table_refuses_bad_results(results: list[tuple[int, int, float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        elo_table(3, results)


def test_totals_refuse_more_points_than_games() -> None:
    with pytest.raises(ValueError, match="number of games"):
        elo_from_totals(2, [PairTotal(0, 1, 3.0, 2)])
