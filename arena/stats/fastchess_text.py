"""A match's figures in the lines fastchess and cutechess-cli print, for the organisers
and scripts that read those: fastchess's pentanomial block (Elo and nElo with their 95%
margins, LOS, DrawRatio, PairsRatio, the game counts, Ptnml(0-2) with the WL/DD ratio,
the LLR) and cutechess's `Score of A vs B: W - L - D  [0.xxx] N`.

The formulas are fastchess's (app/src/elo/elo_pentanomial.cpp): per-pair scores on the
per-game scale, the interval from the score's normal bounds, nElo scaled by the pair
variance. Where fastchess would divide by zero (no pair lost, no double draw) it prints
inf or nan; so do we, as scripts that parse it expect a number-like word there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.stats.sprt import PairStats, SprtDecision, SprtParameters

Z95 = 1.959963984540054
NELO_SCALE = 800 / math.log(10)


def _elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _ratio(top: float, bottom: float) -> float:
    if bottom == 0:
        return math.nan if top == 0 else math.inf
    return top / bottom


def _number(value: float, places: int) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{places}f}"


@dataclass(frozen=True)
class FastchessFigures:
    """The first-named bot's figures over the second from a match's pairs."""

    first: str
    second: str
    stats: PairStats

    @property
    def pairs(self) -> int:
        return self.stats.pairs

    @property
    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """LL, LD, WL+DD, WD, WW: the first bot's pairs of 0, 0.5, 1, 1.5 and 2 points."""
        counts = self.stats.counts
        return counts[0], counts[1], counts[2], counts[3], counts[4]

    def score(self) -> float:
        """The first bot's mean points per game."""
        return sum(count * k / 4 for k, count in enumerate(self.stats.counts)) / self.pairs if self.pairs else 0.5

    def variance(self) -> float:
        """The variance of a pair's per-game score."""
        if not self.pairs:
            return 0.0
        mean = self.score()
        return sum(count * (k / 4 - mean) ** 2 for k, count in enumerate(self.stats.counts)) / self.pairs

    def _bounds(self) -> tuple[float, float]:
        spread = Z95 * math.sqrt(self.variance() / self.pairs) if self.pairs else 0.0
        return self.score() - spread, self.score() + spread

    def elo(self) -> tuple[float, float]:
        """The Elo difference and its 95% margin (half the interval's width)."""
        low, high = self._bounds()
        return _elo(self.score()), (_elo(high) - _elo(low)) / 2.0

    def nelo(self) -> tuple[float, float]:
        """The normalised Elo and its 95% margin (while every pair scored alike, inf
        or nan as fastchess's division by a zero variance gives)."""
        variance = self.variance()
        if variance == 0.0:
            lead = self.score() - 0.5
            return (math.copysign(math.inf, lead) if lead else math.nan), math.nan
        scale = NELO_SCALE / math.sqrt(2 * variance)
        low, high = self._bounds()
        return (self.score() - 0.5) * scale, (high - low) / 2.0 * scale

    def los(self) -> float:
        """The likelihood of superiority, in percent."""
        if not self.pairs:
            return 50.0
        per_pair = self.variance() / self.pairs
        if per_pair == 0.0:
            return 100.0 if self.score() > 0.5 else 0.0 if self.score() < 0.5 else 50.0
        return (1 - math.erf(-(self.score() - 0.5) / math.sqrt(2.0 * per_pair))) / 2.0 * 100.0

    def draw_ratio(self) -> float:
        """Pairs of one point (a win and a loss, or two draws) in percent of the pairs."""
        return self.pentanomial[2] / self.pairs * 100.0 if self.pairs else 0.0

    def pairs_ratio(self) -> float:
        """Pairs won (1.5 or 2 points) over pairs lost (0 or 0.5)."""
        ll, ld, _, wd, ww = self.pentanomial
        return _ratio(ww + wd, ld + ll)

    def wl_dd_ratio(self) -> float:
        """One-point pairs of a win and a loss over those of two draws."""
        wl = self.stats.win_loss_pairs
        return _ratio(wl, self.pentanomial[2] - wl)

    def lines(self, description: str = "", sprt: SprtParameters | None = None) -> list[str]:
        """fastchess's block: `Results of A vs B (description):`, then Elo, LOS, Games,
        Ptnml(0-2) and, with an SPRT, the LLR line."""
        elo, margin = self.elo()
        nelo, nmargin = self.nelo()
        wins, losses, draws = self.stats.games
        games = wins + losses + draws
        points = wins + 0.5 * draws
        share = points / games * 100 if games else 0.0
        head = f"Results of {self.first} vs {self.second}" + (f" ({description})" if description else "") + ":"
        lines = [
            head,
            f"Elo: {_number(elo, 2)} +/- {_number(margin, 2)}, nElo: {_number(nelo, 2)} +/- {_number(nmargin, 2)}",
            f"LOS: {self.los():.2f} %, DrawRatio: {self.draw_ratio():.2f} %, PairsRatio: "
            f"{_number(self.pairs_ratio(), 2)}",
            f"Games: {games}, Wins: {wins}, Losses: {losses}, Draws: {draws}, Points: {points:.1f} ({share:.2f} %)",
            f"Ptnml(0-2): [{', '.join(map(str, self.pentanomial))}], WL/DD Ratio: {_number(self.wl_dd_ratio(), 2)}",
        ]
        if sprt is not None:
            llr = self.stats.llr(sprt)
            lines.append(f"LLR: {llr:.2f} ({llr / sprt.upper_bound * 100:.1f}%) ({sprt.lower_bound:.2f}, "
                         f"{sprt.upper_bound:.2f}) [{sprt.elo0:.2f}, {sprt.elo1:.2f}]")
        return lines

    def score_line(self) -> str:
        """cutechess-cli's `Score of A vs B: W - L - D  [0.xxx] N`."""
        wins, losses, draws = self.stats.games
        games = wins + losses + draws
        share = (wins + 0.5 * draws) / games if games else 0.0
        return f"Score of {self.first} vs {self.second}: {wins} - {losses} - {draws}  [{share:.3f}] {games}"

    def document(self) -> dict[str, object]:
        """The figures for `--json`: nElo with its margin, the ratios, the counts."""
        elo, margin = self.elo()
        nelo, nmargin = self.nelo()
        wins, losses, draws = self.stats.games
        return {"elo": elo, "elo_margin": margin, "nelo": nelo, "nelo_margin": nmargin, "los_percent": self.los(),
                "draw_ratio_percent": self.draw_ratio(), "pairs_ratio": self.pairs_ratio(),
                "wl_dd_ratio": self.wl_dd_ratio(), "wins": wins, "losses": losses, "draws": draws,
                "pentanomial": list(self.pentanomial)}


def sprt_verdict(decision: SprtDecision, params: SprtParameters, candidate: str = "the candidate",
                 baseline: str | None = None) -> str:
    """A decided SPRT as fastchess's users read it: which hypothesis, and what it says
    of the gain (`H0 accepted: the gain is below elo1 = 5 (nearer elo0 = 0)`)."""
    over = f" than {baseline}" if baseline else ""
    of = f" of {candidate} over {baseline}" if baseline else ""
    if decision == SprtDecision.H1:
        return (f"H1 accepted: {candidate} is stronger{over}: the gain is above elo0 = {params.elo0:g} "
                f"(nearer elo1 = {params.elo1:g})")
    return f"H0 accepted: the gain{of} is below elo1 = {params.elo1:g} (nearer elo0 = {params.elo0:g})"
