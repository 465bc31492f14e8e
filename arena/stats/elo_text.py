"""How a match's Elo is said to people: always whose it is and over whom, and an
infinite estimate (a bot that has not scored yet) as the bound the games give, with
what it means. `greedy vs random: greedy's Elo +35.2 [+10.1, +60.3]`, or
`greedy's Elo > +484 (95% bound: random has not scored in 50 games)`. While a match
runs, its line is made to fit the terminal (80 columns in a log): `greedy's Elo +35
[+10, +60] over random, LOS 99.0%, pairs 25, LLR 1.23`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.stats.sprt import PairStats, SprtParameters, elo_of_score

CONFIDENCE = 0.95


def one_sided_bound(games: int) -> float:
    """The Elo that a bot which won all of `games` is above with 95% confidence: the
    exact one-sided bound on its score (0.05 ** (1 / games)), as Elo."""
    return elo_of_score((1.0 - CONFIDENCE) ** (1.0 / games)) if games > 0 else 0.0


def signed(elo: float) -> str:
    return f"{elo:+.1f}"


@dataclass(frozen=True)
class MatchElo:
    """The Elo of `bot` over `other` from the pairs of a match, said in words."""

    bot: str
    other: str
    stats: PairStats

    @property
    def games(self) -> int:
        return 2 * self.stats.pairs

    def estimate(self) -> tuple[float, float, float]:
        """The Elo of `bot` over `other` and the ends of its 95% interval (may be infinite)."""
        return self.stats.elo()

    def bound(self) -> str | None:
        """`> +484` or `< -484` when the estimate is infinite (one bot has not scored),
        else None."""
        elo = self.estimate()[0]
        if self.stats.pairs == 0 or math.isfinite(elo):
            return None
        limit = one_sided_bound(self.games)
        return f"> {signed(limit)}" if elo > 0 else f"< {signed(-limit)}"

    def meaning(self) -> str:
        """Why an estimate is a bound: who has not scored, in how many games."""
        loser = self.other if self.estimate()[0] > 0 else self.bot
        return f"95% bound: {loser} has not scored in {self.games} games"

    def figure(self) -> str:
        """`+35.2 [+10.1, +60.3]`, `> +484 (95% bound: ...)` or `not measured yet`."""
        if self.stats.pairs == 0:
            return "not measured yet (no pair finished)"
        bound = self.bound()
        if bound is not None:
            return f"{bound} ({self.meaning()})"
        elo, low, high = self.estimate()
        low_text = signed(low) if math.isfinite(low) else "no lower bound"
        high_text = signed(high) if math.isfinite(high) else "no upper bound"
        return f"{signed(elo)} [{low_text}, {high_text}]"

    def phrase(self) -> str:
        """`greedy's Elo +35.2 [+10.1, +60.3]`: the figure with its subject."""
        return f"{self.bot}'s Elo {self.figure()}"

    def line(self, params: SprtParameters | None = None) -> str:
        """The whole line of a match's state: `greedy vs random: greedy's Elo ..., LOS
        99.0%, pairs 25 (pentanomial 0 0 1 4 20), LLR 1.23 (bounds -2.94, 2.94)`."""
        stats = self.stats
        text = (f"{self.bot} vs {self.other}: {self.phrase()}, LOS {stats.los() * 100:.1f}%, pairs {stats.pairs} "
                f"(pentanomial {' '.join(map(str, stats.counts))})")
        if params is not None:
            text += f", LLR {stats.llr(params):.2f} (bounds {params.lower_bound:.2f}, {params.upper_bound:.2f})"
        return text

    def fitted_line(self, width: int, params: SprtParameters | None = None) -> str:
        """The match's state within `width` columns: the whole line when it fits, else
        `greedy's Elo +35.2 [+10.1, +60.3] over random, LOS 99.0%, pairs 25, LLR 1.23
        (-2.94, 2.94)`, shortened until it fits (the LLR's bounds dropped, the Elo
        rounded, then the names cut). The whole line is the match's final report's."""
        whole = self.line(params)
        if len(whole) <= width:
            return whole
        shorter = whole
        for digits, bounds in ((1, True), (1, False), (0, False)):
            shorter = self._compact(self.bot, self.other, digits, params, bounds)
            if len(shorter) <= width:
                return shorter
        for keep in range(max(len(self.bot), len(self.other)) - 1, 3, -1):
            shorter = self._compact(_cut(self.bot, keep), _cut(self.other, keep), 0, params, False)
            if len(shorter) <= width:
                break
        return shorter

    def _compact(self, bot: str, other: str, digits: int, params: SprtParameters | None, bounds: bool) -> str:
        stats = self.stats
        text = (f"{bot}'s Elo {self._short_figure(digits)} over {other}, LOS {stats.los() * 100:.1f}%, "
                f"pairs {stats.pairs}")
        if params is not None:
            text += f", LLR {stats.llr(params):.2f}"
            if bounds:
                text += f" ({params.lower_bound:.2f}, {params.upper_bound:.2f})"
        return text

    def _short_figure(self, digits: int) -> str:
        """The figure without the words a bound's meaning takes (`> +484.6`)."""
        if self.stats.pairs == 0:
            return "not measured yet"
        bound = self.bound()
        if bound is not None:
            return bound
        elo, low, high = self.estimate()
        ends = [f"{end:+.{digits}f}" if math.isfinite(end) else "none" for end in (low, high)]
        return f"{elo:+.{digits}f} [{ends[0]}, {ends[1]}]"

    def document(self) -> dict[str, object]:
        """The figures for a JSON document: whose they are, the estimate (null where
        infinite), the bound and its meaning where it is infinite, and the words."""
        elo, low, high = self.estimate()
        bound = self.bound()
        return {"bot": self.bot, "over": self.other, "elo": elo, "low": low, "high": high,
                "bound": bound, "meaning": self.meaning() if bound else None, "text": self.phrase(),
                "los": self.stats.los(), "pairs": self.stats.pairs, "pentanomial": list(self.stats.counts)}


def _cut(name: str, keep: int) -> str:
    """A name cut to `keep` characters, its last one an ellipsis where it was cut."""
    return name if len(name) <= keep else name[:keep - 1] + "\N{HORIZONTAL ELLIPSIS}"
