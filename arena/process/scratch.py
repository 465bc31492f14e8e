"""A bot's writable folders, and emptying them between games in bounded work.

A bot decides what it leaves behind (a million files, folders nested thousands deep),
so emptying never costs more than a fixed budget: at most MAX_ENTRIES entries,
MAX_DEPTH levels, MAX_SECONDS. Past any of them it stops and says so (`False`), and
the caller replaces the process by a fresh one, whose folders are empty (a sandbox's
tmpfs goes with it; a plain process's folders are removed whole by the reaper, with
`rm -rf` in a worker thread). The walk is a loop over an explicit stack, never
recursion, and works relative to open descriptors, so a bot that swaps a folder for
a link while it runs cannot point it elsewhere. It runs in a worker thread, never on
the event loop.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.process.sandbox import SCRATCH

MAX_ENTRIES = 20_000
"""Most entries one emptying removes; a bot that left more gets a fresh process."""
MAX_DEPTH = 48
"""Deepest folder one emptying descends to (two descriptors a level)."""
MAX_SECONDS = 2.0
"""Longest one emptying may take."""
YIELD_EVERY = 32
YIELD_S = 0.0005
"""A worker thread that walks a folder holds the GIL between its system calls, and the
event loop, back from one of its own, waits for it (up to the interpreter's switch
interval, 5 ms, every time): so the walk pauses this long every YIELD_EVERY entries,
and the loop never waits for more than one short burst."""
QUICK_ENTRIES = 64
"""Entries an emptying may remove on the event loop before it goes on in a thread
(what a bot usually leaves, if anything, and the folders leading to mount points)."""


@dataclass
class Budget:
    """What is left of one emptying's allowance."""

    entries: int = MAX_ENTRIES
    seconds: float = MAX_SECONDS
    exhausted: bool = False
    """Whether the emptying stopped because the allowance was spent (rather than
    because something could not be removed)."""
    in_thread: bool = True
    """Whether the emptying runs in a worker thread, which then pauses every
    YIELD_EVERY entries (see YIELD_S); False for the event loop's quick pass."""

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.seconds

    def spend(self) -> bool:
        """Count one entry; False (and `exhausted`) when the allowance is spent."""
        self.entries -= 1
        if self.entries % YIELD_EVERY == 0:
            if self.in_thread:
                time.sleep(YIELD_S)
            if time.monotonic() > self._deadline:
                self.exhausted = True
        if self.entries < 0:
            self.exhausted = True
        return not self.exhausted


@dataclass
class _Level:
    """One folder being emptied: its descriptor, the listing under way, and where it
    hangs (None for the folder emptying started from, which stays)."""

    fd: int
    listing: Iterator[os.DirEntry[str]]
    name: str | None


def empty_folder(descriptor: int, budget: Budget | None = None) -> bool:
    """Remove every entry of the open folder `descriptor` on its own file system;
    False when the budget ran out or an entry could not be removed (what is left is
    then the caller's to throw away with the process). Mount points inside it (a
    bot's read-only folder shown under its /tmp) are left alone, with the folders
    that lead to them."""
    budget = budget or Budget()
    device = os.fstat(descriptor).st_dev
    levels = [_Level(descriptor, _listing(descriptor), None)]
    try:
        while levels:
            level = levels[-1]
            entry = next(level.listing, None)
            if entry is None:
                levels.pop()
                _close(level)
                if level.name is not None:
                    with contextlib.suppress(OSError):  # not empty: it leads to a mount point
                        os.rmdir(level.name, dir_fd=levels[-1].fd)
                continue
            if not budget.spend():
                return False
            if not entry.is_dir(follow_symlinks=False):
                if not _unlink(entry.name, level.fd):
                    return False
                continue
            if len(levels) > MAX_DEPTH:
                budget.exhausted = True
                return False
            try:
                child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=level.fd)
            except FileNotFoundError:
                continue
            except OSError:
                return False  # a folder it made unreadable: a fresh process instead
            if os.fstat(child).st_dev != device:
                os.close(child)  # a mount point: what is there belongs to the host
                continue
            try:
                levels.append(_Level(child, _listing(child), entry.name))
            except OSError:
                os.close(child)
                return False
        return True
    finally:
        for level in levels:
            _close(level)


