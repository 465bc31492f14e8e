"""Ratings a ladder can keep up to date one game at a time.

A ladder stores games as they finish and must answer its leaderboard at once, so nothing
here refits every game per request:

- OpenSkill (`rate_game`): each bot version's `Skill` (mu, sigma) is updated by one game
  at a time with openskill's Plackett-Luce model, for any seat count; the store keeps the
  current mu/sigma and a history row per game. One parameter differs from openskill's
  defaults (and the league tables'): no dynamics (tau = 0). A version is fixed code whose
  skill does not drift, so its uncertainty should keep shrinking with its games; with
  openskill's default tau sigma stops near 2.6 after some 50 games, and mu then wanders
  with the latest results (a bot with the best record was seen last on the board).
- Elo for 2-seat tables (`elo_table`): the whole-set maximum-likelihood fit of
  `arena.stats.ratings` (a draw is half a win, one virtual draw per pairing that met,
  95% intervals from the curvature), which reads only per-pair totals, so its cost depends
  on the number of pairs that met, not on the number of games; a store sums the totals in
  SQL and calls `elo_from_totals`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.stats.ratings import PairTotal as PairTotal
from arena.stats.ratings import Rating, pair_totals
from arena.stats.ratings import elo_from_totals as elo_from_totals

if TYPE_CHECKING:
    from openskill.models import PlackettLuce

MODEL_MU = 25.0
"""Openskill's default prior mean (the Plackett-Luce model's `mu`); a test checks it."""

MODEL_SIGMA = MODEL_MU / 3
"""Openskill's default prior uncertainty (the model's `sigma`)."""

MODEL_BETA = MODEL_SIGMA / 2
"""Openskill's default performance noise (the model's `beta`): two bots whose mu differ by
about beta are a fair but not even match; matchmaking measures closeness with it."""


@dataclass(frozen=True)
class Skill:
    """One bot version's OpenSkill belief: mean `mu` and uncertainty `sigma`."""

    mu: float
    sigma: float

    def interval(self) -> tuple[float, float]:
        """mu - 2 sigma .. mu + 2 sigma: about a 95% interval for the bot's true skill."""
        return (self.mu - 2 * self.sigma, self.mu + 2 * self.sigma)

    def ordinal(self) -> float:
        """mu - 3 sigma: the conservative value leaderboards sort by, so that a new version
        with few games does not top the table on luck."""
        return self.mu - 3 * self.sigma


@functools.cache
def _model() -> PlackettLuce:
    from openskill.models import PlackettLuce

    return PlackettLuce(tau=0.0)


def initial_skill() -> Skill:
    """The prior every new version starts from (mu 25, sigma 25/3)."""
    return Skill(MODEL_MU, MODEL_SIGMA)


def rate_game(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """Every seat's skill after one game (OpenSkill's Plackett-Luce model, as
    `arena.stats.ratings.openskill_ratings`), seats in the order given; rank 1 is first
    and seats that tie share a rank."""
    if len(skills) != len(ranks):
        raise ValueError(f"{len(skills)} skills but {len(ranks)} ranks: give one rank per seat")
    if len(skills) < 2:
        raise ValueError("a rated game needs at least two seats")
    model = _model()
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]


def elo_table(bots: int, results: Iterable[tuple[int, int, float]]) -> list[Rating]:
    """Elo with 95% intervals for a 2-seat table from per-game results (a, b, points of a:
    1, 0.5 or 0), bots numbered 0..bots-1; the same ratings as `elo_fit` over those games.

    Measured with 100 bots and 100,000 games (all 9,900 ordered pairs met) on the 2-core
    development machine: about 0.06 s, of which summing the games per pair (`pair_totals`) is
    about 0.03 s and the fit (`elo_from_totals`) the rest. It is still not for every request:
    the pages compute it in a background thread and cache it.
    """
    return elo_from_totals(bots, pair_totals(results))
