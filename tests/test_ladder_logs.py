"""The ladder's log policy: each bot keeps the stderr logs of its newest `keep_games`
units, a unit under way is never touched, folders left empty go, and nothing that is
not a unit's log is removed."""

from __future__ import annotations

from pathlib import Path

from arena.ladder.logs import prune_logs, unit_logs


def _unit(logs: Path, number: int, *bots: str) -> None:
    folder = logs / f"unit-{number}"
    folder.mkdir(parents=True)
    for seat, bot in enumerate(bots):
        (folder / f"{seat}-{bot}_v1.log").write_text(f"{bot} at unit {number}\n")


def test_each_bot_keeps_its_newest_units(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for number in range(1, 6):
        _unit(logs, number, "ann", "ben")
    _unit(logs, 6, "ann", "cat")
    removed = prune_logs(logs, keep=2)
    assert [n for n in range(1, 7) if unit_logs(logs, n, "ann")] == [5, 6]
    assert [n for n in range(1, 7) if unit_logs(logs, n, "ben")] == [4, 5]
    assert unit_logs(logs, 6, "cat")
    assert removed == 4 + 1 + 2  # ann's 1-4, ben's 1-3
    assert not (logs / "unit-1").exists() and not (logs / "unit-3").exists()


def test_a_unit_under_way_and_other_files_stay(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for number in range(1, 4):
        _unit(logs, number, "ann", "ben")
    (logs / "unit-1" / "notes.txt").write_text("the organiser's")
    prune_logs(logs, keep=0, under_way={3})
    assert unit_logs(logs, 3, "ann") and unit_logs(logs, 3, "ben")
    assert not unit_logs(logs, 2, "ann") and not (logs / "unit-2").exists()
    assert (logs / "unit-1" / "notes.txt").read_text() == "the organiser's"


def test_a_bot_name_with_the_version_separator_is_read_whole(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    _unit(logs, 1, "x_v2")
    assert [p.name for p in unit_logs(logs, 1, "x_v2")] == ["0-x_v2_v1.log"]
    assert unit_logs(logs, 1, "x") == []
