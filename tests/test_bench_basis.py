"""`arena bench --compare REV`'s CPU-time clock rows: this tree alone on the CPU basis
and the wall basis back to back each round, and their ratio (a fake driver: no timing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.bench.compare import CPU_BASIS, Side, compare, comparison_table

CURRENT, BASELINE = Side("now", Path("/py/now")), Side("old", Path("/py/old"))


def fake_driver(calls: list[tuple[str, dict[str, Any]]]) -> Any:
    def run(python: Path, job: dict[str, Any]) -> dict[str, Any]:
        calls.append((python.name, job))
        if job["kind"] == "bare":
            return {"decisions": 1000, "wall_s": 0.01, "cpu_s": None}
        cpu = {None: 0.040, "wall": 0.040, "cpu": 0.042}[job.get("basis")]  # 40 and 42 us a decision
        return {"decisions": 1000, "wall_s": 0.1, "cpu_s": cpu}

    return run


def test_the_cpu_basis_is_measured_on_this_tree_against_its_wall_basis_each_round() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    result = compare(CURRENT, BASELINE, Path("/bot"), b"{}\n", 3200, 3, runner=fake_driver(calls))
    for concurrent in CPU_BASIS:
        assert result.values("now", f"cpubasis{concurrent}") == pytest.approx([42.0] * 3)
        assert result.values("now", f"wallbasis{concurrent}") == pytest.approx([40.0] * 3)
        assert result.basis_ratio(concurrent) == pytest.approx(1.05)
    based = [(python, job) for python, job in calls if "basis" in job]
    assert {python for python, _ in based} == {"now"}  # REV may have no CPU basis
    assert len(based) == 3 * 2 * len(CPU_BASIS)
    first_round = [(job["concurrent"], job["basis"]) for _, job in based[:4]]
    second_round = [(job["concurrent"], job["basis"]) for _, job in based[4:8]]
    assert first_round == [(1, "wall"), (1, "cpu"), (8, "wall"), (8, "cpu")]
    assert second_round == [(1, "cpu"), (1, "wall"), (8, "cpu"), (8, "wall")]  # the first alternates
    assert result.values("now", "cpu1") == pytest.approx([40.0] * 3)  # the compared figures stay apart
    rows = list(comparison_table(result).columns[0].cells)  # the row titles
    assert sum("on the CPU basis" in str(title) for title in rows) == len(CPU_BASIS)
