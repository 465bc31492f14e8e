"""Ratings with honest uncertainty, fitted to a whole set of games.

Two seats: Elo fitted to all games at once by maximum likelihood (the Bradley-Terry
model that BayesElo and Ordo fit; a draw counts as half a win), so the order in which
games finished does not matter. A weak prior of one virtual draw per pairing that met
keeps a bot that won every game at a finite rating. The 95% interval comes from the
curvature of the likelihood (the inverse Fisher information), with ratings anchored
at an average of zero, or at one bot's pinned value (`anchor`): the others' intervals
are then those of their difference from that bot, so tables of different nights that
pin the same bot compare.

Three or more seats: OpenSkill's Plackett-Luce model (the openskill package), which
rates whole finishing orders; its interval is mu +- 1.96 sigma.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

ELO_PER_NATURAL_UNIT = 400 / math.log(10)
"""Elo points per unit of the logistic model's natural scale."""


@dataclass(frozen=True)
class Rating:
    """A rating with the half-width of its 95% interval (rating - error .. rating + error)."""

    value: float
    error: float


@dataclass(frozen=True)
class PairResult:
    """One 2-seat game for the Elo fit: bot indices and the first bot's score (1, 0.5, 0)."""

    first: int
    second: int
    score: float


def elo_fit(bots: int, games: Sequence[PairResult], prior_draws: float = 1.0,
            iterations: int = 100, anchor: int | None = None, anchor_value: float = 0.0) -> list[Rating]:
    """Maximum-likelihood Elo of every bot (average 0) with 95% intervals.

    `prior_draws` virtual draws are added to every pairing that played at least once;
    0 gives the plain MLE (which diverges for a bot that won every game). A bot that
    played no game gets rating 0 with an infinite error. With `anchor` (a bot that
    played), that bot's rating is `anchor_value` exactly (error 0) and every other's
    interval is that of its difference from the anchor."""
    wins = np.zeros((bots, bots))  # wins[i, j]: points i scored against j
    for g in games:
        wins[g.first, g.second] += g.score
        wins[g.second, g.first] += 1.0 - g.score
    played = wins + wins.T
    if prior_draws:
        met = played > 0
        wins = wins + met * (prior_draws / 2)
        played = wins + wins.T
    beta = np.zeros(bots)
    hessian = np.zeros((bots, bots))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(beta[None, :] - beta[:, None]))  # p[i, j]: i beats j
        gradient = (wins - played * p).sum(axis=1)
        weight = played * p * (1 - p)
        hessian = np.diag(weight.sum(axis=1)) - weight
        step = np.linalg.pinv(hessian) @ gradient
        beta = beta + step
        beta -= beta.mean()
        if float(np.abs(step).max()) < 1e-10:
            break
    covariance = np.linalg.pinv(hessian)
    if anchor is not None and played[anchor].sum() == 0:
        anchor = None  # a bot without games cannot carry the scale
    shift = 0.0 if anchor is None else anchor_value - float(beta[anchor]) * ELO_PER_NATURAL_UNIT
    ratings = []
    for i in range(bots):
        if played[i].sum() == 0:
            ratings.append(Rating(0.0 + shift, math.inf))
            continue
        variance = float(covariance[i, i])
        if anchor is not None:
            variance += float(covariance[anchor, anchor]) - 2 * float(covariance[i, anchor])
        sigma = math.sqrt(max(variance, 0.0))
        ratings.append(Rating(float(beta[i]) * ELO_PER_NATURAL_UNIT + shift, Z95 * sigma * ELO_PER_NATURAL_UNIT))
    return ratings


def anchored(ratings: list[Rating], anchor: int, value: float) -> list[Rating]:
    """Ratings moved together so that bot `anchor` has `value` (its interval then 0);
    the others keep their intervals (OpenSkill's are each bot's own)."""
    if math.isinf(ratings[anchor].error):
        return ratings
    shift = value - ratings[anchor].value
    return [Rating(value, 0.0) if i == anchor else Rating(r.value + shift, r.error) for i, r in enumerate(ratings)]


def openskill_ratings(bots: int, games: Sequence[Sequence[tuple[int, int]]]) -> list[Rating]:
    """OpenSkill Plackett-Luce ratings (mu, 95% half-width 1.96 sigma), games applied
    in the order given; each game lists (bot, rank) for every seat."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating() for _ in range(bots)]
    for game in games:
        teams = [[current[bot]] for bot, _ in game]
        rated = model.rate(teams, ranks=[float(rank) for _, rank in game])
        for (bot, _), team in zip(game, rated, strict=True):
            current[bot] = team[0]
    return [Rating(float(r.mu), Z95 * float(r.sigma)) for r in current]
