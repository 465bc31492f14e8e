"""`arena bench --only rl` (arena/bench/rl.py, arena/bench/rl_driver.py): every game
through every loop and the two anchors, with tiny counts; the table's shape, and the
comparison's columns with a fake revision (no timing asserted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.bench import rl, rl_driver

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")


def rendered(table: Any) -> str:
    console = Console(width=400, record=True)
    console.print(table)
    return console.export_text()


@pytest.mark.parametrize("loop", ["pettingzoo", "openspiel", "openspiel-bare"])
def test_the_driver_plays_the_decisions_asked(loop: str) -> None:
    result = rl_driver.measure({"loop": loop, "game": "btt", "players": 2, "options": {}, "seconds": 60,
                                "decisions": 7, "seed": 3})
    assert result["decisions"] == 7
    assert result["wall_s"] > 0
    assert (result["observe_s"] > 0) == (loop != "openspiel-bare")
    assert result["cpu_s"] > 0


def test_this_trees_table_has_a_row_per_game_and_loop_and_the_anchors() -> None:
    table = rl.this_tree(seconds=0.0, decisions=2)
    assert table.row_count == len(rl.GAMES) * len(rl.LOOPS) + len(rl.ANCHORS)
    text = rendered(table)
    for game, _, _ in rl.GAMES:
        assert game in text
    assert "connect_four_v3" in text and "tic_tac_toe" in text
    assert "decisions/s this tree" in text


def test_a_comparison_has_both_sides_and_the_ratios() -> None:
    calls: list[tuple[Path | None, str]] = []

    def fake(python: Path | None, job: dict[str, Any]) -> dict[str, Any]:
        calls.append((python, job["loop"]))
        slow = python is not None
        return {"decisions": 10, "wall_s": 2.0 if slow else 1.0, "cpu_s": 1.5 if slow else 0.5,
                "observe_s": 0.5 if slow else 0.1}

    table = rl.compare_rl(("this tree", None), ("old", Path("/rev/python")), 1.0, 10, runner=fake)
    text = rendered(table)
    assert table.row_count == len(rl.jobs(1.0, 10))
    assert len(calls) == 2 * table.row_count
    assert {python for python, _ in calls} == {None, Path("/rev/python")}
    assert "2.00x" in text and "3.00x" in text and "5.00x" in text  # decisions/s, per CPU second, observation
    assert "decisions/CPU-s ratio" in text
    assert "decisions/s old" in text
