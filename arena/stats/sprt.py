"""The sequential probability ratio test on game pairs, as fastchess and fishtest run it.

Games are played in pairs with the same seed and colours swapped, so a pair's total
for bot B is 0, 0.5, 1, 1.5 or 2 points: the pentanomial counts (single games give
the trinomial W/D/L counts). The test compares H0 "B is elo0 stronger than A" with
H1 "B is elo1 stronger" and stops when the log-likelihood ratio leaves the bounds set
by the error rates alpha (accepting H1 when H0 is true) and beta. The ratio is the
generalised one of Michel Van den Bergh used by fishtest and fastchess: the score
distribution is fitted by maximum likelihood under each hypothesis. Two models say
what "elo stronger" means: `logistic` (the expected score of the Elo formula) and
`normalized` (normalised Elo: the score's distance from 0.5 in standard deviations,
which does not depend on the draw rate; fastchess's `model=normalized`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from arena.stats.ratings import Z95

PAIR_OUTCOMES = 5
"""Pentanomial categories: B scored 0, 0.5, 1, 1.5 or 2 points over the pair."""

MODELS = ("logistic", "normalized")
"""What elo0 and elo1 measure: logistic Elo, or normalised Elo."""

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of t = (score - 0.5) / standard deviation per game."""

_REGULARISE = 1e-3
"""Added to empty pentanomial categories so that the variance never vanishes."""


def expected_score(elo: float) -> float:
    """The logistic model's expected score per game at an Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is `score` (+-inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class SprtDecision(StrEnum):
    """What the SPRT decided; the value ('H0', 'H1') is the text `arena match` and
    `arena sprt` print and write."""

    H0 = "H0"
    """B is not stronger than A by elo0: the candidate is rejected."""
    H1 = "H1"
    """B is stronger than A by elo1: the candidate is accepted."""


@dataclass(frozen=True)
class SprtParameters:
    """Hypotheses (logistic Elo of B over A) and error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model={self.model} is not one of {', '.join(MODELS)}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must lie between 0 and 0.5, not {value:g}")

    @property
    def lower_bound(self) -> float:
        """Below this log-likelihood ratio H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Above this log-likelihood ratio H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    @classmethod
    def parse(cls, items: list[str]) -> SprtParameters:
        """From `elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized` (any subset;
        defaults otherwise)."""
        values: dict[str, float] = {}
        model = "logistic"
        for item in items:
            name, sep, text = item.partition("=")
            if sep and name == "model":
                model = text
                continue
            if not sep or name not in ("elo0", "elo1", "alpha", "beta"):
                raise ValueError(f"{item!r} is not one of elo0=, elo1=, alpha=, beta=, model=")
            try:
                values[name] = float(text)
            except ValueError:
                raise ValueError(f"{name}={text!r} is not a number") from None
        return cls(**values, model=model)

    def describe(self) -> str:
        """`elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic`."""
        return (f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g} "
                f"model={self.model}")

    def llr(self, counts: list[int] | list[float]) -> float:
        """The log-likelihood ratio of H1 over H0 for trinomial (L, D, W) or pentanomial
        (0, 0.5, 1, 1.5, 2 points a pair) counts of B's results."""
        return log_likelihood_ratio(counts, self)

    def decision(self, counts: list[int] | list[float]) -> SprtDecision | None:
        """H1, H0, or None (go on) for these counts."""
        llr = self.llr(counts)
        if llr >= self.upper_bound:
            return SprtDecision.H1
        if llr <= self.lower_bound:
            return SprtDecision.H0
        return None


