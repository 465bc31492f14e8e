"""Finding processes for tests that check nothing is left running: by command line, or
by the process groups a match's launcher started (ProcessGroups)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import trio

from arena.process.bot_process import launch_process, process_table, processes_in_group
from arena.process.channel import Launch, Launcher, LineChannel


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


def processes_in(folder: Path) -> list[int]:
    """Live processes whose working folder is `folder` (the bots of a league or match
    run there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd") == str(folder):
                    status = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if status != "Z":
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_no_processes(folder: Path) -> list[int]:
    """The processes still working in `folder` after up to 3 s for them to end (none,
    once a killed arena's bots are gone)."""
    deadline = time.monotonic() + 3
    while (left := processes_in(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


class ProcessGroups:
    """Every process group the bots of a match ran in, read from its launcher (each bot
    leads a group of its own, a new one at each start): give `launcher()` to the
    match, then count the starts or check that none of the groups holds a process."""

    def __init__(self) -> None:
        self.pgids: list[int] = []

    def launcher(self, inner: Launcher = launch_process) -> Launcher:
        """`inner` (the referee's default launcher unless given), noting each group."""

        async def launch(spec: Launch, nursery: trio.Nursery) -> LineChannel:
            channel = await inner(spec, nursery)
            if channel.pgid is not None:
                self.pgids.append(channel.pgid)
            return channel

        return launch

    def assert_gone(self) -> None:
        """At least one bot started, and no process of any of its groups is left."""
        assert self.pgids, "the match started no process"
        for pgid in self.pgids:
            assert processes_in_group(pgid) == [], f"process group {pgid} still has processes"
