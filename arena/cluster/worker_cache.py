"""Where a worker keeps what the league command sends it: unpacked bot folders (by
content hash, shared by every league) and the bots' logs."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "ARENA_CACHE"


def cache_dir() -> Path:
    """$ARENA_CACHE, else the user's cache folder (~/.cache/arena)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena"
