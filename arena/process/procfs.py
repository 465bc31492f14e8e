"""What the referee reads of /proc (Linux), every walk bounded.

A bot chooses how many processes it runs and how many descriptors each holds, so no
walk here is unbounded in either: the pipe diagnosis looks at the bot's own processes
only (its cgroup's, else its descendants, at most MAX_PIDS of them) and at most
MAX_DESCRIPTORS descriptors in all, and answers "cannot tell" past that. These run in
worker threads (`trio.to_thread`), never on the event loop that keeps the clocks.
`process_table` (every process of the machine) is for tests and tools, not for a
referee's decisions.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable

MAX_PIDS = 1024
"""Most processes of one bot the pipe diagnosis looks at."""
MAX_DESCRIPTORS = 4096
"""Most descriptors the pipe diagnosis reads, over all the bot's processes."""
YIELD_EVERY = 64
YIELD_S = 0.0005
"""The pause of a walk in a worker thread every YIELD_EVERY reads, so that the event
loop never waits long for the GIL (see scratch.YIELD_S)."""


def parent_and_group(pid: int) -> tuple[int, int] | None:
    """A process's parent pid and process group, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[2])


def children(pid: int, most: int = MAX_PIDS) -> list[int]:
    """The direct children of `pid` (empty when it is gone), at most `most` of them."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task")[:most]:
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                    found.extend(int(c) for c in handle.read(1 << 16).split())
            if len(found) >= most:
                break
    return found[:most]


def descendants(root: int, most: int = MAX_PIDS) -> list[int]:
    """The descendants of `root` (breadth first, without it), at most `most`."""
    found: list[int] = []
    queue = [root]
    while queue and len(found) < most:
        pid = queue.pop(0)
        below = children(pid, most - len(found))
        found.extend(below)
        queue.extend(below)
    return found[:most]


def process_table() -> dict[int, tuple[int, int]]:
    """Every process of the machine: pid to (parent pid, process group). Unbounded:
    for tests and tools only."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := parent_and_group(int(entry))) is not None:
            table[int(entry)] = found
    return table


def processes_in_group(pgid: int) -> list[int]:
    """Pids of live or zombie processes whose process group is `pgid` (tests)."""
    return [pid for pid, (_, group) in process_table().items() if group == pgid]


def _is_bwrap(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            return handle.read().strip() == b"bwrap"
    except OSError:
        return True  # gone: it holds nothing


def _pipe_inode(link: str) -> int | None:
    return int(link[6:-1]) if link.startswith("pipe:[") else None


def pipes_held(pids: Iterable[int], inodes: set[int],
               most_descriptors: int = MAX_DESCRIPTORS) -> set[int] | None:
    """Which of the pipe `inodes` some process of `pids` (bubblewrap's own excepted)
    holds open; None when that cannot be told within `most_descriptors` reads. The
    standard descriptors of every process are looked at first (where an inherited pipe
    is), then the others, until every pipe is found held or the budget is spent."""
    bots = [pid for pid in list(pids)[:MAX_PIDS] if not _is_bwrap(pid)]
    held: set[int] = set()
    budget = most_descriptors
    for pid in bots:  # first pass: 0, 1 and 2 of each
        for fd in (0, 1, 2):
            budget -= 1
            with contextlib.suppress(OSError):
                inode = _pipe_inode(os.readlink(f"/proc/{pid}/fd/{fd}"))
                if inode in inodes:
                    held.add(inode)
        if held == inodes:
            return held
        if budget <= 0:
            return None
    for pid in bots:
        try:
            listing = os.scandir(f"/proc/{pid}/fd")
        except OSError:
            continue
        with listing:
            for entry in listing:
                budget -= 1
                if budget < 0:
                    return None
                if budget % YIELD_EVERY == 0:
                    time.sleep(YIELD_S)
                if entry.name in ("0", "1", "2"):
                    continue
                with contextlib.suppress(OSError):
                    inode = _pipe_inode(os.readlink(entry.path))
                    if inode in inodes:
                        held.add(inode)
                        if held == inodes:
                            return held
    return held


def tasks_of_user(uid: int, most_pids: int = 1 << 17) -> int:
    """The tasks (threads) a user runs now, as RLIMIT_NPROC counts them: a per-process
    limit on a bot's processes must add what its user already runs (a desktop user's
    browser alone runs hundreds). Reads at most `most_pids` entries of /proc."""
    total = 0
    with contextlib.suppress(OSError):
        with os.scandir("/proc") as entries:
            for count, entry in enumerate(entries):
                if count >= most_pids:
                    break
                if not entry.name.isdigit():
                    continue
                with contextlib.suppress(OSError):
                    if entry.stat().st_uid == uid:
                        total += len(os.listdir(f"/proc/{entry.name}/task"))
    return total
