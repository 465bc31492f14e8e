"""`arena bench --only startup`: what it costs to start a sandboxed bot.

Three figures, each separate: resolving a command's program on the host (PATH lookup,
a version manager's shim asked through its own `which`, links, `#!` lines, venvs; the
first time, and cached as every later start of the same bot in the process is);
building the bot's whole sandbox command (its view, with the private copy of its
folder); and a shipped Python bot's start, from spawn to its `ready`, sandboxed and
not (the median of a few starts).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

import trio
from rich.table import Table

from arena.process.botnames import resolve_bot
from arena.process.sandbox import probe, sandbox_command
from arena.process.spec import Limits
from arena.process.toolchain import timed_resolution
from arena.process.view import build_view
from arena.referee.player import BotPlayer, Timing

STARTS = 7
"""Starts per start-up figure (the median is shown)."""


def _programs() -> list[str]:
    programs = ["python3", sys.executable]
    programs += [name for name in ("node",) if shutil.which(name)]
    return programs


def _build_ms(runs: int = 20) -> tuple[float, bool]:
    """The median time to build a shipped bot's sandbox command, in ms, and whether its
    folder was copied."""
    isolation = probe()
    spec = resolve_bot("random", "btt")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        command = sandbox_command(isolation, spec, Limits(), ())
        times.append((time.perf_counter() - start) * 1000)
        command.release()
    view = build_view(spec, Limits(), (), readable_by_all=isolation.run_as is not None)
    for folder in view.owned:
        shutil.rmtree(folder, ignore_errors=True)
    return statistics.median(times), view.copied


async def _start_ms(limits: Limits) -> float:
    """The median time from spawn to `ready` of the shipped random bot, in ms."""
    times = []
    for _ in range(STARTS):
        player = BotPlayer(resolve_bot("random", "btt"), None, limits, Timing(startup_s=20))
        async with trio.open_nursery() as nursery:
            start = trio.current_time()
            try:
                await player.start(nursery)
                times.append((trio.current_time() - start) * 1000)
            finally:
                await player.quit()
                nursery.cancel_scope.cancel()
    return statistics.median(times)


def startup_table() -> Table:
    table = Table(title="Start-up of a sandboxed bot: toolchain resolution, sandbox command, spawn to ready")
    for column in ("what", "first", "cached / median"):
        table.add_column(column, justify="right")
    for program, cold, cached, chain in timed_resolution(_programs(), Path.cwd()):
        how = f"{len(chain.steps)} step(s)" if chain.program else "not found"
        table.add_row(f"resolve {Path(program).name} ({how})", f"{cold * 1000:.2f} ms", f"{cached * 1e6:.1f} us")
    if probe().sandbox:
        built, copied = _build_ms()
        table.add_row(f"sandbox command of a shipped bot ({'folder copied' if copied else 'folder bound'})", "",
                      f"{built:.2f} ms")
        table.add_row("shipped Python bot, spawn to ready, sandboxed", "", f"{trio.run(_start_ms, Limits()):.1f} ms")
    table.add_row("shipped Python bot, spawn to ready, no sandbox", "",
                  f"{trio.run(_start_ms, Limits(sandbox=False)):.1f} ms")
    return table
