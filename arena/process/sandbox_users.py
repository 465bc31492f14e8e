"""A host user of its own for each sandbox the arena starts as root.

The kernel keeps some accounts per host user, whatever the namespaces: kernel keys and
their quota, the pipe buffer pages a user may hold, inotify instances, the task count
RLIMIT_NPROC checks. Sandboxes that share a host user share those accounts, and each
is a way for one to signal another. As root the arena can give every sandbox a user no
one else has (as isolate gives each box its own uid): `lease` picks a free one from a
range that no distribution assigns, and holds it with a lock on a file of its own in a
folder only root can write, so that two referees on one machine (a league, a Dask
worker) never hand out the same user at once. The lease ends with the process tree; a
referee killed with -9 loses its locks with its life, and its sandboxes die with it.

An ordinary user cannot do this (a user namespace maps only the user's own uid), so its
sandboxes share its accounts: docs/security.md measures what that leaves.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

FIRST_UID = 0x7001_0000
"""1879113728: past the ranges systemd gives containers (up to 1879048191) and below
its foreign range (from 2147352576); no distribution gives out these users."""
USERS = 1 << 16
"""How many users the range holds: sandboxes alive at once on one machine."""
FOLDERS = ("/run", tempfile.gettempdir())
"""Where the lock folder may be made (the first that root can write)."""
LOCK_FOLDER = "arena-sandbox-users"

_lock = threading.Lock()
_next = [os.getpid() * 61 % USERS]
"""Where this process starts looking: referees that start together look apart."""


@dataclass
class SandboxUser:
    """A host user leased for one sandbox: its uid (also its gid), held while `fd` is open."""

    uid: int
    fd: int

    def release(self) -> None:
        """End the lease (call once the sandbox's processes are gone)."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1


def _lock_folder() -> int | None:
    """A descriptor of the folder of lock files: root's own, mode 700, never a link."""
    for base in FOLDERS:
        path = Path(base) / LOCK_FOLDER
        with contextlib.suppress(FileExistsError, OSError):
            os.mkdir(path, 0o700)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        info = os.fstat(fd)
        if info.st_uid == 0 and not stat.S_IMODE(info.st_mode) & 0o022:
            return fd
        os.close(fd)
    return None


def _unused(uid: int) -> bool:
    """Whether no account of this machine is this uid."""
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return True
    return False


def lease(most_tries: int = 4096) -> SandboxUser | None:
    """A free host user for one sandbox, or None where none can be had (not root, no
    folder for the locks, the range taken): the caller then uses the shared one."""
    if os.geteuid() != 0:
        return None
    folder = _lock_folder()
    if folder is None:
        return None
    try:
        with _lock:
            for _ in range(most_tries):
                slot = _next[0]
                _next[0] = (slot + 1) % USERS
                uid = FIRST_UID + slot
                fd = os.open(str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                if _unused(uid):
                    return SandboxUser(uid, fd)
                os.close(fd)
    except OSError:
        return None
    finally:
        os.close(folder)
    return None
