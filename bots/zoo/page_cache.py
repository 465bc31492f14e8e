"""A cheating bot for the escape suite: it passes its The Tree hand to the next process
of itself through the page cache of a file of its own read-only folder.

At the first request of each game it reads the channel: which of the first 40 pages of
its file (ZOO_TARGET, in its folder) are in the page cache, asked with mincore(2) on a
mapping of the file (which, unlike a read that would rather fail than wait, starts no
reading: a probe's read-ahead landing after the drop below filled the whole cache). Pages 36-39 must read
1, 0, 1, 0; then pages 0-35 are its earlier hand, one bit per tile of the double-seven
set. It reports `ATTACK pagecache: game N: found <tiles>` (or `found nothing`), then
writes its own hand: posix_fadvise(DONTNEED) empties the file's cache, and reading a
page sets its bit. In a rotation the next game deals the same hands with the seats
moved on, so a fresh process that finds the earlier hand knows its opponent's.
Then it plays random legal actions. Standard library only.
"""
import ctypes
import json
import mmap
import os
import random
import sys

TILES = [f"{a}{b}" for a in range(8) for b in range(a, 8)]
MARKER = [1, 0, 1, 0]
PAGE = os.sysconf("SC_PAGE_SIZE")
PAGES = len(TILES) + len(MARKER)


def report(text: str) -> None:
    sys.stderr.write(f"ATTACK pagecache: {text}\n")
    sys.stderr.flush()


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
LIBC.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def residency(fd: int) -> list[bool]:
    """Which of the file's first PAGES pages are in the page cache (OSError where mincore is refused)."""
    address = LIBC.mmap(None, PAGES * PAGE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    try:
        vector = ctypes.create_string_buffer(PAGES)
        if LIBC.mincore(address, PAGES * PAGE, vector) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return [bool(byte & 1) for byte in vector.raw]
    finally:
        LIBC.munmap(ctypes.c_void_p(address), ctypes.c_size_t(PAGES * PAGE))


def listen(fd: int) -> list[str] | None:
    bits = [int(cached) for cached in residency(fd)]
    if bits[len(TILES):] != MARKER:
        return None
    return [tile for tile, bit in zip(TILES, bits) if bit]


def tell(fd: int, hand: list[str]) -> None:
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    bits = [int(tile in hand) for tile in TILES] + MARKER
    for page, bit in enumerate(bits):
        if bit:
            os.pread(fd, 1, page * PAGE)


def main() -> None:
    fd = os.open(os.environ.get("ZOO_TARGET", "weights.bin"), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead: one page read, one bit set
    rng = random.Random(1)
    games = 0
    first = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "ready", "name": "zoo-page-cache"}
        elif kind == "start":
            games += 1
            first = True
            continue
        elif kind == "request":
            if first:
                first = False
                hand = sorted(message["observation"]["hand"])
                try:
                    found = listen(fd)
                    tell(fd, hand)
                    said = ",".join(found) if found is not None else "nothing"
                except OSError as exc:  # a file system without this page cache (a tmpfs): no channel
                    said = f"nothing ({type(exc).__name__}: {exc.strerror})"
                report(f"game {games}: found {said}; my hand {','.join(hand)}")
            reply = {"type": "action", "action": rng.choice(message["legal"])}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
