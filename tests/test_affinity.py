"""Scheduling options (issue #35): a concurrency above the machine's cores is refused on
the wall basis unless forced (never the default), `--affinity` pins each table's bots
to cores of their own, and bots without a cgroup run nicer than the referee."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path

import pytest

import arena.process.proctree as proctree
from arena.league.config import default_concurrency
from arena.process.cgroups import cgroup_support
from arena.process.proctree import BOT_NICENESS
from arena.referee.scheduling import CoreSlots, allowed_cores, concurrency_refusal, core_slots
from tests.helpers.cli import run_cli

CORES = len(allowed_cores())

_REPORTER = """
import json, os, sys
print(f"pinned cores={sorted(os.sched_getaffinity(0))} nice={os.nice(0)}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "reporter"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    elif message["type"] == "quit":
        break
"""
"""A bot that tells its stderr log the cores it may run on and its niceness."""


def reporter(folder: Path) -> Path:
    """The reporting bot in a folder of its own (no league output in a bot's folder)."""
    path = folder / "reporter" / "reporter.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_REPORTER)
    return path


def reports(logs: Path) -> dict[Path, list[tuple[tuple[int, ...], int]]]:
    """What every reporter said, by log folder (a table's): its cores and niceness."""
    found: dict[Path, list[tuple[tuple[int, ...], int]]] = {}
    for log in sorted(logs.rglob("*.log")):
        for cores, nice in re.findall(r"pinned cores=(\[[0-9, ]*\]) nice=(-?\d+)", log.read_text()):
            found.setdefault(log.parent, []).append((tuple(ast.literal_eval(cores)), int(nice)))
    return found


# ---- core slots ---------------------------------------------------------------------------------


def test_tables_get_cores_of_their_own() -> None:
    assert core_slots(2, range(8)) == [(0, 1, 2, 3), (4, 5, 6, 7)]
    assert core_slots(3, range(8)) == [(0, 1, 2), (3, 4, 5), (6, 7)]
    assert core_slots(4, [2, 3, 5, 7]) == [(2,), (3,), (5,), (7,)]


def test_more_tables_than_cores_share_them_round_robin() -> None:
    assert core_slots(5, [0, 1]) == [(0,), (1,), (0,), (1,), (0,)]


def test_a_table_takes_a_free_slot_and_gives_it_back() -> None:
    slots = CoreSlots(2, [0, 1, 2, 3])
    first, second = slots.take(), slots.take()
    assert (first, second) == (0, 1) and slots.cores == [(0, 1), (2, 3)]
    slots.give_back(first)
    assert slots.take() == 0


# ---- the cap of concurrency ---------------------------------------------------------------------


def test_the_default_concurrency_is_never_refused() -> None:
    assert default_concurrency() == CORES
    assert concurrency_refusal(default_concurrency(), "wall", ("a", "b", "c")) is None
    assert concurrency_refusal(CORES + 1, "cpu", ("a", "b", "c")) is None
    assert concurrency_refusal(CORES + 1, "wall", ("a", "b", "c")) is not None


def match(*more: str) -> tuple[int, str]:
    result = run_cli("match", "random", "random", "--game", "btt", "--games", "2", "-q", *more)
    return result.exit_code, " ".join(result.output.split())


def test_match_refuses_more_tables_than_cores_on_the_wall_basis() -> None:
    code, text = match("--concurrency", str(CORES + 1))
    assert code == 2 and "Traceback" not in text
    assert (f"error: concurrency {CORES + 1} runs more games at once than this machine has cores ({CORES}): on the "
            "wall basis a bot waiting for a core loses time it did not use") in text
    assert (f"Lower it (--concurrency {CORES} or less), use the CPU basis (--time-basis cpu), or add "
            "--force-concurrency to run it anyway") in text


def test_match_runs_above_the_cores_when_forced_or_on_the_cpu_basis() -> None:
    code, text = match("--concurrency", str(CORES + 1), "--force-concurrency")
    assert code == 0, text
    assert f"warning: --concurrency {CORES + 1} is more than this machine's {CORES} cores (forced)" in text
    code, text = match("--concurrency", str(CORES + 1), "--time-basis", "cpu")
    assert code == 0 and "warning: --concurrency" not in text, text


def league_file(tmp_path: Path, concurrency: int | None, extra: str = "", bots: int = 2) -> Path:
    bot = reporter(tmp_path)
    path = tmp_path / "night.toml"
    key = f"concurrency = {concurrency}\n" if concurrency is not None else ""
    entries = "".join(f'[[bots]]\nname = "r{k}"\ncommand = ["{bot.relative_to(tmp_path)}"]\n' for k in range(bots))
    path.write_text(f'name = "night"\ngame = "btt"\ngames_per_pairing = 2\nseed = 1\n{key}{extra}'
                    f'[time]\nper_move = "5s"\n{entries}')
    return path


def test_league_refuses_a_concurrency_above_the_cores_unless_forced(tmp_path: Path) -> None:
    path = league_file(tmp_path, CORES + 1)
    refused = run_cli("league", "run", str(path), "-q")
    text = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "Traceback" not in text
    assert f"concurrency {CORES + 1} runs more games at once than this machine has cores ({CORES})" in text
    assert (f'Lower it (concurrency = {CORES} or less in the league file), use the CPU basis (basis = "cpu" under '
            '[time]), or add --force-concurrency to run it anyway') in text
    assert not (tmp_path / "night").exists()  # refused before the league's database is made
    forced = run_cli("league", "run", str(path), "-q", "--force-concurrency")
    assert forced.exit_code == 0, forced.output


def test_league_at_the_default_concurrency_or_on_the_cpu_basis_runs(tmp_path: Path) -> None:
    default = run_cli("league", "run", str(league_file(tmp_path / "a", None)), "-q")
    assert default.exit_code == 0, default.output
    (tmp_path / "b").mkdir()
    cpu = league_file(tmp_path / "b", CORES + 1)
    cpu.write_text(cpu.read_text().replace("[time]\n", '[time]\nbasis = "cpu"\n'))
    result = run_cli("league", "run", str(cpu), "-q")
    assert result.exit_code == 0, result.output


# ---- affinity -----------------------------------------------------------------------------------

needs_two_cores = pytest.mark.skipif(CORES < 2, reason="pinning tables apart takes two cores")


@needs_two_cores
def test_a_league_with_affinity_pins_each_tables_bots_to_its_own_cores(tmp_path: Path) -> None:
    """Three bots, three tables, two at a time: every bot runs on one slot's cores,
    the bots of a table on the same ones, and the two tables that start together on
    different ones."""
    path = league_file(tmp_path, 2, bots=3)
    result = run_cli("league", "run", str(path), "-q", "--affinity")
    assert result.exit_code == 0, result.output
    found = reports(tmp_path / "night" / "logs")
    slots = core_slots(2)
    assert len(found) == 3
    used = set()
    for table, said in found.items():
        cores = {c for c, _ in said}
        assert len(cores) == 1 and cores <= set(slots), (table, said)
        used |= cores
    assert used == set(slots)


@needs_two_cores
def test_the_league_files_affinity_key_pins_too(tmp_path: Path) -> None:
    path = league_file(tmp_path, 2, extra="affinity = true\n")
    assert run_cli("league", "run", str(path), "-q").exit_code == 0
    [said] = reports(tmp_path / "night" / "logs").values()
    assert {c for c, _ in said} <= set(core_slots(2)) and len({c for c, _ in said}) == 1


@needs_two_cores
def test_a_match_with_affinity_pins_each_table(tmp_path: Path) -> None:
    bot = str(reporter(tmp_path))
    result = run_cli("match", bot, bot, "--game", "btt", "--games", "4", "-q", "--concurrency", "2",
                     "--affinity", "--log-protocol")
    assert result.exit_code == 0, result.output
    logs = Path(re.findall(r"bot logs \(stderr\): (\S+)", result.output)[0])
    found = reports(logs)
    assert sorted(p.name for p in found) == ["table-1", "table-2"]
    assert [{c for c, _ in found[logs / f"table-{k + 1}"]} for k in range(2)] == [{slot} for slot in core_slots(2)]


def test_without_affinity_bots_may_run_on_every_core(tmp_path: Path) -> None:
    bot = str(reporter(tmp_path))
    result = run_cli("play", "btt", bot, "random", "--log-dir", str(tmp_path / "logs"), "-q")
    assert result.exit_code == 0, result.output
    [said] = reports(tmp_path / "logs").values()
    assert {c for c, _ in said} == {allowed_cores()}


# ---- niceness without a cgroup ------------------------------------------------------------------


def test_without_a_cgroup_bots_run_nicer_than_the_referee(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proctree, "cgroup_support", lambda: dataclasses.replace(cgroup_support(), version=0))
    bot = str(reporter(tmp_path))
    for sandbox in ([], ["--no-sandbox"]):
        logs = tmp_path / f"logs{len(sandbox)}"
        result = run_cli("play", "btt", bot, "random", "--log-dir", str(logs), "-q", *sandbox)
        assert result.exit_code == 0, result.output
        [said] = reports(logs).values()
        assert {nice for _, nice in said} == {min(19, os.nice(0) + BOT_NICENESS)}, sandbox
