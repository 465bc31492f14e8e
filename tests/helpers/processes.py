"""Finding processes for tests that check nothing is left running."""

from __future__ import annotations

from pathlib import Path

from arena.process.bot_process import process_table


def processes_with(token: str) -> list[int]:
    """Pids of the processes whose command line holds `token`."""
    found = []
    for pid in process_table():
        try:
            if token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found
