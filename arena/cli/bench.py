"""`arena bench`: run the benchmarks of arena.bench and print their tables."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import (
    console,
    fail,
)

BENCH_PARTS = ("referee", "engines", "league", "fairness", "startup", "cluster", "ladder", "rl")
DEFAULT_PARTS = ("referee", "engines", "league", "fairness", "startup")
"""What `arena bench` runs without --only (the cluster part starts a local cluster, the ladder part plays for
minutes, the rl part needs the rl extra: ask for them)."""
MIN_CHECK_ROUNDS = 5
"""Fewest interleaved rounds --check judges on."""


def bench_command(
    decisions: Annotated[int, typer.Option("--decisions", help="Decisions per referee measurement.")] = 4000,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Run only these parts (repeatable): referee, engines, league, fairness (what one table's "
        "attack on the referee costs the bots at two others), startup (resolving a bot's program, building its "
        "sandbox, spawn to ready), cluster (a local Dask cluster against the local "
        "runner; not run by default), ladder (issue #37's targets: the pages of a synthetic ladder, the busy share "
        "and the referee's memory of a ladder of random bots; minutes, not run by default), rl (the RL bridges' "
        "decisions per second and observation time through PettingZoo and OpenSpiel, beside connect_four_v3 and "
        "tic_tac_toe; needs the rl extra; not run by default).")] = None,
    league_games: Annotated[int, typer.Option("--league-games", help="Games per league measurement.", min=2)] = 200,
    compare: Annotated[str | None, typer.Option(
        "--compare", metavar="REV",
        help="Also build git revision REV (hash, tag, branch) in a virtual environment of its own (kept in the user's "
        "cache folder) and measure the referee of both, interleaved in the same run, with the ratio per figure; "
        "only the referee is measured, or with --only rl the RL bridges (REV built with the rl extra).")] = None,
    ladder_bots: Annotated[int, typer.Option(
        "--ladder-bots", min=2, help="Bots of the ladder part's synthetic store (its pages are timed).")] = 100,
    ladder_games: Annotated[int, typer.Option(
        "--ladder-games", min=1, help="Games of the ladder part's synthetic store.")] = 100_000,
    ladder_seconds: Annotated[float, typer.Option(
        "--ladder-seconds", min=1, help="Seconds the ladder part plays 8 random bots at concurrency 2 for the busy "
        "share (the issue asks 95% of an hour).")] = 60.0,
    ladder_memory_games: Annotated[int, typer.Option(
        "--ladder-memory-games", min=400, help="Games the ladder part plays for the referee's memory, sampled after "
        "the first 200 and at the end (the issue asks flat over 10,000).")] = 2000,
    rl_seconds: Annotated[float, typer.Option(
        "--rl-seconds", min=0.01, help="Seconds of random play per figure of the rl part.")] = 2.0,
    rl_decisions: Annotated[int, typer.Option(
        "--rl-decisions", min=1, help="At most this many decisions per figure of the rl part.")] = 1_000_000,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Interleaved rounds with --compare.")] = 5,
    check: Annotated[bool, typer.Option(
        "--check", help="With --compare: exit 1 when the referee CPU per decision (1 and 8 games at once) is more "
        "than 10% worse than REV's (medians of at least 5 rounds; run it on an otherwise idle machine).")] = False,
) -> None:
    """Measure the arena: the referee's CPU and round trip per decision beside a raw
    pipe, decisions per second with 1, 8 and 32 games at once, the CPU-time clock's
    cost (the CPU basis against the wall basis); every rules engine's
    random games per second and mid-game legal-action time; league games per second
    at concurrency 1, 2 and 4 with the referee's share of CPU; the time charged to
    sleeping bots at two tables beyond their sleep while a third table's bot attacks
    the referee (fairness); with `--only cluster`,
    a league on a local Dask cluster of 2 workers against the local runner; with
    `--only ladder`, a ladder's leaderboard and bot page on a synthetic store, the
    share of time its tables are busy and the referee's memory over its games. With
    `--compare REV`, the referee's figures of this tree and of REV side by side (and
    this tree's CPU basis against its wall basis); with `--only rl`, the RL bridges'
    decisions per second and observation time per game through PettingZoo and
    OpenSpiel (with `--compare REV`: beside REV's, with the ratios)."""
    if check and compare is None:
        raise fail("--check needs --compare REV, the revision to hold this tree to (figures from another machine or "
                   "another load say nothing): e.g. arena bench --compare main --check")
    if check and rounds < MIN_CHECK_ROUNDS:
        raise fail(f"--check needs at least {MIN_CHECK_ROUNDS} rounds (one round's figures vary by half on a busy "
                   f"machine, a median of {MIN_CHECK_ROUNDS} by a few percent): give --rounds {MIN_CHECK_ROUNDS} or "
                   "more")
    if compare is not None and only == ["rl"]:
        raise typer.Exit(_compare_rl(compare, rl_seconds, rl_decisions))
    if compare is not None:
        if only and only != ["referee"]:
            raise fail("--compare measures the referee only, or with --only rl the RL bridges: leave out --only, or "
                       "give --only referee or --only rl")
        from arena.bench.compare import run_comparison
        from arena.errors import ArenaError

        try:
            code = run_comparison(console, compare, decisions, rounds, check)
        except ArenaError as exc:
            raise fail(str(exc)) from None
        raise typer.Exit(code)
    parts = only or list(DEFAULT_PARTS)
    for part in parts:
        if part not in BENCH_PARTS:
            raise fail(f"--only {part!r}: choose from {', '.join(BENCH_PARTS)}")
    if "referee" in parts:
        from arena.bench.referee import run_bench

        run_bench(console, decisions)
    if "engines" in parts:
        from arena.bench.games import engine_table

        console.print(engine_table(console))
    if "league" in parts:
        from arena.bench.league import league_table

        console.print(league_table(league_games + league_games % 2))
    if "fairness" in parts:
        from arena.bench.fairness import fairness_table

        console.print(fairness_table())
    if "startup" in parts:
        from arena.bench.startup import startup_table

        console.print(startup_table())
    if "cluster" in parts:
        from arena.bench.cluster import cluster_table

        console.print(cluster_table(max(league_games, 24)))
    if "ladder" in parts:
        from arena.bench.ladder import ladder_tables
        from arena.errors import ArenaError

        try:
            for table in ladder_tables(ladder_bots, ladder_games, ladder_seconds, ladder_memory_games):
                console.print(table)
        except ArenaError as exc:
            raise fail(str(exc)) from None
    if "rl" in parts:
        from arena.bench.rl import this_tree
        from arena.errors import ArenaError

        try:
            console.print(this_tree(rl_seconds, rl_decisions))
        except ArenaError as exc:
            raise fail(str(exc)) from None


def _compare_rl(rev: str, seconds: float, decisions: int) -> int:
    """`arena bench --only rl --compare REV`: REV built with the rl extra, both sides run
    as scripts of their own, figure by figure."""
    from rich.progress import Progress, TextColumn, TimeElapsedColumn

    from arena.bench import revision
    from arena.bench.rl import compare_rl, jobs, this_python
    from arena.errors import ArenaError

    try:
        repo = revision.source_checkout()
        commit = revision.resolve(repo, rev)
        root = revision.cache_root()
        with console.status(f"building {commit[:12]} with the rl extra in a virtual environment under {root} "
                            "(once per revision)"):
            python = revision.build(repo, commit, root, revision.with_extras(("rl",)), "rl")
        baseline = f"{rev} ({commit[:9]})" if not commit.startswith(rev) else commit[:9]
        with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                      transient=True) as progress:
            task = progress.add_task("measuring", total=2 * len(jobs(seconds, decisions)))

            def step(what: str) -> None:
                progress.update(task, description=f"measured {what}", advance=1)

            table = compare_rl(("this tree", this_python()), (baseline, python), seconds, decisions, step=step)
    except ArenaError as exc:
        raise fail(str(exc)) from None
    console.print(table)
    return 0
