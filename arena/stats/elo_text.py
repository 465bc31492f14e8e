"""How a match's Elo is said to people: always whose it is and over whom, and an
infinite estimate (a bot that has not scored yet) as the bound the games give, with
what it means. `greedy vs random: greedy's Elo +35.2 [+10.1, +60.3]`, or
`greedy's Elo > +484 (95% bound: random has not scored in 50 games)`."""

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

    def document(self) -> dict[str, object]:
        """The figures for a JSON document: whose they are, the estimate (null where
        infinite), the bound and its meaning where it is infinite, and the words."""
        elo, low, high = self.estimate()
        bound = self.bound()
        return {"bot": self.bot, "over": self.other, "elo": elo, "low": low, "high": high,
                "bound": bound, "meaning": self.meaning() if bound else None, "text": self.phrase(),
                "los": self.stats.los(), "pairs": self.stats.pairs, "pentanomial": list(self.stats.counts)}
