"""`arena bench --compare REV --check`: the parts that do not depend on timing (the
ratios, the verdict, the interleaving, building a revision, the errors a user meets).
The speed itself is measured by the command, never asserted here."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bench import revision
from arena.bench.compare import (
    CONCURRENCY,
    DRIVER,
    PIPE,
    Comparison,
    Side,
    compare,
    comparison_table,
    games_each,
    paired_ratio,
    schedule,
    verdict,
)
from arena.bench.referee import compile_echo_bot, typical_request
from tests.helpers.cli import run_cli

CURRENT, BASELINE = Side("now", Path("/py/now")), Side("old", Path("/py/old"))


def comparison(cpu_now: list[float], cpu_old: list[float]) -> Comparison:
    result = Comparison("now", "old")
    for key in ("cpu1", "cpu8"):
        for now, old in zip(cpu_now, cpu_old):
            result.add("now", key, now)
            result.add("old", key, old)
    return result


def test_a_ratio_is_the_median_of_the_rounds_paired_ratios() -> None:
    assert paired_ratio([30.0, 44.0, 50.0], [25.0, 40.0, 20.0]) == pytest.approx(1.2)  # 1.2, 1.1, 2.5
    assert math.isnan(paired_ratio([], []))


def test_check_passes_within_ten_percent_and_fails_beyond_naming_the_figure() -> None:
    assert verdict(comparison([27.0, 27.5, 26.0], [25.0, 25.0, 25.0])) == []  # 1.08x, 1.10x, 1.04x
    problems = verdict(comparison([30.0, 31.0, 29.0], [25.0, 25.0, 25.0]))  # 1.2x
    assert len(problems) == 2
    assert problems[1].startswith("referee CPU/decision, 8 games: 30.0 us here against 25.0 us at old (1.20x, "
                                  "20% worse")


def test_a_slower_rate_alone_does_not_fail_the_check() -> None:
    result = comparison([25.0], [25.0])
    result.add("now", "rate8", 10_000.0)
    result.add("old", "rate8", 30_000.0)
    assert verdict(result) == []


def test_each_figure_runs_on_both_sides_back_to_back_and_the_first_side_alternates() -> None:
    order = [(number, side.label, concurrent) for number, side, concurrent in schedule((CURRENT, BASELINE), 2)]
    assert order[:2] == [(0, "now", 1), (0, "old", 1)]
    assert order[2 * len(CONCURRENCY):2 * len(CONCURRENCY) + 2] == [(1, "old", 1), (1, "now", 1)]
    assert len(order) == 2 * 2 * len(CONCURRENCY)


def test_compare_turns_each_run_into_cpu_per_decision_and_decisions_per_second() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    def fake(python: Path, job: dict[str, Any]) -> dict[str, Any]:
        calls.append((python.name, job))
        if job["kind"] == "bare":
            return {"decisions": 1000, "wall_s": 0.02 if job["sandbox"] else 0.01, "cpu_s": None}
        cpu = 0.04 if python.name == "now" else 0.02  # s per 1000 decisions: 40 and 20 us
        return {"decisions": 1000, "wall_s": 0.1, "cpu_s": cpu}

    result = compare(CURRENT, BASELINE, Path("/bot"), b"{}\n", 3200, 3, runner=fake)
    assert result.values("now", "cpu8") == pytest.approx([40.0] * 3)
    assert result.values("old", "cpu1") == pytest.approx([20.0] * 3)
    assert result.ratio("cpu8") == pytest.approx(2.0) and result.ratio("rate32") == pytest.approx(1.0)
    assert result.values(PIPE, "boxed1") == pytest.approx([50_000.0] * 3)
    assert result.share_of_bare("now", "boxed1") == pytest.approx(0.2)
    bare = [job for python, job in calls if job["kind"] == "bare"]
    assert {python for python, job in calls if job["kind"] == "bare"} == {"now"}  # the pipe's cost: one side
    assert len(bare) == 3 * 3 and {(job["pipes"], job["sandbox"]) for job in bare} == {(1, False), (8, False),
                                                                                       (1, True)}
    referee = [job for _, job in calls if job["kind"] == "referee"]
    assert [job["games_each"] for job in referee[:6]] == [100, 100, 12, 12, 4, 4]
    assert len(verdict(result)) == 2
    assert comparison_table(result).row_count > len(CONCURRENCY) * 2


def test_games_each_makes_about_the_decisions_asked_for() -> None:
    assert games_each(4000, 1) == 125 and games_each(4000, 8) == 15 and games_each(4000, 32) == 4


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def tiny_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "setup.txt").write_text("committed\n")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    (repo / "setup.txt").write_text("not committed\n")  # the work tree is not what gets built
    return repo, git(repo, "rev-parse", "HEAD")


def test_a_revision_is_built_from_its_commit_once_and_then_taken_from_the_cache(
        tiny_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, commit = tiny_repo
    built: list[str] = []

    def builder(source: Path, venv: Path) -> None:
        built.append((source / "setup.txt").read_text())
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "python").write_text("")

    assert revision.resolve(repo, commit[:7]) == commit and revision.resolve(repo, "HEAD") == commit
    root = tmp_path / "cache"
    python = revision.build(repo, commit, root, builder)
    assert python == root / f"{commit}-py{sys.version_info.major}.{sys.version_info.minor}" / "venv" / "bin" / "python"
    assert python.exists() and built == ["committed\n"]
    assert revision.build(repo, commit, root, builder) == python and len(built) == 1


def test_a_failed_build_leaves_nothing_and_is_tried_afresh(tiny_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, commit = tiny_repo

    def broken(source: Path, venv: Path) -> None:
        venv.mkdir()
        raise revision.RevisionError("pip failed")

    root = tmp_path / "cache"
    with pytest.raises(revision.RevisionError, match="pip failed"):
        revision.build(repo, commit, root, broken)
    assert [p.name for p in root.iterdir() if not p.name.endswith(".lock")] == []


def test_a_name_that_is_no_commit_is_refused(tiny_repo: tuple[Path, str]) -> None:
    repo, _ = tiny_repo
    for rev in ("no-such-branch", "0" * 40, "--help"):
        with pytest.raises(revision.RevisionError, match="names no commit"):
            revision.resolve(repo, rev)


def test_the_command_line_refuses_a_bad_revision_and_check_without_compare() -> None:
    result = run_cli("bench", "--compare", "no-such-revision-anywhere")
    assert result.exit_code == 2 and "names no commit" in result.output and "Traceback" not in result.output
    result = run_cli("bench", "--check")
    assert result.exit_code == 2 and "--check needs --compare" in result.output
    result = run_cli("bench", "--compare", "HEAD", "--only", "engines")
    assert result.exit_code == 2 and "referee only" in result.output
    result = run_cli("bench", "--compare", "HEAD", "--check", "--rounds", "2")
    assert result.exit_code == 2 and "at least 5 rounds" in result.output


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler for the echo bot")
def test_the_driver_measures_this_tree_with_its_stable_interface(tmp_path: Path) -> None:
    bot = compile_echo_bot(tmp_path)
    assert bot is not None
    (tmp_path / "request").write_bytes(typical_request())
    jobs = [{"kind": "referee", "bot": bot.command[0], "concurrent": 2, "games_each": 1},
            {"kind": "bare", "bot": bot.command[0], "request": str(tmp_path / "request"), "pipes": 2, "count": 20}]
    for job in jobs:
        done = subprocess.run([sys.executable, "-I", str(DRIVER), json.dumps(job)], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["wall_s"] > 0 and result["python"] == sys.version.split()[0]
        if job["kind"] == "referee":
            assert result["decisions"] >= 2 * 20 and result["cpu_s"] > 0  # two BTT games, 30-odd decisions each
        else:
            assert result["decisions"] == 20
