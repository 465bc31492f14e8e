"""Numbers from results: per-bot tallies, Elo and OpenSkill ratings with intervals, and
the SPRT that stops a match once it has decided.

    from arena.stats import PairStats, SprtParameters
    stats = PairStats([0, 2, 10, 6, 2])          # pentanomial counts of B's pairs
    stats.decision(SprtParameters(elo0=0, elo1=10))

Names load on first use (the ratings need numpy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_names

if TYPE_CHECKING:  # The public names, written once: arena.lazy reads this block.
    from arena.stats.ratings import PairResult as PairResult
    from arena.stats.ratings import Rating as Rating
    from arena.stats.ratings import elo_fit as elo_fit
    from arena.stats.ratings import openskill_ratings as openskill_ratings
    from arena.stats.sprt import PairStats as PairStats
    from arena.stats.sprt import SprtDecision as SprtDecision
    from arena.stats.sprt import SprtParameters as SprtParameters
    from arena.stats.sprt import elo_of_score as elo_of_score
    from arena.stats.sprt import expected_score as expected_score
    from arena.stats.sprt import log_likelihood_ratio as log_likelihood_ratio
    from arena.stats.tally import ResultTally as ResultTally

__getattr__, __dir__, __all__ = lazy_names(__name__)
