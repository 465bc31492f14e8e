"""A covert channel between two sandboxes through the kernel's global counters, which
every sandbox may read and move.

    counters.py send CHANNEL SLOT BITS KEY      (BITS: a string of 0s and 1s)
    counters.py receive CHANNEL SLOT COUNT KEY

Both print `ready`, read `go T` (a wall-clock time: the clock is shared, so any agreed
time would do) and run one bit per SLOT seconds from T, Manchester-coded: the sender
holds its "high" action in the first half of the slot for a 1, in the second half for
a 0; the receiver compares what it reads in the two halves, so a counter's drift and
the machine's other activity cancel out. The receiver prints `bits B SECONDS`.

Channels (the sender's high action -> what the receiver reads):
  threads     100 idle threads alive      -> /proc/loadavg field 4 (all threads; sysinfo().procs)
  forks       threads started and joined  -> /proc/stat `processes` (forks since boot)
  files       4,000 open /dev/null        -> /proc/sys/fs/file-nr (open files)
  ptys        16 open /dev/ptmx           -> /proc/sys/kernel/pty/nr
  memory      4 MiB mlock()ed             -> /proc/meminfo Mlocked (MemFree moves too, for
              memory touched, but every process of the machine moves it)
  dentries    stat() of fresh missing names -> /proc/sys/fs/dentry-state (dentries)
  ctxt        10 us sleeps in a loop      -> /proc/stat `ctxt` (context switches)
  interrupts  10 us sleeps in a loop      -> /proc/interrupts LOC (local timer interrupts)
(/proc/sys/fs/aio-nr moved the same way with io_setup, which the system call filter refuses.)
Standard library only (ctypes for memset and mlock).
"""
import ctypes
import mmap
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
from bots.zoo.channels.clock import field, level, main, rate, until  # noqa: E402

LIBC = ctypes.CDLL(None, use_errno=True)


# ---- readings -------------------------------------------------------------------------

# ---- senders: each returns hold(level, end) ------------------------------------------------

def holding(acquire: Callable[[], Any], release: Callable[[Any], None]) -> Callable[[bool, float], None]:
    """A sender that holds a resource while high."""
    held: list[Any] = []

    def hold(high: bool, end: float) -> None:
        if high and not held:
            held.append(acquire())
        elif not high and held:
            release(held.pop())
        until(end)
    return hold


def busy(step: Callable[[], None]) -> Callable[[bool, float], None]:
    """A sender that repeats `step` while high."""
    def hold(high: bool, end: float) -> None:
        while high and time.time() < end:
            step()
        until(end)
    return hold


def threads() -> Callable[[bool, float], None]:
    threading.stack_size(1 << 16)

    def acquire() -> tuple[threading.Event, list[threading.Thread]]:
        stop = threading.Event()
        started = [threading.Thread(target=stop.wait) for _ in range(100)]
        for thread in started:
            thread.start()
        return stop, started

    def release(held: tuple[threading.Event, list[threading.Thread]]) -> None:
        stop, started = held
        stop.set()
        for thread in started:
            thread.join()
    return holding(acquire, release)


def forks() -> Callable[[bool, float], None]:
    def step() -> None:
        thread = threading.Thread(target=int)
        thread.start()
        thread.join()
    return busy(step)


def close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def files() -> Callable[[bool, float], None]:
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    return holding(lambda: [os.open("/dev/null", os.O_RDONLY) for _ in range(4000)], close_all)


def ptys() -> Callable[[bool, float], None]:
    return holding(lambda: [os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY) for _ in range(16)], close_all)


def memory() -> Callable[[bool, float], None]:
    size = 4 << 20  # within RLIMIT_MEMLOCK, 8 MiB by default
    area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    address = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(area)))
    LIBC.memset(address, 1, size)

    def hold(high: bool, end: float, area: mmap.mmap = area) -> None:  # the area lives as long as hold
        (LIBC.mlock if high else LIBC.munlock)(address, ctypes.c_size_t(size))
        until(end)
    return hold


def dentries() -> Callable[[bool, float], None]:
    names = (f"/usr/lib/.{os.getpid()}-{os.environ['CHANNEL_KEY']}-{i}" for i in range(1 << 40))

    def step() -> None:
        for _ in range(100):
            os.path.exists(next(names))
    return busy(step)


def naps() -> Callable[[bool, float], None]:
    return busy(lambda: time.sleep(0.00001))


SENDERS = {"threads": threads, "forks": forks, "files": files, "ptys": ptys, "memory": memory,
           "dentries": dentries, "ctxt": naps, "interrupts": naps}


def interrupts() -> float:
    with open("/proc/interrupts") as handle:
        for line in handle:
            if line.lstrip().startswith("LOC:"):
                return float(sum(int(n) for n in line.split()[1:] if n.isdigit()))
    raise LookupError("LOC")


RECEIVERS: dict[str, Callable[[], Callable[[float, float], float]]] = {
    "threads": lambda: level(field("/proc/loadavg", "", 4)),
    "forks": lambda: rate(field("/proc/stat", "processes", 1)),
    "files": lambda: level(field("/proc/sys/fs/file-nr", "", 0)),
    "ptys": lambda: level(field("/proc/sys/kernel/pty/nr", "", 0)),
    "memory": lambda: level(field("/proc/meminfo", "Mlocked:", 1)),
    "dentries": lambda: rate(field("/proc/sys/fs/dentry-state", "", 0)),
    "ctxt": lambda: rate(field("/proc/stat", "ctxt", 1)),
    "interrupts": lambda: rate(interrupts),
}

if __name__ == "__main__":
    main(SENDERS, RECEIVERS)
