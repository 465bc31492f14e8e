"""Per-bot result counts shared by match summaries and league standings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ResultTally:
    """Games, wins (sole rank 1), draws (shared rank 1), losses, placings and the game's
    own score of one bot."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    placing: int = 0
    score: float = 0.0

    def add(self, rank: int, firsts: int, score: float | None) -> None:
        """Count one game finished at `rank`, `firsts` seats sharing rank 1."""
        self.games += 1
        self.placing += rank
        if rank == 1 and firsts == 1:
            self.wins += 1
        elif rank == 1:
            self.draws += 1
        else:
            self.losses += 1
        if score is not None:
            self.score += score

    @property
    def mean_placing(self) -> float:
        return self.placing / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.score / self.games if self.games else 0.0
