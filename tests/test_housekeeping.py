"""The referee's housekeeping is bounded in what a bot leaves behind: emptying scratch
folders (files by the thousand, folders nested thousands deep, folders it cannot
open), the pipe diagnosis's look through /proc, and the reaper that buries processes
off the event loop."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.process import procfs
from arena.process.reaper import Burial, Reaper
from arena.process.scratch import MAX_DEPTH, Budget, Scratch, empty_folder, remove_tree


@pytest.fixture
def memory_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder on a tmpfs where there is one (as a sandbox's scratch is): deep trees
    on a busy disk take seconds to remove for the disk's sake alone."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(dir=shm, prefix="arena-test-"))
    try:
        yield folder
    finally:
        remove_tree(folder)


def _open(folder: Path) -> int:
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY)


def _nest(folder: Path, depth: int) -> None:
    """`depth` folders each inside the last, made relative to an open descriptor (the
    whole path would be longer than the system allows)."""
    fd = _open(folder)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        with open(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
            handle.write("x")
    finally:
        os.close(fd)


def test_a_folder_within_the_budget_is_emptied_whole_links_not_followed(tmp_path: Path) -> None:
    folder, outside = tmp_path / "scratch", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    for i in range(50):
        (folder / f"f{i}").write_text("x")
    (folder / "sub" / "deeper").mkdir(parents=True)
    (folder / "sub" / "deeper" / "g").write_text("y")
    (folder / "link").symlink_to(outside)
    fd = _open(folder)
    try:
        assert empty_folder(fd, Budget()) is True
    finally:
        os.close(fd)
    assert list(folder.iterdir()) == []
    assert (outside / "keep.txt").read_text() == "mine"


def test_more_entries_than_the_budget_stop_the_emptying_as_spent(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / f"f{i}").write_text("x")
    budget = Budget(entries=100)
    fd = _open(tmp_path)
    try:
        assert empty_folder(fd, budget) is False
    finally:
        os.close(fd)
    assert budget.exhausted
    assert len(list(tmp_path.iterdir())) == 200


def test_5000_nested_folders_neither_recurse_nor_crash_the_emptying(memory_folder: Path) -> None:
    """RecursionError here once made a match (and every resume of a league) exit 70."""
    _nest(memory_folder, 5000)
    budget = Budget()
    fd = _open(memory_folder)
    try:
        assert empty_folder(fd, budget) is False  # deeper than MAX_DEPTH: a fresh process instead
    finally:
        os.close(fd)
    assert budget.exhausted
    remove_tree(memory_folder)  # the reaper's removal of a plain process's folders goes all the way down
    assert not memory_folder.exists()


def test_a_tree_just_within_the_depth_is_emptied(memory_folder: Path) -> None:
    _nest(memory_folder, MAX_DEPTH - 1)
    fd = _open(memory_folder)
    try:
        assert empty_folder(fd, Budget()) is True
    finally:
        os.close(fd)
    assert list(memory_folder.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens any folder")
def test_a_folder_the_bot_made_unreadable_is_a_failure_not_an_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "f").write_text("x")
    locked.chmod(0)
    try:
        fd = _open(tmp_path)
        try:
            assert empty_folder(fd, Budget()) is False
        finally:
            os.close(fd)
    finally:
        locked.chmod(0o755)


def test_a_plain_bots_scratch_is_emptied_within_one_budget_for_both_folders() -> None:
    scratch = Scratch()
    try:
        for i in range(40):
            (scratch.scratch / f"s{i}").write_text("x")
            (scratch.tmp / f"t{i}").write_text("x")
        assert scratch.empty(Budget(entries=60)) is False
        assert scratch.empty(Budget()) is True
        assert list(scratch.scratch.iterdir()) == [] and list(scratch.tmp.iterdir()) == []
    finally:
        scratch.remove()
    assert not scratch.root.exists()


# ---- /proc, bounded ----------------------------------------------------------------------------

HOLDER = """
import os, resource, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # an ordinary user's soft limit is often 1024
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
fds = [os.dup(0) for _ in range(int(sys.argv[1]))]
print("ready", flush=True)
time.sleep(60)
"""


def test_the_pipe_diagnosis_gives_up_past_its_descriptor_budget() -> None:
    """A process holding many descriptors: the pipe it holds is found, but only within
    the budget; past it the answer is 'cannot tell' (a time-out), never a long walk."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, "3000"], stdin=read_end, stdout=subprocess.PIPE)
    os.close(read_end)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        inode = os.fstat(write_end).st_ino
        assert procfs.pipes_held([proc.pid], {inode}) == {inode}  # found at once among 0, 1 and 2
        other = inode + 10**9  # a pipe nobody holds: every descriptor would have to be read
        assert procfs.pipes_held([proc.pid], {other}, most_descriptors=500) is None
        assert procfs.pipes_held([proc.pid], {other}, most_descriptors=10_000) == set()
    finally:
        proc.kill()
        proc.wait()
        os.close(write_end)


def test_descendants_are_bounded() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                             "[subprocess.Popen(['sleep', '30']) for _ in range(5)]; print('ok', flush=True); "
                             "time.sleep(30)"], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ok\n"
        assert len(procfs.descendants(proc.pid)) == 5
        assert len(procfs.descendants(proc.pid, most=2)) == 2
    finally:
        for pid in procfs.descendants(proc.pid):
            os.kill(pid, 9)
        proc.kill()
        proc.wait()


# ---- the reaper ----------------------------------------------------------------------------------


def test_the_reaper_buries_off_the_loop_and_settle_waits_for_it() -> None:
    """bury hands the process over and returns at once; the clean-ups run once it is
    reaped, and settle returns only then."""
    reaper = Reaper()
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    release = threading.Event()
    order: list[str] = []

    def cleanup() -> None:
        release.wait(10)
        order.append(f"cleanup after exit {proc.returncode}")

    async def main() -> list[str]:
        reaper.bury(Burial(proc, cleanups=[cleanup]))
        seen = list(order)  # bury did not wait for the burial
        release.set()
        await reaper.settle([proc.pid])
        return seen

    assert trio.run(main) == []
    assert order == ["cleanup after exit -9"]
    assert reaper.pending() == []
