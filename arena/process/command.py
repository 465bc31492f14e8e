"""How one bot process is started, decided whole before the fork: its argv,
environment, working folder, descriptors to pass and, for a sandbox started by root,
the mounts the child makes in a mount namespace of its own and the unprivileged host
user it becomes before it runs bubblewrap.

The spawn (arena/process/bot_process.py) runs exactly this value: it joins the bot's
cgroup in the child (the cgroup files are root's), then calls `BotCommand.in_child`,
then execs `argv`. Everything that needs a decision lives on the side that builds the
value (arena/process/sandbox.py), so the spawn stays the same whatever the sandbox shows.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

_CLONE_NEWNS = 0x00020000
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_PR_SET_PDEATHSIG = 1


def _load_libc() -> ctypes.CDLL | None:
    """libc, loaded in the parent: the child between fork and exec only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    libc.unshare.argtypes = [ctypes.c_int]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return libc


_LIBC = _load_libc()


class ChildSetupError(OSError):
    """A step of the child's set-up failed (the spawn reports it as the arena's error)."""


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise ChildSetupError(error, f"{what}: {os.strerror(error)}")


@dataclass
class BotCommand:
    """Everything the spawn needs to start one bot process."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    pass_fds: tuple[int, ...] = ()
    """Descriptors the process inherits (all others are closed)."""
    run_as: tuple[int, int] | None = None
    """The host uid and gid the child becomes before exec (when the arena runs as root:
    bubblewrap then runs unprivileged, and the bot's user maps to this one, never 0)."""
    stage: tuple[tuple[str, str], ...] = ()
    """(source, mount point) pairs the child, still root, binds in a mount namespace of
    its own before it drops its privileges: folders root can reach and the unprivileged
    user cannot (a Python under /root, mode 700), shown to bubblewrap at a path it can
    read. The host's mount table never sees them."""
    sandboxed: bool = False
    shown: tuple[Path, ...] = ()
    """What the bot may read beyond the system folders (to explain a start-up failure
    that names a path it was not shown)."""
    owned: list[Path] = field(default_factory=list)
    """Folders made for this process alone (private copies, mount points): removed with it."""
    on_release: list[Callable[[], None]] = field(default_factory=list)
    """What else ends with the process (the lease of its host user)."""
    folder: Path | None = None
    """The bot's own folder, as its sandbox shows it (to tell a folder bubblewrap could
    not show from a fault of the arena's)."""
    tmpfs_bytes: int | None = None
    """The size of each of the sandbox's /scratch, /tmp and /dev/shm (None: no size)."""

    def in_child(self) -> None:
        """Runs in the child after it joined its cgroup, before exec: the mounts of
        `stage`, then the drop to `run_as`, then the death signal again (a change of
        user clears it)."""
        if self.stage:
            assert _LIBC is not None
            _check(_LIBC.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
            _check(_LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "making / private")
            for source, target in self.stage:
                _check(_LIBC.mount(source.encode(), target.encode(), None, _MS_BIND | _MS_REC, None),
                       f"binding {source}")
        if self.run_as is not None:
            uid, gid = self.run_as
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            if _LIBC is not None:
                _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def release(self) -> None:
        """Remove the folders made for this process (call once it is reaped); close
        the descriptors that were passed."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()
        for folder in self.owned:
            shutil.rmtree(folder, ignore_errors=True)
        self.owned = []
        for release in self.on_release:
            release()
        self.on_release = []
