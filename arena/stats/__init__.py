"""Numbers from results: per-bot tallies, Elo and OpenSkill ratings with intervals, and
the SPRT that stops a match once it has decided.

    from arena.stats import PairStats, SprtParameters
    stats = PairStats([0, 2, 10, 6, 2])          # pentanomial counts of B's pairs
    stats.decision(SprtParameters(elo0=0, elo1=10))

Names load on first use (the ratings need numpy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_names

_WHERE = {
    "elo_fit": "arena.stats.ratings",
    "openskill_ratings": "arena.stats.ratings",
    "Rating": "arena.stats.ratings",
    "PairResult": "arena.stats.ratings",
    "SprtParameters": "arena.stats.sprt",
    "PairStats": "arena.stats.sprt",
    "log_likelihood_ratio": "arena.stats.sprt",
    "expected_score": "arena.stats.sprt",
    "elo_of_score": "arena.stats.sprt",
    "ResultTally": "arena.stats.tally",
}
"""Each public name and the module that defines it."""

__all__ = ["elo_fit", "openskill_ratings", "Rating", "PairResult", "SprtParameters", "PairStats",
           "log_likelihood_ratio", "expected_score", "elo_of_score", "ResultTally"]

if TYPE_CHECKING:
    from arena.stats.ratings import PairResult, Rating, elo_fit, openskill_ratings
    from arena.stats.sprt import PairStats, SprtParameters, elo_of_score, expected_score, log_likelihood_ratio
    from arena.stats.tally import ResultTally


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
