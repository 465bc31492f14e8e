"""The cgroup v2 layout, which most users' machines have but this project's test
machine does not (its memory and pids controllers are v1): what the arena writes to
and reads from a v2 group, checked against a folder standing in for one."""

from __future__ import annotations

from pathlib import Path

from arena.process.cgroups import CPU_PERIOD_US, BotCgroup, CgroupSupport, _v2_problem


def v2_parent(tmp_path: Path, controllers: str = "cpu memory pids", enabled: str = "") -> Path:
    (tmp_path / "cgroup.controllers").write_text(controllers)
    (tmp_path / "cgroup.subtree_control").write_text(enabled)
    return tmp_path


def test_a_v2_group_gets_the_memory_process_and_cpu_limits(tmp_path: Path) -> None:
    group = BotCgroup(CgroupSupport(2, {"": v2_parent(tmp_path)}, ""), 2 << 30, 256, 0.5)
    path = group.dirs[""]
    assert path.parent == tmp_path and path.name.startswith("arena-")
    assert (path / "memory.max").read_text() == str(2 << 30)
    assert (path / "memory.swap.max").read_text() == "0"
    assert (path / "pids.max").read_text() == "256"
    assert (path / "cpu.max").read_text() == f"{CPU_PERIOD_US // 2} {CPU_PERIOD_US}"
    assert group.procs_files == [str(path / "cgroup.procs")]


def test_a_v2_group_counts_cpu_and_tells_which_limit_was_hit(tmp_path: Path) -> None:
    parent = v2_parent(tmp_path)
    group = BotCgroup(CgroupSupport(2, {"": parent}, ""), 1 << 30, 64)
    path = group.dirs[""]
    assert group.cpu_seconds() is None  # no cpu.stat: not counted, not a crash
    (path / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n")
    assert group.cpu_seconds() == 1.5
    assert group.limits_hit() == (False, False)
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.limits_hit() == (True, False)
    (path / "pids.events").write_text("max 2\n")
    assert group.limits_hit() == (True, True)


def test_a_v2_group_is_killed_whole_through_cgroup_kill(tmp_path: Path) -> None:
    group = BotCgroup(CgroupSupport(2, {"": v2_parent(tmp_path)}, ""), None, 16)
    group.kill()
    assert (group.dirs[""] / "cgroup.kill").read_text() == "1"


def test_a_v2_parent_hands_down_memory_and_pids_or_says_why_not(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    ready.mkdir()
    parent = v2_parent(ready)
    assert _v2_problem(parent) is None
    assert "+cpu" in (parent / "cgroup.subtree_control").read_text()
    lacking = tmp_path / "lacking"
    lacking.mkdir()
    problem = _v2_problem(v2_parent(lacking, controllers="cpu io"))
    assert problem is not None and "lacks the memory, pids controller" in problem
    assert _v2_problem(tmp_path / "missing") is not None