@dataclass
class PairStats:
    """Pentanomial counts of B's points per pair, and the estimates drawn from them."""

    counts: list[int] = field(default_factory=lambda: [0] * PAIR_OUTCOMES)
    games: list[int] = field(default_factory=lambda: [0, 0, 0])
    """B's wins, losses and draws over the pairs counted with their games' points."""
    win_loss_pairs: int = 0
    """Pairs of one point made of a win and a loss (fastchess's WL; the rest of the
    middle count are two draws, DD), among the pairs counted with their games."""

    def add_pair(self, points_b: float, games: tuple[float, float] | None = None) -> None:
        """Record a pair in which B scored `points_b` (0 to 2 in steps of 0.5); with
        `games`, B's points in each of its two games, for the win, loss and draw counts
        and the WL/DD split of fastchess's report."""
        index = round(points_b * 2)
        if not 0 <= index < PAIR_OUTCOMES or abs(index / 2 - points_b) > 1e-9:
            raise ValueError(f"a pair score must be 0, 0.5, 1, 1.5 or 2, not {points_b}")
        self.counts[index] += 1
        if games is not None:
            for points in games:
                self.games[0 if points == 1 else 1 if points == 0 else 2] += 1
            if sorted(games) == [0, 1]:
                self.win_loss_pairs += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def _moments(self, regularise: bool) -> tuple[float, float, float]:
        """Total weight, mean and variance of the per-game score of B over pairs."""
        counts = [c if c or not regularise else _REGULARISE for c in self.counts]
        total = sum(counts)
        if total == 0:
            return 0.0, 0.5, 0.0
        scores = [k / 4 for k in range(PAIR_OUTCOMES)]  # per-game score of each category
        mean = sum(c * s for c, s in zip(counts, scores)) / total
        variance = sum(c * (s - mean) ** 2 for c, s in zip(counts, scores)) / total
        return total, mean, variance

    def llr(self, params: SprtParameters) -> float:
        """The generalised log-likelihood ratio of H1 over H0 (fishtest's method)."""
        return log_likelihood_ratio(self.counts, params)

    def score(self) -> float:
        """B's mean score per game."""
        return self._moments(regularise=False)[1]

    def elo(self) -> tuple[float, float, float]:
        """B's Elo over A with the ends of its 95% interval."""
        total, mean, variance = self._moments(regularise=False)
        if total == 0:
            return 0.0, -math.inf, math.inf
        error = Z95 * math.sqrt(variance / total)
        return elo_of_score(mean), elo_of_score(mean - error), elo_of_score(mean + error)

    def los(self) -> float:
        """Likelihood of superiority: the probability that B is stronger than A."""
        total, mean, variance = self._moments(regularise=False)
        if total == 0:
            return 0.5
        if variance == 0.0:
            return 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
        return normal_cdf((mean - 0.5) / math.sqrt(variance / total))

    def decision(self, params: SprtParameters) -> SprtDecision | None:
        """H1 (B is stronger by elo1), H0 (not stronger than elo0), or None (go on)."""
        return params.decision(self.counts)


@dataclass(frozen=True)
class Estimate:
    """What counts of B's results say of B against A: its mean score per game, its Elo
    with the ends of the 95% interval (logistic; infinite where A or B never scored),
    its normalised Elo, and the likelihood of superiority."""

    games: int
    score: float
    elo: float
    low: float
    high: float
    nelo: float
    los: float


def estimate(counts: list[int]) -> Estimate:
    """The estimates from trinomial (L, D, W) or pentanomial counts; with pairs, the
    interval and the normalised Elo come from the variance between pairs (whose two
    games are not independent), as fastchess and fishtest compute them."""
    if len(counts) not in (3, PAIR_OUTCOMES):
        raise ValueError(f"give 3 (L D W) or 5 (pentanomial) counts, not {len(counts)}")
    units = sum(counts)
    games = units * (2 if len(counts) == PAIR_OUTCOMES else 1)
    if units == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.0, 0.5)
    scores = [k / (len(counts) - 1) for k in range(len(counts))]
    mean = sum(c * a for c, a in zip(counts, scores)) / units
    variance = sum(c * (a - mean) ** 2 for c, a in zip(counts, scores)) / units
    error = Z95 * math.sqrt(variance / units)
    per_game = math.sqrt(variance * (2 if len(counts) == PAIR_OUTCOMES else 1))
    if per_game == 0:  # every game (pair) alike: no spread to measure the distance in
        nelo = 0.0 if mean == 0.5 else math.copysign(math.inf, mean - 0.5)
    else:
        nelo = (mean - 0.5) / per_game * NELO_PER_T
    if variance == 0.0:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    else:
        los = normal_cdf((mean - 0.5) / math.sqrt(variance / units))
    return Estimate(games, mean, elo_of_score(mean), elo_of_score(mean - error), elo_of_score(mean + error), nelo, los)


