"""Leagues: a TOML file describes bots, game and schedule; the runner plays the
scheduled games through the match layer ("play these games between these bots"),
stores each finished game in SQLite at once, and resumes after any interruption; the
standings turn the stored games into a leaderboard with ratings and intervals.

For Python, `arena.league.run(path)` runs (or resumes) a league as `arena league run`
does and returns its standings, and `arena.league.table(path)` gives the standings so
far, as `arena league table` does (docs/library.md). Both are the session layer's
(arena.session.league: run_league, league_table), which sits above this package: they
are looked up there when first asked for, so that nothing of this layer imports a
layer above it (tests/test_layers.py) and `import arena.league.config` stays light."""

from __future__ import annotations

import importlib
from typing import Any

SESSION_NAMES = {"run": "run_league", "table": "league_table"}
"""The public names of this package that the session layer defines, and their names
there."""


def __getattr__(name: str) -> Any:
    """`run` and `table`, from arena.session.league on first use (PEP 562)."""
    if name not in SESSION_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("arena.session.league"), SESSION_NAMES[name])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *SESSION_NAMES})
