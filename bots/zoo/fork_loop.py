"""At its k-th request forks up to ZOO_MAX_FORKS children (bounded: a process limit does
not bind root), stopping early if fork fails, then hangs."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import fork_until_refused, play  # noqa: E402


def forks(m: dict[str, object]) -> bool:
    forked = fork_until_refused(int(os.environ.get("ZOO_MAX_FORKS", "200")))
    sys.stderr.write(f"forked {forked} children\n")
    sys.stderr.flush()
    while True:
        time.sleep(3600)

play(forks, "zoo-fork-loop")
