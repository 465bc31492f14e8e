"""A covert channel between two sandboxes through a futex on a file both see.

    futex.py send futex SLOT BITS KEY      (BITS: a string of 0s and 1s; SLOT unused)
    futex.py receive futex SLOT COUNT KEY

A futex that is not private (no FUTEX_PRIVATE_FLAG) on a shared mapping is known to
the kernel by the file's inode and the offset, not by the process: two processes that
map the same file, read-only and MAP_SHARED, wait on and wake the same futex, whatever
their namespaces. Both map the first page of the interpreter's `os.py` (any file both
see would do) and pick three words of it by KEY. The receiver waits on words 0 and 1
at once (futex_waitv, Linux 5.16); the sender wakes word 0 or word 1 for each bit,
again until the wake reports that it woke someone, then waits on word 2 until the
receiver wakes it (the receiver may still be queued on the other word a moment after
it was woken). Each bit arrives exactly once; no clock is needed.
Both print `ready` and read `go T`; the receiver prints `bits B SECONDS`.
Standard library only (ctypes for mmap and the system calls).
"""
import ctypes
import mmap
import os
import sys
import time

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
LIBC.syscall.restype = ctypes.c_long
SYS_FUTEX, SYS_FUTEX_WAITV = 202, 449  # x86-64
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # without FUTEX_PRIVATE_FLAG (128): shared
FUTEX2_SIZE_U32 = 2
CLOCK_MONOTONIC = 1


class Waiter(ctypes.Structure):
    _fields_ = [("val", ctypes.c_uint64), ("uaddr", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def words(key: int) -> tuple[int, int, int]:
    """The addresses of the three words of the shared page, picked by `key`."""
    fd = os.open(os.path.realpath(os.__file__), os.O_RDONLY)
    base = LIBC.mmap(None, mmap.PAGESIZE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    offset = 16 * (key % (mmap.PAGESIZE // 16))
    return base + offset, base + offset + 4, base + offset + 8


def wake(address: int) -> bool:
    """Wake the one waiting on `address`, trying until there is one (for at most 5 s)."""
    deadline = time.time() + 5
    while LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAKE, 1, None, None, 0) < 1:
        if time.time() > deadline:
            return False
        os.sched_yield()
    return True


def wait(address: int) -> None:
    timeout = Timespec(5, 0)
    value = ctypes.c_uint32.from_address(address).value
    LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAIT, value, ctypes.byref(timeout), None, 0)


def send(bits: str, words: tuple[int, int, int]) -> None:
    for bit in bits:
        if not wake(words[int(bit)]):
            return
        wait(words[2])


def receive(count: int, words: tuple[int, int, int]) -> str:
    """The bits, an x for each that did not come (a wait refused, or no sender)."""
    waiters = (Waiter * 2)(*(Waiter(ctypes.c_uint32.from_address(a).value, a, FUTEX2_SIZE_U32, 0)
                             for a in words[:2]))
    bits = ""
    while len(bits) < count:
        deadline = time.monotonic() + 5
        timeout = Timespec(int(deadline), int(deadline % 1 * 1e9))
        woken = LIBC.syscall(SYS_FUTEX_WAITV, waiters, 2, 0, ctypes.byref(timeout), CLOCK_MONOTONIC)
        if woken not in (0, 1) or not wake(words[2]):
            break
        bits += str(woken)
    return bits.ljust(count, "x")


def main() -> None:
    mode, arg, key = sys.argv[1], sys.argv[4], int(sys.argv[5])
    shared = words(key)
    print("ready", flush=True)
    start = float(sys.stdin.readline().split()[1])
    time.sleep(max(0.0, start - time.time()))
    if mode == "send":
        send(arg, shared)
        print("sent", flush=True)
    else:
        bits = receive(int(arg), shared)
        print("bits", bits, f"{time.time() - start:.6f}", flush=True)


if __name__ == "__main__":
    main()