def _listing(descriptor: int) -> Iterator[os.DirEntry[str]]:
    """The folder's entries, read as they are needed (a listing of a million names is
    never held at once)."""
    return iter(os.scandir(descriptor))


def _close(level: _Level) -> None:
    close = getattr(level.listing, "close", None)
    if close is not None:
        close()
    if level.name is not None:
        with contextlib.suppress(OSError):
            os.close(level.fd)


def _unlink(name: str, folder: int) -> bool:
    """Remove a file; a mount point (EBUSY) is left, a refusal is a failure."""
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        pass
    except OSError as exc:
        return exc.errno == errno.EBUSY
    return True


def remove_tree(path: Path) -> None:
    """Remove a folder and everything in it, however deep (for a plain process's
    folders once it is dead; in the reaper's thread): `rm -rf` where there is one,
    which neither recurses in Python nor follows links."""
    rm = shutil.which("rm", path="/usr/bin:/bin")
    if rm is not None:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run([rm, "-rf", "--one-file-system", "--", str(path)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=False)
    if os.path.lexists(path):
        with contextlib.suppress(RecursionError):
            shutil.rmtree(path, ignore_errors=True)


class Scratch:
    """An unsandboxed bot's writable folders on the host ($ARENA_SCRATCH and $TMPDIR),
    in a private parent folder, made for one process and removed with it. (A sandboxed
    bot's are tmpfs mounts inside its sandbox: see `TmpfsFolders`.)"""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="arena-scratch-"))
        self.scratch = self.root / "scratch"
        self.tmp = self.root / "tmp"
        self.scratch.mkdir()
        self.tmp.mkdir()

    def empty(self, budget: Budget) -> bool:
        """Remove everything the bot wrote, within one budget for both folders (a file
        it holds open is unlinked all the same); False when that could not be done."""
        for folder in (self.scratch, self.tmp):
            try:
                descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError:
                return False
            try:
                if not empty_folder(descriptor, budget):
                    return False
            finally:
                os.close(descriptor)
        return True

    def remove(self) -> None:
        """Remove the folders whole (blocking: call it from a worker thread)."""
        remove_tree(self.root)


class TmpfsFolders:
    """A sandboxed bot's /scratch and /tmp, reached from the host through the sandbox's
    first process (/proc/PID/root), held open so that a reused pid can never point the
    emptying at another process's files."""

    def __init__(self, descriptors: list[int]) -> None:
        self.descriptors = descriptors

    @classmethod
    def open(cls, sandbox_pid: int, size: int | None) -> TmpfsFolders | None:
        """Open the folders of the sandbox whose bubblewrap runs as `sandbox_pid` (our
        child); None when they cannot be reached or are not the tmpfs mounts we made."""
        init = _sandbox_init(sandbox_pid)
        if init is None:
            return None
        descriptors: list[int] = []
        try:
            for mount in (SCRATCH, "/tmp"):
                descriptors.append(os.open(f"/proc/{init}/root{mount}", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW))
            if _sandbox_init(sandbox_pid) != init or not all(_sized(fd, size) for fd in descriptors):
                raise OSError("not the sandbox's own folders")
        except OSError:
            for descriptor in descriptors:
                os.close(descriptor)
            return None
        return cls(descriptors)

    def empty(self, budget: Budget) -> bool:
        """Empty both folders within one budget; False when that could not be done."""
        return all(empty_folder(descriptor, budget) for descriptor in self.descriptors)

    def close(self) -> None:
        for descriptor in self.descriptors:
            with contextlib.suppress(OSError):
                os.close(descriptor)
        self.descriptors = []


def _sandbox_init(bwrap_pid: int) -> int | None:
    """The pid (as the host sees it) of the first process inside the sandbox: the only
    child of bubblewrap's outer process."""
    try:
        with open(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children", "rb") as handle:
            children = handle.read(4096).split()
    except OSError:
        return None
    return int(children[0]) if len(children) == 1 else None


def _sized(descriptor: int, size: int | None) -> bool:
    """Whether the open folder's file system has the size we gave its tmpfs (a second
    check, after the pid's, that it is the sandbox's own)."""
    if size is None:
        return True
    info = os.fstatvfs(descriptor)
    return abs(info.f_blocks * info.f_frsize - size) <= max(info.f_frsize, 4096)
