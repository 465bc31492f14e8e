"""The ladder's bot logs and the policy that keeps the disk bounded: each unit's stderr
logs live in DIR/logs/unit-N/ (one file per seat, `SEAT-BOT_vVERSION.log`, each
capped by the referee), and only each bot's newest `keep_games` units keep theirs:
older files are removed, then folders left empty. Games and records are never pruned
(they live in the database); build and check logs are kept with their version."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection
from pathlib import Path

LOG_NAME = re.compile(r"(\d+)-(.+)_v(\d+)(?:\.protocol)?\.log")
UNIT_FOLDER = re.compile(r"unit-(\d+)")


def log_label(bot: str, number: int) -> str:
    """The seat's name in records and log files: 'alpha v3'."""
    return f"{bot} v{number}"


def unit_logs(logs: Path, unit: int, bot: str) -> list[Path]:
    """The log files of `bot` at unit `unit` (none if the folder was pruned)."""
    folder = logs / f"unit-{unit}"
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        match = LOG_NAME.fullmatch(path.name)
        if match is not None and match[2] == bot and path.is_file() and not path.is_symlink():
            found.append(path)
    return found


def prune_logs(logs: Path, keep: int, under_way: Collection[int] = ()) -> int:
    """Remove each bot's logs beyond its newest `keep` units (never a unit under way);
    the number of files removed."""
    if not logs.is_dir():
        return 0
    units = sorted(((int(m[1]), path) for path in logs.iterdir()
                    if (m := UNIT_FOLDER.fullmatch(path.name)) is not None and path.is_dir()), reverse=True)
    seen: dict[str, int] = {}
    removed = 0
    for number, folder in units:
        if number in under_way:
            continue
        counted: set[str] = set()
        for path in sorted(folder.iterdir()):
            match = LOG_NAME.fullmatch(path.name)
            if match is None:
                continue
            bot = match[2]
            if bot not in counted:
                counted.add(bot)
                seen[bot] = seen.get(bot, 0) + 1
            if seen[bot] > keep:
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return removed