def log_likelihood_ratio(counts: list[int] | list[float], params: SprtParameters) -> float:
    """The GSPRT's log-likelihood ratio for trinomial (3) or pentanomial (5) counts,
    ordered from B's worst result to its best. Empty categories get a small weight so
    that the fitted distributions never vanish."""
    if len(counts) not in (3, PAIR_OUTCOMES):
        raise ValueError(f"give 3 (L D W) or 5 (pentanomial) counts, not {len(counts)}")
    if any(c < 0 for c in counts):
        raise ValueError("counts cannot be negative")
    if sum(counts) == 0:
        return 0.0
    weights = [c if c else _REGULARISE for c in counts]
    total = sum(weights)
    observed = [c / total for c in weights]
    scores = [k / (len(counts) - 1) for k in range(len(counts))]
    if params.model == "normalized":
        scale = math.sqrt(2.0) if len(counts) == PAIR_OUTCOMES else 1.0  # t per pair, from t per game
        under_h0 = _fit_with_t(observed, scores, scale * params.elo0 / NELO_PER_T)
        under_h1 = _fit_with_t(observed, scores, scale * params.elo1 / NELO_PER_T)
    else:
        under_h0 = _fit_with_mean(observed, scores, expected_score(params.elo0))
        under_h1 = _fit_with_mean(observed, scores, expected_score(params.elo1))
    return total * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(observed, under_h0, under_h1))


def _tilted(observed: list[float], phi: list[float]) -> list[float]:
    """The distribution q_i = p_i / (1 + x phi_i) closest to `observed` under the
    constraint sum q_i phi_i = 0 (x is the Lagrange multiplier, found by bisection:
    the constraint falls as x grows, and 1 + x phi_i stays positive)."""

    def excess(x: float) -> float:
        return sum(p * f / (1.0 + x * f) for p, f in zip(observed, phi))

    low, high = -1.0 / max(phi) + 1e-12, -1.0 / min(phi) - 1e-12
    for _ in range(80):  # to double precision
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    weights = [p / (1.0 + x * f) for p, f in zip(observed, phi)]
    norm = sum(weights)
    return [w / norm for w in weights]


def _fit_with_t(observed: list[float], scores: list[float], t: float) -> list[float]:
    """The distribution closest to `observed` (maximum likelihood) whose normalised
    score (mean - 0.5) / sd is `t`: Van den Bergh's fixed point, each step tilting
    `observed` under the constraint linearised at the last fit, from the uniform one."""
    fitted = [1.0 / len(scores)] * len(scores)
    for _ in range(200):
        mean = sum(p * a for p, a in zip(fitted, scores))
        sd = math.sqrt(sum(p * (a - mean) ** 2 for p, a in zip(fitted, scores)))
        updated = _tilted(observed, [a - 0.5 - 0.5 * t * sd * (1.0 + ((a - mean) / sd) ** 2) for a in scores])
        change = max(abs(u - f) for u, f in zip(updated, fitted))
        fitted = updated
        if change < 1e-12:
            break
    return fitted


def _fit_with_mean(observed: list[float], scores: list[float], mean: float) -> list[float]:
    """The distribution closest to `observed` (maximum likelihood) whose mean score is
    `mean`."""
    return _tilted(observed, [a - mean for a in scores])
