"""A covert channel between two sandboxes through the CPU they share.

    cpu.py send CHANNEL SLOT BITS KEY      (BITS: a string of 0s and 1s)
    cpu.py receive CHANNEL SLOT COUNT KEY

Both print `ready`, read `go T` (a wall-clock time: the clock is shared, so any agreed
time would do) and run one bit per SLOT seconds from T, Manchester-coded: the sender
spins in the first half of the slot for a 1, in the second half for a 0, and sleeps
otherwise; the receiver compares its two halves. The receiver prints `bits B SECONDS`.

The sender spins one process per core (its cgroup quota, one core by default, then
spreads that core's worth over all of them). Channels (what the receiver reads):
  progress  its own progress: loop turns in the window (fewer while the sender spins)
  running   /proc/stat procs_running, the machine's runnable tasks
  pressure  /proc/pressure/cpu `some total`, time tasks waited for a CPU
  idle      /proc/uptime, the machine's idle time (less while the sender spins)
Standard library only.
"""
import mmap
import os
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
from bots.zoo.channels.clock import field, level, main, rate, until  # noqa: E402

# ---- the sender ---------------------------------------------------------------------------

def spinners() -> Callable[[bool, float], None]:
    """One child per core spins while a shared flag is set (the sender's own memory)."""
    flag = mmap.mmap(-1, 1)
    for _ in range(os.cpu_count() or 1):
        if os.fork() == 0:
            while True:
                if flag[0]:
                    for _ in range(10000):
                        pass
                else:
                    time.sleep(0.0002)

    def hold(high: bool, end: float) -> None:
        flag[0] = int(high)
        until(end)
    return hold


# ---- the receivers ------------------------------------------------------------------------

def progress(a: float, b: float) -> float:
    until(a + (b - a) / 4)
    turns = 0
    while time.time() < b:
        for _ in range(100):
            pass
        turns += 1
    return -turns


RECEIVERS: dict[str, Callable[[], Callable[[float, float], float]]] = {
    "progress": lambda: progress,
    "running": lambda: level(field("/proc/stat", "procs_running", 1)),
    "pressure": lambda: rate(field("/proc/pressure/cpu", "some", 8)),
    "idle": lambda: rate(lambda: -field("/proc/uptime", "", 1)()),
}

if __name__ == "__main__":
    main({name: spinners for name in RECEIVERS}, RECEIVERS)
