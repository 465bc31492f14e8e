"""All the bots of one arena in one parent group, and the arena in a leaf of its own
weighing REFEREE_FACTOR times as much (where it cannot have one, the bots' parent
weighs what the referee does), so that however many games run at once the referee
gets the CPU ahead of the bots: the layout on this machine's cgroup v1 (where the arena
may make groups), the sweep of a dead arena's groups, and the v2 layout on a folder
standing in for a v2 tree (the referee's leaf, the parent's controllers and weights)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.process import cgroups
from arena.process.cgroups import (
    BOT_CORES,
    REFEREE_FACTOR,
    BotCgroup,
    CgroupSupport,
    _sweep,
    _v2_problem,
    bots_parent_name,
    bots_weight,
    cgroup_support,
    join_cgroup,
    nice_weight,
    referee_leaf_name,
    referee_weight,
)

DEAD = 999_999_999
"""A pid no process has (beyond any pid_max), for a dead arena's groups."""


def v1_support() -> CgroupSupport:
    support = cgroup_support()
    if support.version != 1:
        pytest.skip(f"no writable cgroup v1 here ({support.why or f'cgroup v{support.version}'})")
    return support


def own_cpu_group() -> str:
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    return next(line.split(":", 2)[2] for line in lines if "cpu" in line.split(":")[1].split(","))


def test_a_bots_group_lies_under_the_bots_parent_and_the_referee_in_a_heavier_leaf() -> None:
    support = v1_support()
    group = BotCgroup(support, 64 << 20, 8, 1.0)
    try:
        for controller, path in group.dirs.items():
            assert path.parent == support.parents[controller]
            assert path.parent.name == bots_parent_name() and path.parent.is_dir()
        if "cpu" in support.parents:
            shares = int((support.parents["cpu"] / "cpu.shares").read_text())
            assert own_cpu_group().endswith(f"/{referee_leaf_name()}")
            leaf = support.parents["cpu"].parent / referee_leaf_name()
            assert shares == support.weight == bots_weight(1, referee_in_leaf=True) == 1024 * BOT_CORES
            assert support.referee_weight == referee_weight(1)
            assert int((leaf / "cpu.shares").read_text()) == referee_weight(1) == REFEREE_FACTOR * 1024
            assert str(os.getpid()) in (leaf / "cgroup.procs").read_text().split()
    finally:
        group.remove()


def test_without_a_leaf_the_bots_parent_weighs_what_the_referee_does() -> None:
    assert bots_weight(1, referee_in_leaf=False) == nice_weight()
    kernel = {0: 1024, 5: 335, -10: 9548, 19: 15}  # sched_prio_to_weight
    for nice, weight in kernel.items():
        assert nice_weight(nice) == pytest.approx(weight, rel=0.01)
    assert bots_weight(2, referee_in_leaf=False) == round(nice_weight() / 10.24)


def test_a_bot_joins_its_own_group_is_counted_there_and_its_group_is_removed_after() -> None:
    support = v1_support()
    group = BotCgroup(support, 64 << 20, 8, 1.0)
    proc = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: join_cgroup(group.procs_files))
    try:
        assert group.pids() == [proc.pid]
        for path in group.dirs.values():
            assert str(proc.pid) in (path / "cgroup.procs").read_text().split()
        if "cpuacct" in support.parents:
            assert group.cpu_seconds() is not None
        assert (group.dirs["pids"] / "pids.max").read_text().strip() == "8"
    finally:
        proc.kill()
        proc.wait()
    group.remove()
    assert not any(path.exists() for path in group.dirs.values())
    assert all(parent.is_dir() for parent in support.parents.values())  # kept for the next bot


