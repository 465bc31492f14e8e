"""Tests that must not run beside one another on this machine, whichever pytest-xdist
worker runs them: a headless chromium drawing pages stalls the whole 2-core machine for
100-340 ms at a time (measured with a 10 ms sleeper beside test_browser.py), which
charges time-outs to bots that answered in a millisecond at another worker's 100 ms
tables. The browser tests hold this lock while they run; tests that assert that no bot
times out take it too."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK = Path(tempfile.gettempdir()) / "arena-tests-stalling.lock"


@contextmanager
def apart_from_stalls() -> Iterator[None]:
    """Hold the machine-wide lock that the stalling tests and the timing-exact tests share."""
    try:  # read-only is enough to lock, so another user's lock file serves too
        fd = os.open(LOCK, os.O_RDONLY | os.O_CREAT, 0o666)
    except PermissionError:  # another user's, unreadable: a lock of this user's own
        fd = os.open(LOCK.with_name(f"{LOCK.stem}-{os.getuid()}.lock"), os.O_RDONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
