"""A covert channel between two sandboxes through what the kernel counts per host user
(whatever the namespaces): it exists only between sandboxes that run as one host user.

    peruser.py send CHANNEL SLOT BITS KEY      (BITS: a string of 0s and 1s)
    peruser.py receive CHANNEL SLOT COUNT KEY

Both print `ready`, read `go T` (a wall-clock time: the clock is shared, so any agreed
time would do) and run one bit per SLOT seconds from T, Manchester-coded: the sender
is "high" in the first half of the slot for a 1, in the second half for a 0; the
receiver compares its two halves. The receiver prints `bits B SECONDS`.

The sender fills the user's quota when high and leaves room when low; the receiver
asks for one unit and gives it back at once (refused: high). Channels:
  pipes    pipe buffer pages (fs.pipe-user-pages-soft, 64 MiB): pipes grown to 1 MiB
           until refused, then new pipes until one comes out with 2 pages instead of
           16 (F_GETPIPE_SZ), 2 closed when low; the receiver's new pipe gets 2 pages
  signals  pending real-time signals (RLIMIT_SIGPENDING): queued to itself until
           refused, 16 taken back when low; the receiver's pthread_kill gets EAGAIN
  mqueue   POSIX message queue bytes (RLIMIT_MSGQUEUE): queues of 80 KiB until
           refused, one removed when low; the receiver's mq_open gets EMFILE
  nproc    tasks (RLIMIT_NPROC, where no cgroup counts them: an ordinary user's
           arena): threads until refused, 16 ended when low (the receiver, started first,
           has a limit lower by the tasks started since); the receiver's thread is refused
Standard library only (ctypes for mq_open).
"""
import ctypes
import fcntl
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
from bots.zoo.channels.clock import level, main, until  # noqa: E402

F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
SIGNAL = signal.SIGRTMIN + 3
LIBC = ctypes.CDLL(None, use_errno=True)


# ---- a quota: fill it until refused when high, leave room when low --------------------------------

def quota(take: Callable[[], Any], give: Callable[[Any], None], room: int) -> Callable[[bool, float], None]:
    """`take` one unit (None when refused), `give` one back; low leaves `room` units free."""
    held: list[Any] = []

    def fill() -> None:
        while (unit := take()) is not None:
            held.append(unit)

    def hold(high: bool, end: float) -> None:
        if not high:
            for _ in range(min(room, len(held))):
                give(held.pop())
        while high and time.time() < end:  # again and again: a unit the receiver held a moment is free again
            fill()
            time.sleep(0.0002)
        until(end)
    fill()
    return hold


def probe(take: Callable[[], Any], give: Callable[[Any], None]) -> Callable[[], float]:
    """The receiver's reading: 1 when one unit is refused."""
    def read() -> float:
        unit = take()
        if unit is None:
            return 1.0
        give(unit)
        return 0.0
    return read


# ---- pipes ----------------------------------------------------------------------------------

def pipes() -> tuple[Callable[[], Any], Callable[[Any], None]]:
    """A unit is a new pipe of 16 pages; refused: it came out with 2 (the user is over the soft limit)."""
    def take() -> Any:
        ends = os.pipe()
        if fcntl.fcntl(ends[1], F_GETPIPE_SZ) >= 65536:
            return ends
        give(ends)
        return None

    def give(ends: tuple[int, int]) -> None:
        for fd in ends:
            os.close(fd)
    return take, give


def pipes_sender() -> tuple[Callable[[], Any], Callable[[Any], None]]:
    """The sender first grows pipes to 1 MiB until refused (past the soft limit's last 256 pages)."""
    try:
        while True:
            ends = os.pipe()
            fcntl.fcntl(ends[1], F_SETPIPE_SZ, 1 << 20)
            GROWN.append(ends)
    except OSError:
        fcntl.fcntl(GROWN[-1][1], F_SETPIPE_SZ, 65536)  # the rest in units of 16 pages, some to give back
    return pipes()


GROWN: list[tuple[int, int]] = []


# ---- pending signals ------------------------------------------------------------------------

def queue_signal() -> Any:
    try:
        signal.pthread_kill(threading.get_ident(), SIGNAL)
    except BlockingIOError:
        return None
    return True


def dequeue_signal(_: Any) -> None:
    signal.sigtimedwait([SIGNAL], 0)


def signals() -> tuple[Callable[[], Any], Callable[[Any], None]]:
    signal.pthread_sigmask(signal.SIG_BLOCK, [SIGNAL])
    return queue_signal, dequeue_signal


# ---- POSIX message queues -------------------------------------------------------------------

class MqAttr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("reserved", ctypes.c_long * 4)]


def mqueues() -> tuple[Callable[[], Any], Callable[[Any], None]]:
    names = (f"/q{i}".encode() for i in range(1 << 30))
    attr = MqAttr(0, 10, 8192, 0)  # about 80 KiB of the user's 800 KiB

    def take() -> Any:
        name = next(names)
        fd = LIBC.mq_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, ctypes.byref(attr))
        if fd < 0:
            return None
        return fd, name

    def give(unit: tuple[int, bytes]) -> None:
        fd, name = unit
        LIBC.mq_unlink(name)
        os.close(fd)
    return take, give


# ---- tasks ----------------------------------------------------------------------------------

def tasks() -> tuple[Callable[[], Any], Callable[[Any], None]]:
    threading.stack_size(1 << 16)

    def take() -> Any:
        stop = threading.Event()
        thread = threading.Thread(target=stop.wait)
        try:
            thread.start()
        except RuntimeError:  # can't start new thread
            return None
        return stop, thread

    def give(unit: tuple[threading.Event, threading.Thread]) -> None:
        stop, thread = unit
        stop.set()
        thread.join()
    return take, give


QUOTAS = {"pipes": (pipes, 2), "signals": (signals, 16), "mqueue": (mqueues, 1), "nproc": (tasks, 16)}


def sender(name: str) -> Callable[[], Callable[[bool, float], None]]:
    make, room = QUOTAS[name]
    return lambda: quota(*(pipes_sender() if name == "pipes" else make()), room)


def receiver(name: str) -> Callable[[], Callable[[float, float], float]]:
    make, _ = QUOTAS[name]
    return lambda: level(probe(*make()))


if __name__ == "__main__":
    main({name: sender(name) for name in QUOTAS}, {name: receiver(name) for name in QUOTAS})
