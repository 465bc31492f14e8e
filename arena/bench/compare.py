"""`arena bench --compare REV [--check]`: the referee's figures of this tree and of
another git revision, measured in the same run, interleaved.

Each side runs the same driver script (arena/bench/driver.py) under its own Python:
this tree's under the running interpreter, the revision's in a venv built for it
(arena/bench/revision.py). Every round measures each figure on both sides back to back,
and the side that goes first alternates from round to round, so load that other
programs put on the machine falls on both sides alike. A figure is the median of the
rounds; a ratio is the median of the rounds' paired ratios (this tree / REV), which
cancels drift between rounds as well. Each round ends with this tree alone on the
CPU-time basis and the wall basis back to back, at 1 and 8 games: their ratio is what
the CPU-time clock costs the referee (REV may have no CPU basis).

--check fails when the referee CPU per decision (1 game and 8 games at once) is more
than 10% worse than REV's; it needs --compare, because an absolute baseline measured on
another machine, or at another load, says nothing about this one.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from arena.bench import revision
from arena.errors import ArenaError

DRIVER = Path(__file__).with_name("driver.py")
CONCURRENCY = (1, 8, 32)
"""Games at once in the referee figures (the issue's table: 1, 8 and 32)."""
BARE = (("bare1", 1, False), ("bare8", 8, False), ("boxed1", 1, True))
"""The bare loops (key, pipes at once, bot sandboxed as the referee starts it): a plain
process's pipe, and `arena bench`'s own loop to a bot in its sandbox and cgroup."""
CHECKED = ("cpu1", "cpu8")
"""The figures --check holds to REV's: referee CPU per decision at 1 and 8 games."""
THRESHOLD = 0.10
"""How much worse than REV a checked figure may be before --check fails."""
CPU_BASIS = (1, 8)
"""Games at once at which this tree's referee is measured on the CPU basis against the
wall basis (the CPU-time clock's cost: one more reading of the bot's CPU per decision)."""
BASES = ("wall", "cpu")
PIPE = "pipe"
"""The side label of the bare loops (run once per round, under this tree's Python)."""

Job = dict[str, Any]
Runner = Callable[[Path, Job], dict[str, Any]]
"""Runs the driver with a Python and a job, and returns its JSON (tests pass a fake)."""


class BenchError(ArenaError):
    """A measurement that could not be made (the driver failed on one side)."""


@dataclass(frozen=True)
class Side:
    label: str
    python: Path


@dataclass(frozen=True)
class Metric:
    key: str
    title: str
    unit: str
    lower_is_better: bool


METRICS = (
    *(Metric(f"cpu{n}", f"referee CPU/decision, {n} game{'s' * (n > 1)}", "us", True) for n in CONCURRENCY),
    *(Metric(f"sys{n}", f"... of it in the kernel, {n} game{'s' * (n > 1)}", "us", True) for n in CONCURRENCY),
    *(Metric(f"pre{n}", f"referee preempted per 1000 decisions, {n} game{'s' * (n > 1)}", "", True)
      for n in CONCURRENCY),
    *(Metric(f"loop{n}", f"... its event loop (the clock) alone, {n} game{'s' * (n > 1)}", "", True)
      for n in CONCURRENCY),
    *(Metric(f"rate{n}", f"decisions/s, {n} game{'s' * (n > 1)}", "/s", False) for n in CONCURRENCY),
)


@dataclass
class Comparison:
    """Every round's figure per side: samples[side label][metric key] in round order."""

    current: str
    baseline: str
    samples: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    load: list[float] = field(default_factory=list)
    """The machine's 1-minute load average before the first round and after each."""

    def add(self, side: str, key: str, value: float) -> None:
        self.samples.setdefault(side, {}).setdefault(key, []).append(value)

    def values(self, side: str, key: str) -> list[float]:
        return self.samples.get(side, {}).get(key, [])

    def ratio(self, key: str) -> float:
        """This tree's figure over REV's, the median of the rounds' paired ratios."""
        return paired_ratio(self.values(self.current, key), self.values(self.baseline, key))

    def basis_ratio(self, concurrent: int) -> float:
        """This tree's referee CPU per decision on the CPU basis over the wall basis's,
        the median of the rounds' paired ratios."""
        return paired_ratio(self.values(self.current, f"cpubasis{concurrent}"),
                            self.values(self.current, f"wallbasis{concurrent}"))

    def share_of_bare(self, side: str, bare: str, concurrent: int = 8) -> float:
        """Decisions per second at `concurrent` games over the bare loop `bare`'s, the
        median of the rounds' ratios."""
        return paired_ratio(self.values(side, f"rate{concurrent}"), self.values(PIPE, bare))


def paired_ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median of round-by-round ratios (rounds paired in order); nan without pairs."""
    pairs = [a / b for a, b in zip(numerators, denominators) if b]
    return statistics.median(pairs) if pairs else float("nan")


def verdict(comparison: Comparison, threshold: float = THRESHOLD) -> list[str]:
    """What --check fails on: each checked figure more than `threshold` worse than REV's."""
    problems = []
    for metric in METRICS:
        if metric.key not in CHECKED:
            continue
        ratio = comparison.ratio(metric.key)
        worse = ratio - 1 if metric.lower_is_better else 1 / ratio - 1
        if worse > threshold:
            now = statistics.median(comparison.values(comparison.current, metric.key))
            then = statistics.median(comparison.values(comparison.baseline, metric.key))
            problems.append(f"{metric.title}: {now:,.1f} {metric.unit} here against {then:,.1f} {metric.unit} at "
                            f"{comparison.baseline} ({ratio:.2f}x, {worse:.0%} worse; at most {threshold:.0%} allowed)")
    return problems


def games_each(decisions: int, concurrent: int) -> int:
    """Games per match so that a run of `concurrent` matches makes about `decisions`
    decisions (a two-seat BTT game is about 32), at least 4 each at 8 games and more."""
    games = max(1, decisions // 32)
    return games if concurrent == 1 else max(4, games // concurrent)


def schedule(sides: tuple[Side, Side], rounds: int) -> Iterator[tuple[int, Side, int]]:
    """(round, side, games at once) in the order they are run: each figure on both
    sides back to back, the side going first alternating from round to round."""
    for number in range(rounds):
        order = sides if number % 2 == 0 else (sides[1], sides[0])
        for concurrent in CONCURRENCY:
            for side in order:
                yield number, side, concurrent


def run_driver(python: Path, job: Job) -> dict[str, Any]:
    """Run the driver under `python` (isolated: nothing of this tree on its path) and
    read its JSON."""
    done = subprocess.run([str(python), "-I", str(DRIVER), json.dumps(job)], capture_output=True, text=True,
                          timeout=1800)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise BenchError(f"the benchmark driver failed under {python} (exit {done.returncode}): "
                         f"{(done.stderr or done.stdout).strip()[-600:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def compare(current: Side, baseline: Side, bot: Path, request: bytes, decisions: int, rounds: int,
            runner: Runner = run_driver, step: Callable[[str], None] | None = None) -> Comparison:
    """Measure both sides `rounds` times, interleaved (see `schedule`), with the bare
    pipe loops once per round before them and this tree's wall and CPU basis pairs
    after them."""
    comparison = Comparison(current.label, baseline.label)
    comparison.load.append(os.getloadavg()[0])
    with tempfile.TemporaryDirectory(prefix="arena-compare-") as folder:
        request_file = Path(folder) / "request.json"
        request_file.write_bytes(request)
        for number, runs in itertools.groupby(schedule((current, baseline), rounds), key=lambda run: run[0]):
            if number:
                comparison.load.append(os.getloadavg()[0])
            _bare_round(comparison, runner, current.python, bot, request_file, decisions)
            for _, side, concurrent in runs:
                result = _referee_run(runner, side, bot, concurrent, decisions)
                if step is not None:
                    step(f"round {number + 1}/{rounds}: {side.label}, {concurrent} game(s) at once")
                _add_run(comparison, side.label, concurrent, result)
            _basis_round(comparison, runner, current, bot, decisions, number, step)
    comparison.load.append(os.getloadavg()[0])
    return comparison


def _bare_round(comparison: Comparison, runner: Runner, python: Path, bot: Path, request_file: Path,
                decisions: int) -> None:
    """One round of the bare loops, under this tree's Python."""
    for key, pipes, sandbox in BARE:
        bare = runner(python, {"kind": "bare", "bot": str(bot), "request": str(request_file), "pipes": pipes,
                               "count": decisions, "sandbox": sandbox})
        comparison.add(PIPE, key, bare["decisions"] / bare["wall_s"])


def _referee_run(runner: Runner, side: Side, bot: Path, concurrent: int, decisions: int,
                 basis: str | None = None) -> dict[str, Any]:
    """One referee measurement, refused when it played nothing or a game did not end
    normally (its figures would mislead)."""
    job: Job = {"kind": "referee", "bot": str(bot), "concurrent": concurrent,
                "games_each": games_each(decisions, concurrent)}
    if basis is not None:
        job["basis"] = basis
    result = runner(side.python, job)
    if not result["decisions"]:
        raise BenchError(f"{side.label} played no decision with {concurrent} game(s) at once")
    if result.get("faults"):
        raise BenchError(f"{side.label}: {len(result['faults'])} game(s) with {concurrent} at once did not end "
                         f"normally, so its figures would mislead (first: {result['faults'][0][:200]})")
    return result


def _add_run(comparison: Comparison, label: str, concurrent: int, result: dict[str, Any]) -> None:
    comparison.add(label, f"cpu{concurrent}", result["cpu_s"] / result["decisions"] * 1e6)
    comparison.add(label, f"sys{concurrent}", result.get("sys_s", 0.0) / result["decisions"] * 1e6)
    comparison.add(label, f"pre{concurrent}", result.get("preempted", 0.0) / result["decisions"] * 1000)
    comparison.add(label, f"loop{concurrent}", result.get("loop_preempted", 0.0) / result["decisions"] * 1000)
    comparison.add(label, f"rate{concurrent}", result["decisions"] / result["wall_s"])


def _basis_round(comparison: Comparison, runner: Runner, current: Side, bot: Path, decisions: int, number: int,
                 step: Callable[[str], None] | None) -> None:
    """This tree's referee on the wall and the CPU basis back to back (the first
    alternating by round), so their ratio is the CPU-time clock's own cost."""
    for concurrent in CPU_BASIS:
        for basis in BASES if number % 2 == 0 else BASES[::-1]:
            result = _referee_run(runner, current, bot, concurrent, decisions, basis)
            comparison.add(current.label, f"{basis}basis{concurrent}", result["cpu_s"] / result["decisions"] * 1e6)
            if step is not None:
                step(f"round {number + 1}: {current.label}, {basis} basis, {concurrent} game(s) at once")


def _cell(values: list[float], unit: str) -> str:
    """The median and the range: '41.6 us (40-44)', '33.9k/s (11.3-34.0)'."""
    if not values:
        return "-"
    middle = statistics.median(values)
    if unit == "us":
        return f"{middle:.1f} us ({min(values):.0f}-{max(values):.0f})"
    if not unit:
        return f"{middle:.0f} ({min(values):.0f}-{max(values):.0f})"
    return f"{middle / 1000:.1f}k/s ({min(values) / 1000:.1f}-{max(values) / 1000:.1f})"


def comparison_table(comparison: Comparison) -> Table:
    """Each figure for both sides (median, and the rounds' range) with the ratio."""
    rounds = len(comparison.values(comparison.current, METRICS[0].key))
    table = Table(title=f"Referee, BTT, 2 seats, C echo bots: {comparison.current} against {comparison.baseline} "
                        f"(medians of {rounds} interleaved rounds, range in brackets; a bare loop's bot is a plain "
                        "process, or sandboxed as the referee starts it)")
    for column in ("figure", comparison.baseline, comparison.current, "ratio"):
        table.add_column(column, justify="right")
    for metric in METRICS:
        table.add_row(metric.title, _cell(comparison.values(comparison.baseline, metric.key), metric.unit),
                      _cell(comparison.values(comparison.current, metric.key), metric.unit),
                      f"{comparison.ratio(metric.key):.2f}x")
    for concurrent in CPU_BASIS:
        if comparison.values(comparison.current, f"cpubasis{concurrent}"):
            table.add_row(f"referee CPU/decision on the CPU basis against the wall basis, {_games(concurrent)}",
                          "-", f"{_cell(comparison.values(comparison.current, f'cpubasis{concurrent}'), 'us')} "
                          f"against {_cell(comparison.values(comparison.current, f'wallbasis{concurrent}'), 'us')}",
                          f"{comparison.basis_ratio(concurrent):.2f}x")
    for key, pipes, sandbox in BARE:
        cell = _cell(comparison.values(PIPE, key), "/s")
        table.add_row(f"bare loop/s, {_bare_title(pipes, sandbox)}", cell, cell, "same")
    for key, pipes, sandbox in BARE:
        table.add_row(f"8 games / bare loop, {_bare_title(pipes, sandbox)}",
                      f"{comparison.share_of_bare(comparison.baseline, key):.0%}",
                      f"{comparison.share_of_bare(comparison.current, key):.0%}", "")
    return table


def _games(concurrent: int) -> str:
    return f"{concurrent} game{'s' * (concurrent > 1)}"


def _bare_title(pipes: int, sandbox: bool) -> str:
    return f"{pipes} pipe{'s' * (pipes > 1)}, {'sandboxed' if sandbox else 'plain'}"


def run_comparison(console: Console, rev: str, decisions: int, rounds: int, check: bool) -> int:
    """Build REV, measure both sides, print the table; with `check`, the exit code of
    the verdict (0 passed, 1 a checked figure regressed)."""
    from arena.bench.referee import compile_echo_bot, typical_request

    repo = revision.source_checkout()
    commit = revision.resolve(repo, rev)
    root = revision.cache_root()
    with console.status(f"building {commit[:12]} in a virtual environment under {root} (once per revision)"):
        python = revision.build(repo, commit, root)
    with tempfile.TemporaryDirectory(prefix="arena-compare-bot-") as folder:
        bot = compile_echo_bot(Path(folder))
        if bot is None:
            raise BenchError("the comparison plays the C echo bot (bots/echo_bot.c) and no C compiler was found: "
                             "install cc, gcc or clang")
        current = Side(f"this tree ({_describe(repo)})", Path(sys.executable))
        baseline = Side(f"{rev} ({commit[:9]})" if not commit.startswith(rev) else commit[:9], python)
        steps = rounds * 2 * (len(CONCURRENCY) + len(CPU_BASIS))
        with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                      console=console, transient=True) as progress:
            task = progress.add_task("measuring", total=steps)

            def step(what: str) -> None:
                progress.update(task, description=f"measured {what}", advance=1)

            comparison = compare(current, baseline, Path(bot.command[0]), typical_request(), decisions, rounds,
                                 step=step)
    console.print(comparison_table(comparison))
    console.print(f"load average (1 min) before and after each round: "
                  f"{', '.join(f'{x:.2f}' for x in comparison.load)} on {os.cpu_count()} CPUs")
    if not check:
        return 0
    problems = verdict(comparison)
    for problem in problems:
        console.print(f"[bold red]regression:[/] {problem}", markup=True, highlight=False)
    if not problems:
        console.print(f"check passed: referee CPU per decision within {THRESHOLD:.0%} of {baseline.label}")
    return 1 if problems else 0


def _describe(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "describe", "--always", "--dirty=+"], capture_output=True,
                          text=True)
    return done.stdout.strip() or "?"
