"""One run at a time of a league or a resumable match: a lock beside its database.

Two runs of the same league (or of `arena match --out` with the same file) would each
play the pending games and store the same games twice. The first run holds an
exclusive `flock` on DATABASE.run for as long as it runs, and writes there who it is
(pid, host, start); a second run is refused at once with those words. The kernel drops
the lock when its process ends however it ends (kill -9, a crash, a reboot), so a lock
is never stale: the file left behind is only a note, taken over by the next run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path

from arena.errors import ArenaError


class AlreadyRunning(ArenaError):
    """Another run of the same league or match holds its lock."""


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".run")


class RunLock:
    """The lock of one run, held until `release` (or the process's end)."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def take(cls, database: Path, what: str) -> RunLock:
        """Hold the run lock of `database` (the league's or match's); AlreadyRunning
        naming the run that holds it (its pid and host) when another does. `what`
        names the league or match in the message."""
        path = lock_path(database)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise AlreadyRunning(f"cannot open {path} to lock {what} against a second run ({exc.strerror}): fix the "
                                 "folder's permissions") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise AlreadyRunning(
                f"{what} is already running ({holder}; lock {path}): two runs would play the same games twice. "
                f"Wait for it to end, or stop it first (Ctrl-C or kill on that machine); a run that died leaves no "
                f"lock behind") from None
        except OSError as exc:
            os.close(fd)
            raise AlreadyRunning(f"cannot lock {path} ({exc.strerror}): the file system of {database.parent} "
                                 "refuses locks; run from a local folder") from None
        note = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(note) + "\n").encode(), 0)
        return cls(fd, path)

    def release(self) -> None:
        """Let the next run in (safe to call twice)."""
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1


def _holder(fd: int) -> str:
    """Who holds the lock, from the note its run wrote: `pid 4242 on host1 since ...`."""
    try:
        note = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        note = {}
    if not isinstance(note, dict) or "pid" not in note:
        return "a run that has not said who it is yet"
    return f"pid {note.get('pid')} on {note.get('host', '?')} since {note.get('started', '?')}"
