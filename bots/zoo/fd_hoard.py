"""At its ZOO_PLY-th request (default 3) starts ZOO_CHILDREN children (default 40) each
holding ZOO_FDS descriptors (default 5,000; copies of /dev/null, up to its descriptor
limit), then never answers: its time-out sends the referee looking through /proc for
which of its pipes the bot still holds, and its kill makes every child close all its
descriptors as it dies. With ZOO_CLOSE=1 the children close their standard descriptors
and the bot its stdout, so that no process holds that pipe and the look must go through
every descriptor. It says on stderr how many it holds: `HOARD: <n> children x <m>
descriptors`."""
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import play  # noqa: E402

CHILDREN = int(os.environ.get("ZOO_CHILDREN", "40"))
FDS = int(os.environ.get("ZOO_FDS", "5000"))
CLOSE = os.environ.get("ZOO_CLOSE") == "1"


def hoard(message: dict[str, object]) -> bool:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FDS + 16 if hard == resource.RLIM_INFINITY else min(FDS + 16, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    held = max(0, min(FDS, wanted - 16))
    ready_r, ready_w = os.pipe()
    started = 0
    for _ in range(CHILDREN):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            if CLOSE:
                for fd in (0, 1):
                    os.close(fd)
            null = os.open(os.devnull, os.O_RDONLY)
            for _ in range(held):
                os.dup(null)
            os.write(ready_w, b"x")
            while True:
                time.sleep(3600)
        started += 1
    os.close(ready_w)
    seen = 0
    while seen < started and os.read(ready_r, 1):
        seen += 1
    sys.stderr.write(f"HOARD: {seen} children x {held} descriptors\n")
    sys.stderr.flush()
    if CLOSE:
        os.close(1)
    while True:
        time.sleep(3600)


play(hoard, "zoo-fd-hoard")
