"""The live terminal view of a running league: progress (done, in flight, ETA), the
current standings, the latest results and each bot's faults; and, for output that is
not a terminal (a log file), the same progress as a plain line now and then."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.text import Text

from arena.league.config import League
from arena.league.runner import LeagueProgress
from arena.league.standings import Standings, compute_standings, restrict, terminal_leaderboard

RECOMPUTE_EVERY_S = 1.0
"""Standings are refitted at most this often (a refit costs milliseconds)."""

LINE_WIDTH = 80
"""A plain progress line fits this many columns (a log read in an 80-column terminal)."""


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def league_standings(league: League, progress: LeagueProgress) -> Standings:
    """The standings of the games finished so far, for the bots the league file names."""
    roster = progress.names or [b.name for b in league.bots]
    shown = [roster.index(b.name) for b in league.bots if b.name in roster]
    names, kept, _ = restrict(roster, list(progress.games), (), shown)
    return compute_standings(names, league.seats, kept, league.game.score_name, anchor=league.anchor)


def timing_text(progress: LeagueProgress) -> str:
    """`elapsed 0:12:03, ETA 1:40:00` (no ETA before the first game of this run ends)."""
    eta = progress.eta_seconds()
    return f"elapsed {_duration(time.monotonic() - progress.started)}" + (
        f", ETA {_duration(eta)}" if eta is not None else ", ETA unknown yet")


class LiveLeagueView:
    """A rich renderable redrawn by rich.live.Live several times a second. The league's
    name has a line of its own, cut to the width: the counts, elapsed time and ETA on
    the next line stay whole at 80 columns whatever the name."""

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
            self._standings = league_standings(self.league, self.progress)
            self._computed_at = now
            self._computed_games = len(games)
        return self._standings

    def __rich__(self) -> RenderableType:
        p = self.progress
        title = Text.assemble((self.league.name, "bold"), f" ({self.league.game.name})", no_wrap=True,
                              overflow="ellipsis")
        status = Text.assemble((f"{p.done}/{p.total}", "bold"), " games done, ", (f"{p.in_flight}", "bold"),
                               " in flight, ", timing_text(p))
        bar = ProgressBar(total=max(p.total, 1), completed=p.done)
        table = terminal_leaderboard(self.standings(), self.max_rows)
        latest = Text("\n".join(p.latest) if p.latest else "no game finished yet", style="dim", overflow="ellipsis",
                      no_wrap=True)
        return Group(title, status, bar, Text(""), table, Text("latest results:", style="bold"), latest)


def _rating(standings: Standings, value: float) -> str:
    if standings.rating_kind != "Elo":
        return f"{value:.1f}"
    absolute = standings.anchor is not None and standings.anchor.value != 0
    whole = round(value)  # an int: no "-0"
    return f"{whole}" if absolute else f"{whole:+d}"


def progress_line(league: League, progress: LeagueProgress, width: int = LINE_WIDTH) -> str:
    """`[34/120] elapsed 0:05:10, ETA 0:13:02 | top: greedy +120, search +80, random -200`:
    a league's progress for a log file, the leaders as many as fit `width` columns."""
    head = f"[{progress.done}/{progress.total}] {timing_text(progress)}"
    if not progress.games:
        return head
    standings = league_standings(league, progress)
    line = f"{head} | top:"
    for number, row in enumerate(standings.rows[:3]):
        if row.games == 0:
            break
        entry = f"{',' if number else ''} {row.name} {_rating(standings, row.rating.value)}"
        if len(line) + len(entry) > width and number:
            break
        line += entry
    return line


@dataclass
class PlainProgress:
    """When the plain progress line is due: after every `every_games` games finished, or
    once `every_s` seconds have passed since the last one (a log that shows the run is
    alive even while long games are played)."""

    every_games: int
    every_s: float = 60.0
    _games: int = 0
    _at: float = field(default_factory=time.monotonic)

    def due(self, done: int, now: float | None = None) -> bool:
        """Whether a line is due with `done` games finished; if so, it is counted as printed."""
        now = time.monotonic() if now is None else now
        if done - self._games >= self.every_games or now - self._at >= self.every_s:
            self._games, self._at = done, now
            return True
        return False