def arena_process(code: str) -> list[Path]:
    """Run `code` in a fresh Python that prints the bots' parents, one a line."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return [Path(line) for line in done.stdout.split()]


def test_the_bots_parent_and_the_referees_leaf_are_removed_when_the_arena_exits() -> None:
    v1_support()
    parents = arena_process("""
        from arena.process.cgroups import BotCgroup, cgroup_support, referee_leaf_name
        support = cgroup_support()
        BotCgroup(support, 64 << 20, 8).remove()
        print(*support.parents.values())
        if "cpu" in support.parents:
            print(support.parents["cpu"].parent / referee_leaf_name())
    """)
    assert parents and not any(parent.exists() for parent in parents)


def test_a_killed_arenas_parent_is_swept_after_the_bots_groups_in_it() -> None:
    v1_support()
    parents = arena_process("""
        import os
        from arena.process.cgroups import BotCgroup, cgroup_support
        support = cgroup_support()
        group = BotCgroup(support, 64 << 20, 8)
        print(*support.parents.values(), flush=True)
        os._exit(0)  # as if killed: no clean-up at exit
    """)
    assert parents and all(parent.is_dir() and any(parent.glob("arena-*-*")) for parent in parents)
    _sweep({parent.parent for parent in parents})
    assert not any(parent.exists() for parent in parents)


def test_the_sweep_removes_a_dead_arenas_groups_children_first_and_keeps_the_living(tmp_path: Path) -> None:
    dead_bots = tmp_path / f"arena-{DEAD}-bots"
    (dead_bots / f"arena-{DEAD}-0").mkdir(parents=True)
    (dead_bots / f"arena-{DEAD}-1").mkdir()
    (tmp_path / f"arena-{DEAD}-referee").mkdir()
    (tmp_path / f"arena-{DEAD}-7").mkdir()  # the flat layout of earlier arenas
    living = tmp_path / bots_parent_name() / f"arena-{os.getpid()}-0"
    living.mkdir(parents=True)
    _sweep([tmp_path])
    assert sorted(p.name for p in tmp_path.iterdir()) == [bots_parent_name()]
    assert living.is_dir()


# ---- cgroup v2, on a folder standing in for one ------------------------------------------------


def v2_group(path: Path, controllers: str = "cpu memory pids", enabled: str = "", procs: str = "") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "cgroup.controllers").write_text(controllers)
    (path / "cgroup.subtree_control").write_text(enabled)
    (path / "cgroup.procs").write_text(procs)
    return path


def test_v2_the_arena_moves_into_its_own_leaf_so_its_group_can_hand_controllers_down(tmp_path: Path) -> None:
    scope = v2_group(tmp_path / "scope", procs=f"{os.getpid()}\n")
    assert _v2_problem(scope) is None
    leaf = scope / f"arena-{os.getpid()}-referee"
    assert (leaf / "cgroup.procs").read_text() == str(os.getpid())
    assert "+cpu" in (scope / "cgroup.subtree_control").read_text()


def test_v2_a_group_shared_with_other_processes_is_refused_with_the_fix(tmp_path: Path) -> None:
    scope = v2_group(tmp_path / "shell", procs=f"{os.getpid()}\n1\n")
    problem = _v2_problem(scope)
    assert problem is not None and "other processes than the arena" in problem and "Delegate=yes" in problem
    assert not (scope / f"arena-{os.getpid()}-referee").exists()


def test_v2_bots_share_a_parent_of_the_default_weight_with_the_controllers(tmp_path: Path) -> None:
    scope = v2_group(tmp_path / "scope", enabled="cpu memory pids")
    weight = bots_weight(2, referee_in_leaf=True)
    assert weight == 100 * BOT_CORES and referee_weight(2) == 100 * REFEREE_FACTOR
    support = CgroupSupport(2, {"": scope / bots_parent_name()}, "", weight)
    group = BotCgroup(support, 1 << 30, 64, 1.0)
    parent = group.dirs[""].parent
    assert parent == scope / bots_parent_name()
    assert (parent / "cpu.weight").read_text() == str(weight)
    assert set((parent / "cgroup.subtree_control").read_text().split()) == {"+cpu", "+memory", "+pids"}
    assert (group.dirs[""] / "memory.max").read_text() == str(1 << 30)
    assert group.procs_files == [str(group.dirs[""] / "cgroup.procs")]
    second = BotCgroup(support, None, 8)
    assert second.dirs[""].parent == parent and second.dirs[""] != group.dirs[""]


@pytest.fixture
def fake_v2_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A v2 root in `tmp_path` (the probe's cache cleared before and after)."""
    v2_group(tmp_path)
    monkeypatch.setattr(cgroups, "CGROUP_ROOT", tmp_path)
    cgroup_support.cache_clear()
    yield tmp_path
    cgroup_support.cache_clear()


def test_v2_probe_gives_the_bots_parent_beside_the_referees_leaf(fake_v2_root: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    scope = v2_group(fake_v2_root / "scope", procs=str(os.getpid()))
    monkeypatch.setattr(cgroups, "_own_groups", lambda: {"": "/scope"})
    support = cgroup_support()
    assert support.version == 2 and support.parents == {"": scope / bots_parent_name()}
    assert support.weight == bots_weight(2, referee_in_leaf=True) == 100 * BOT_CORES
    assert support.referee_weight == referee_weight(2) == 1000
    leaf = scope / referee_leaf_name()
    assert (leaf / "cgroup.procs").read_text() == str(os.getpid())
    assert (leaf / "cpu.weight").read_text() == str(referee_weight(2))


def test_v2_an_arena_started_from_another_arenas_leaf_makes_its_groups_beside_it(
        fake_v2_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scope = v2_group(fake_v2_root / "scope", enabled="cpu memory pids")
    v2_group(scope / "arena-1-referee", procs=str(os.getpid()))  # pid 1 lives: its leaf stays
    monkeypatch.setattr(cgroups, "_own_groups", lambda: {"": "/scope/arena-1-referee"})
    support = cgroup_support()
    assert support.version == 2 and support.parents == {"": scope / bots_parent_name()}
    assert support.weight == bots_weight(2, referee_in_leaf=False)  # in the other arena's leaf, not its own
    assert support.referee_weight is None
