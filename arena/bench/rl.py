"""`arena bench --only rl`: decisions per second of the RL bridges in seeded random play,
for every game through PettingZoo (env.last() before every step) and through OpenSpiel
(observation_tensor before every decision, and without observations), beside
PettingZoo's connect_four_v3 and pyspiel's tic_tac_toe measured in the same run; with
the time an observation takes per decision.

With --compare REV, every figure is measured for this tree and for REV (built in a
virtual environment with the rl extra), back to back, the side going first alternating
from figure to figure, with the ratio this tree / REV. Each side runs the same driver
script (arena/bench/rl_driver.py), in a process of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from arena.errors import ArenaError

DRIVER = Path(__file__).with_name("rl_driver.py")
GAMES: tuple[tuple[str, int, dict[str, str]], ...] = (
    ("btt", 2, {}), ("treeblox", 2, {}), ("the-tree", 2, {}), ("roots", 2, {}), ("blox", 2, {}),
)
"""The settings measured: every game at its default options."""
LOOPS = ("pettingzoo", "openspiel", "openspiel-bare")
ANCHORS = (("connect_four", "connect_four_v3 (PettingZoo)"), ("tic_tac_toe", "tic_tac_toe (pyspiel, C++)"))
LOOP_TITLES = {"pettingzoo": "PettingZoo, env.last() each step", "openspiel": "OpenSpiel, observation_tensor each step",
               "openspiel-bare": "OpenSpiel, no observation", "connect_four": "PettingZoo, env.last() each step",
               "tic_tac_toe": "OpenSpiel, observation_tensor each step"}

Job = dict[str, Any]
Runner = Callable[[Path | None, Job], dict[str, Any]]
"""Runs one job under a Python (None: this process) and returns its figures."""


class RLBenchError(ArenaError):
    """A loop that could not be measured (the rl extra missing, a driver that failed)."""


@dataclass(frozen=True)
class Row:
    """One figure: a game (or anchor) through one loop, on each side measured."""

    game: str
    loop: str
    figures: dict[str, dict[str, Any]]
    """Side label -> the driver's result (decisions, wall_s, observe_s)."""


def rate(result: dict[str, Any]) -> float:
    return float(result["decisions"]) / result["wall_s"] if result["wall_s"] else float("nan")


def cpu_rate(result: dict[str, Any]) -> float:
    """Decisions per second of the loop's own processor time (NaN when not measured):
    what other processes on the machine change least."""
    cpu = result.get("cpu_s")
    return float(result["decisions"]) / cpu if cpu else float("nan")


def observe_us(result: dict[str, Any]) -> float:
    """Microseconds inside the observation calls per decision."""
    return float(result["observe_s"]) / result["decisions"] * 1e6 if result["decisions"] else float("nan")


def in_process(python: Path | None, job: Job) -> dict[str, Any]:
    """Run the driver: in this process (python None), else as a script under `python`
    (isolated: nothing of this tree on its path)."""
    if python is None:
        from arena.bench import rl_driver

        return rl_driver.measure(job)
    done = subprocess.run([str(python), "-I", str(DRIVER), json.dumps(job)], capture_output=True, text=True,
                          timeout=1800)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RLBenchError(f"the rl benchmark driver failed under {python} (exit {done.returncode}): "
                           f"{(done.stderr or done.stdout).strip()[-600:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def jobs(seconds: float, decisions: int) -> list[tuple[str, str, Job]]:
    """(game label, loop, job) for every figure, in the order they are measured."""
    out: list[tuple[str, str, Job]] = []
    for game, players, options in GAMES:
        for loop in LOOPS:
            out.append((game, loop, {"loop": loop, "game": game, "players": players, "options": options,
                                     "seconds": seconds, "decisions": decisions, "seed": 1}))
    for loop, title in ANCHORS:
        out.append((title, loop, {"loop": loop, "seconds": seconds, "decisions": decisions, "seed": 1}))
    return out


def measure(sides: Sequence[tuple[str, Path | None]], seconds: float, decisions: int, runner: Runner = in_process,
            step: Callable[[str], None] | None = None) -> list[Row]:
    """Every figure on every side, back to back; with two sides, the one going first
    alternates from figure to figure so that load falls on both alike."""
    rows = []
    for number, (game, loop, job) in enumerate(jobs(seconds, decisions)):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        figures: dict[str, dict[str, Any]] = {}
        for label, python in order:
            figures[label] = runner(python, job)
            if step is not None:
                step(f"{game}, {loop}: {label}")
        rows.append(Row(game, loop, figures))
    return rows


def _rate_cell(result: dict[str, Any] | None) -> str:
    return "-" if result is None else f"{rate(result):,.0f}"


def _observe_cell(result: dict[str, Any] | None, loop: str) -> str:
    if result is None or loop == "openspiel-bare":
        return "-"
    return f"{observe_us(result):,.1f} us"


def _ratio(now: float, then: float) -> str:
    return f"{now / then:.2f}x" if then and now == now and then == then else "-"


def rl_table(rows: list[Row], labels: Sequence[str]) -> Table:
    """Decisions per second and the observation's microseconds per decision, per side;
    with two sides, the ratios first / second (decisions per second of the wall clock
    and of the loop's processor time: higher is better; the observation: how many
    times faster)."""
    title = "RL bridges, seeded random play, 2 seats, default options"
    if len(labels) == 2:
        title += f": {labels[0]} against {labels[1]} (figures back to back)"
    table = Table(title=title)
    table.add_column("game")
    table.add_column("loop")
    for label in labels:
        table.add_column(f"decisions/s {label}", justify="right")
    for label in labels:
        table.add_column(f"observation/decision {label}", justify="right")
    if len(labels) == 2:
        table.add_column("decisions/s ratio", justify="right")
        table.add_column("decisions/CPU-s ratio", justify="right")
        table.add_column("observation speed-up", justify="right")
    for row in rows:
        cells = [row.game, LOOP_TITLES[row.loop]]
        cells += [_rate_cell(row.figures.get(label)) for label in labels]
        cells += [_observe_cell(row.figures.get(label), row.loop) for label in labels]
        if len(labels) == 2:
            now, then = row.figures[labels[0]], row.figures[labels[1]]
            cells.append(_ratio(rate(now), rate(then)))
            cells.append(_ratio(cpu_rate(now), cpu_rate(then)))
            cells.append("-" if row.loop == "openspiel-bare" else _ratio(observe_us(then), observe_us(now)))
        table.add_row(*cells)
    return table


def require_extra() -> None:
    """RLBenchError naming the install when this tree lacks the rl extra."""
    try:
        import pettingzoo  # noqa: F401
        import pyspiel  # noqa: F401
    except ImportError as exc:
        raise RLBenchError(f"the rl benchmark needs the rl extra ({exc}): pip install 'arena[rl]'") from None


def this_tree(seconds: float, decisions: int, runner: Runner = in_process) -> Table:
    """This tree's figures alone (`arena bench --only rl`)."""
    require_extra()
    label = "this tree"
    return rl_table(measure([(label, None)], seconds, decisions, runner), [label])


def compare_rl(current: tuple[str, Path | None], baseline: tuple[str, Path], seconds: float, decisions: int,
               runner: Runner = in_process, step: Callable[[str], None] | None = None) -> Table:
    """This tree and a revision side by side, with the ratios."""
    require_extra()
    rows = measure([current, baseline], seconds, decisions, runner, step)
    return rl_table(rows, [current[0], baseline[0]])


def this_python() -> Path:
    """The running interpreter (this tree's side of a comparison, run as a script too)."""
    return Path(sys.executable)
