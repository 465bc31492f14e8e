"""A covert channel between two sandboxes through the kernel's caches of the files they
both see, read by timing alone (no mincore, cachestat, RWF_NOWAIT or fadvise(DONTNEED)).

    caches.py send CHANNEL SLOT BITS KEY      (BITS: a string of 0s and 1s)
    caches.py receive CHANNEL SLOT COUNT KEY

Each bit has two items, one for a 1 and one for a 0: the sender touches the item of its
bit, the receiver times both and takes the faster as touched (so no threshold is
needed). An item carries a bit once: the receiver's timing touches both. Bits go in
blocks of 64, one block per SLOT seconds from T (`go T`: the clock is shared): the
sender touches block k in slot k, the receiver times it in slot k + 1. The receiver
prints `bits B SECONDS`. KEY picks the items, so that each run uses fresh ones.

Channels:
  pages  the page cache: a page of a large system file (files of 4 MiB or more under
         /usr/lib, one page every 64 KiB, read with POSIX_FADV_RANDOM so that no
         read-ahead touches its neighbours); a cached page reads in ~2 us, one from
         the disk in 30-400 us. About 50,000 items; a page stays cached until the
         machine runs short of memory (a bot that filled 2030 of its 2048 MiB did not
         evict 200 pages it had read: its cgroup killed it first).
  names  the dentry cache: stat() of a name that does not exist in /usr/lib; the
         first lookup leaves a negative dentry, and a second one takes ~2 us
         instead of ~6. Names without end, no disk, no eviction needed.
Standard library only.
"""
import os
import sys
import time
from collections.abc import Callable

BLOCK = 64
STRIDE = 64 << 10
FOLDER = "/usr/lib"


def pages(key: int, count: int) -> Callable[[int], int]:
    """Item i as a function that reads it and returns nanoseconds taken."""
    files = []
    for root, folders, names in os.walk(FOLDER):
        folders.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path) and os.access(path, os.R_OK) \
                    and os.path.getsize(path) >= 4 << 20:
                files.append((path, os.path.getsize(path)))
    spots = [(path, offset) for path, size in files for offset in range(0, size - 4096, STRIDE)]
    start = key % max(1, len(spots) - 2 * count)
    opened: dict[str, int] = {}

    def touch(i: int) -> int:
        path, offset = spots[start + i]
        if path not in opened:
            fd = opened[path] = os.open(path, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        begin = time.perf_counter_ns()
        os.pread(opened[path], 1, offset)
        return time.perf_counter_ns() - begin
    return touch


def names(key: int, count: int) -> Callable[[int], int]:
    def touch(i: int) -> int:
        path = f"{FOLDER}/.{key:x}-{i}"
        begin = time.perf_counter_ns()
        os.path.lexists(path)
        return time.perf_counter_ns() - begin
    return touch


def until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def main() -> None:
    mode, channel, slot, arg, key = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    count = len(arg) if mode == "send" else int(arg)
    touch = {"pages": pages, "names": names}[channel](key, count)
    print("ready", flush=True)
    start = float(sys.stdin.readline().split()[1])
    blocks = range(0, count, BLOCK)
    if mode == "send":
        for k, first in enumerate(blocks):
            until(start + k * slot)
            for i in range(first, min(first + BLOCK, count)):
                touch(2 * i + (arg[i] == "0"))
        print("sent", flush=True)
        return
    bits = ""
    for k, first in enumerate(blocks):
        until(start + (k + 1) * slot)
        for i in range(first, min(first + BLOCK, count)):
            bits += "1" if touch(2 * i) < touch(2 * i + 1) else "0"
    print("bits", bits, f"{time.time() - start:.6f}", flush=True)


if __name__ == "__main__":
    main()
