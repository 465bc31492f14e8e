"""The live terminal view of a running league: progress (done, in flight, ETA), the
current standings, the latest results and each bot's faults."""

from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.text import Text

from arena.league.config import League
from arena.league.runner import LeagueProgress
from arena.league.standings import Standings, compute_standings, restrict, terminal_leaderboard

RECOMPUTE_EVERY_S = 1.0
"""Standings are refitted at most this often (a refit costs milliseconds)."""


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


class LiveLeagueView:
    """A rich renderable redrawn by rich.live.Live several times a second."""

    def __init__(self, league: League, progress: LeagueProgress, max_rows: int = 12) -> None:
        self.league = league
        self.progress = progress
        self.max_rows = max_rows
        self._standings: Standings | None = None
        self._computed_at = -1.0
        self._computed_games = -1

    def standings(self) -> Standings:
        games = self.progress.games
        now = time.monotonic()
        stale = len(games) != self._computed_games and now - self._computed_at >= RECOMPUTE_EVERY_S
        if self._standings is None or stale:
            roster = self.progress.names or [b.name for b in self.league.bots]
            shown = [roster.index(b.name) for b in self.league.bots if b.name in roster]
            names, kept, _ = restrict(roster, games, (), shown)
            self._standings = compute_standings(names, self.league.seats, kept, self.league.game.score_name,
                                                anchor=self.league.anchor)
            self._computed_at = now
            self._computed_games = len(games)
        return self._standings

    def __rich__(self) -> RenderableType:
        p = self.progress
        eta = p.eta_seconds()
        status = Text.assemble(
            (f"{self.league.name} ", "bold"), f"{self.league.game.name}: ",
            (f"{p.done}/{p.total}", "bold"), " games done, ", (f"{p.in_flight}", "bold"), " in flight, ",
            f"elapsed {_duration(time.monotonic() - p.started)}",
            f", ETA {_duration(eta)}" if eta is not None else "",
        )
        bar = ProgressBar(total=max(p.total, 1), completed=p.done)
        table = terminal_leaderboard(self.standings(), self.max_rows)
        latest = Text("\n".join(p.latest) if p.latest else "no game finished yet", style="dim")
        return Group(status, bar, Text(""), table, Text("latest results:", style="bold"), latest)
