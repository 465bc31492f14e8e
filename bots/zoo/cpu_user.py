"""Plays like the random bot, but at request ZOO_PLY and every later one it uses time
as ZOO_USE says before answering, for the CPU basis's tests:
- sleep: sleeps ZOO_SECONDS, using no CPU (fine on the CPU basis until its backstop);
- spin: computes for ZOO_SECONDS of wall time (a time-out on the CPU basis when that is
  more than the limit);
- child: starts a child process that computes while the bot itself waits for it, so
  only the child's CPU time can make it a time-out (counted by the bot's cgroup, or
  where there is none, found by the referee's walk of the bot's processes)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_SECONDS, play  # noqa: E402

USE = os.environ.get("ZOO_USE", "sleep")


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(1000))


def use_time(message: dict[str, object]) -> bool:
    if USE == "spin":
        spin(ZOO_SECONDS)
    elif USE == "child":
        pid = os.fork()
        if pid == 0:
            spin(ZOO_SECONDS)
            os._exit(0)
        os.waitpid(pid, 0)
    else:
        time.sleep(ZOO_SECONDS)
    return False


play(use_time, "zoo-cpu-user", every=True)
