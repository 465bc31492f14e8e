"""Burying bot processes off the event loop: kill, wait, reap, clean up, in threads.

Killing a bot's tree and waiting for it takes as long as the bot makes it take (two
hundred processes each closing twenty thousand descriptors as they die, a cgroup v1
that must be signalled pid by pid, a sandbox's init that dies last, a plain process's
million scratch files), so none of it runs on the event loop that keeps every table's
clocks. `BotProcess.kill` hands a `Burial` to the process's `Reaper`, whose worker
threads do the work; a match awaits the burials of its own processes before it
returns (`settle`), so no process is ever left behind.

The reaper also holds the process-wide subreaper state: the referee adopts the
orphaned descendants of its bots, so that it can reap them rather than leave zombies
under a container's init that never reaps.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from dataclasses import dataclass, field
from functools import cache

import trio

from arena.process import procfs

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

WORKERS = 4
"""Burials under way at once (one slow burial must not hold the others up)."""
WAIT_S = 10.0
"""Longest a burial waits for a killed process to die (one stuck in the kernel is
then left for the system to reap)."""
EXIT_WAIT_S = 15.0
"""Longest the interpreter's exit waits for the burials under way."""
ADOPTED_S = 1.0
"""Longest a burial waits for the adopted descendants of a killed bot to die."""


def prctl(option: int, value: int) -> bool:
    """Best-effort prctl (Linux only); False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


@dataclass
class Burial:
    """What is left to do for one killed bot: its first process (bubblewrap's outer
    one, or the bot itself), the processes that may become ours to reap, and the
    clean-ups to run once they are dead (the cgroup's removal, the scratch folders')."""

    proc: subprocess.Popen[bytes]
    known: set[int] = field(default_factory=set)
    """Processes known beforehand that may be adopted: the sandbox's init."""
    signal_group: Callable[[], None] | None = None
    """Kills everything in the bot's cgroup (what left its process group)."""
    group_pids: Callable[[], list[int]] | None = None
    """The pids in the bot's cgroup now."""
    cleanups: list[Callable[[], None]] = field(default_factory=list)


class Reaper:
    """Kills and reaps bot processes in worker threads; holds the subreaper state.

    `bury` only puts the burial on a queue: a dispatcher thread (started with the
    first bot, from the spawn's worker thread) hands it to a pool of workers, so the
    event loop never waits for a thread to start."""

    def __init__(self) -> None:
        self.subreaper = False
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Burial, Future[None]]] = queue.SimpleQueue()
        self._dispatcher: threading.Thread | None = None
        self._pending: dict[int, Future[None]] = {}
        atexit.register(self.settle_now, None, EXIT_WAIT_S)  # a bot killed just before exit is reaped too

    def become_subreaper(self) -> bool:
        """Adopt orphaned descendants (once; after the sandbox's probe, whose own init
        we could not name to reap); start the dispatcher."""
        if not self.subreaper:
            self.subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.start()
        return self.subreaper

    def start(self) -> None:
        """Start the dispatcher thread (once)."""
        with self._lock:
            if self._dispatcher is None:
                self._dispatcher = threading.Thread(target=self._dispatch, name="arena-reaper", daemon=True)
                self._dispatcher.start()

    def bury(self, burial: Burial) -> None:
        """Kill the bot's whole tree and reap it in a worker thread; returns at once."""
        future: Future[None] = Future()
        pid = burial.proc.pid
        with self._lock:
            self._pending[pid] = future
        future.add_done_callback(lambda done: self._forget(pid, done))
        self._queue.put((burial, future))
        if self._dispatcher is None:
            self.start()

    def _dispatch(self) -> None:
        """The dispatcher's loop: each burial to a worker of the pool."""
        pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="arena-burial")
        while True:
            burial, future = self._queue.get()
            try:
                pool.submit(self._run, burial, future)
            except RuntimeError:  # the interpreter is shutting down and the pool with it: bury it here
                self._run(burial, future)

    def _run(self, burial: Burial, future: Future[None]) -> None:
        try:
            self._bury(burial)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever settles
            future.set_exception(exc)
        else:
            future.set_result(None)

    def _forget(self, pid: int, done: Future[None]) -> None:
        with self._lock:
            if self._pending.get(pid) is done:
                del self._pending[pid]

    def pending(self, pids: Iterable[int] | None = None) -> list[Future[None]]:
        """The burials under way (of `pids` only, when given)."""
        with self._lock:
            if pids is None:
                return list(self._pending.values())
            return [self._pending[pid] for pid in pids if pid in self._pending]

    async def settle(self, pids: Iterable[int] | None = None, timeout_s: float = 60.0) -> None:
        """Wait (in a thread, shielded from cancellation) until the burials of `pids`
        (every burial, without `pids`) are done, or `timeout_s` has passed."""
        futures = self.pending(pids)
        if futures:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(wait_all, futures, timeout_s)

    def settle_now(self, pids: Iterable[int] | None = None, timeout_s: float = 60.0) -> None:
        """`settle` for code outside an event loop."""
        futures = self.pending(pids)
        if futures:
            wait_all(futures, timeout_s)

    # ---- in a worker thread ---------------------------------------------------------------

    def _bury(self, burial: Burial) -> None:
        proc = burial.proc
        tree = set(procfs.children(proc.pid)) | burial.known
        if burial.group_pids is not None:
            tree.update(burial.group_pids())
        tree.discard(proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the bot leads its own session: its pid names its group
        if burial.signal_group is not None:
            burial.signal_group()  # what left the process group (a setsid daemon) is still in the cgroup
        with contextlib.suppress(ChildProcessError, subprocess.TimeoutExpired):
            proc.wait(WAIT_S)
        if self.subreaper:
            self._reap_group(proc.pid)
            self._reap_adopted(tree)
        for cleanup in burial.cleanups:
            with contextlib.suppress(Exception):  # a clean-up that fails leaves litter, never a stuck league
                cleanup()

    def _reap_group(self, pgid: int) -> None:
        """Reap the processes of the bot's group that were adopted by us."""
        deadline = time.monotonic() + ADOPTED_S
        while time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-pgid, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                time.sleep(0.001)

    def _reap_adopted(self, pids: set[int]) -> None:
        """Kill and reap those of `pids` (a dead bot's descendants) that became our
        children when their parent died. Without this every sandbox would leave its
        init as a zombie of the arena, and a bot's setsid child, where no cgroup holds
        it, would live on."""
        me = os.getpid()
        adopted = {pid for pid in pids if (procfs.parent_and_group(pid) or (0, 0))[0] == me}
        for pid in adopted:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + ADOPTED_S  # all of them together: a killed process dies at once
        while adopted and time.monotonic() < deadline:
            for pid in list(adopted):
                try:
                    done, _status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid  # reaped already
                if done:
                    adopted.discard(pid)
            if adopted:
                time.sleep(0.001)


@cache
def process_reaper() -> Reaper:
    """The reaper of this process (subreaping is a property of the whole process)."""
    return Reaper()
