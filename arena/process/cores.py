"""The cores this arena may run bots on: its CPU affinity (a container's or taskset's
share, not every core of the machine). The bots' cgroup weight and the referee's cap on
games at once both count them, so they are counted here once."""

from __future__ import annotations

import os


def allowed_cores() -> tuple[int, ...]:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0)))
    return tuple(range(os.cpu_count() or 1))
