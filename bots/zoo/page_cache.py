"""A cheating bot for the escape suite: it passes its The Tree hand to the next process
of itself through the page cache of a file of its own read-only folder.

At the first request of each game it reads the channel: which of the first 40 pages of
its file (ZOO_TARGET, in its folder) are in the page cache, asked with
preadv2(RWF_NOWAIT), which fails rather than read from the disk. Pages 36-39 must read
1, 0, 1, 0; then pages 0-35 are its earlier hand, one bit per tile of the double-seven
set. It reports `ATTACK pagecache: game N: found <tiles>` (or `found nothing`), then
writes its own hand: posix_fadvise(DONTNEED) empties the file's cache, and reading a
page sets its bit. In a rotation the next game deals the same hands with the seats
moved on, so a fresh process that finds the earlier hand knows its opponent's.
Then it plays random legal actions. Standard library only.
"""
import json
import os
import random
import sys
import time

TILES = [f"{a}{b}" for a in range(8) for b in range(a, 8)]
MARKER = [1, 0, 1, 0]
PAGE = os.sysconf("SC_PAGE_SIZE")
PAGES = len(TILES) + len(MARKER)


def report(text: str) -> None:
    sys.stderr.write(f"ATTACK pagecache: {text}\n")
    sys.stderr.flush()


def cached(fd: int, page: int) -> bool:
    try:
        return os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT) == 1
    except BlockingIOError:
        return False


def listen(fd: int) -> list[str] | None:
    bits = [int(cached(fd, page)) for page in range(PAGES)]
    if bits[len(TILES):] != MARKER:
        return None
    return [tile for tile, bit in zip(TILES, bits) if bit]


def tell(fd: int, hand: list[str]) -> None:
    time.sleep(0.1)  # probing a page that was not cached starts reading it: let that end first
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
