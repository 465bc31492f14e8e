"""A bot's fault as an exception (raised where it is found: the pipe, the decoder, the
clock) and as a record of the seat it cost (kept in the game's outcome)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.lazy import public
from arena.termination import Termination


@public
class BotFault(ArenaError):
    """A bot broke the contract; `reason` is the record's termination reason. An
    ArenaError, so that `except arena.ArenaError` also catches what SimpleBot.play
    raises; the referee catches it first and scores it as the bot's fault."""

    def __init__(self, reason: Termination, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail

    def __reduce__(self) -> tuple[type[BotFault], tuple[Termination, str]]:
        """Pickled as its reason and detail (an exception's default is its message alone)."""
        return type(self), (self.reason, self.detail)


@dataclass(frozen=True)
class SeatFault:
    """Why a seat was forfeited or removed, and at which ply (0: at start-up)."""

    seat: int
    reason: Termination
    detail: str
    ply: int

    @property
    def when(self) -> str:
        return "at start-up" if self.ply == 0 else f"at ply {self.ply}"


OUT_OF_MEMORY = re.compile(r"MemoryError|OutOfMemory|out of memory|cannot allocate memory|bad_alloc|"
                           r"memory allocation of \d+ bytes failed|Fatal process OOM|allocation failed|"
                           r"insufficient memory|Not enough space|errno=12|Could not reserve enough space|"
                           r"failed to map|mmap failed", re.I)
"""How runtimes say an allocation was refused (Python, Java, C++, Rust, Go, V8, libc;
a JVM refused its heap says `os::commit_memory ... error='Not enough space' (errno=12)`
or `Could not reserve enough space for object heap`)."""
NO_MORE_PROCESSES = re.compile(r"can't start new thread|Resource temporarily unavailable|fork: retry|"
                               r"BlockingIOError|EAGAIN|pthread_create|failed to create thread", re.I)
"""How runtimes say a process or thread was refused."""


def said_limit_hit(detail: str, memory: bool, processes: bool) -> tuple[bool, bool]:
    """Where limits hold per process (no cgroup), a refused allocation or fork shows only
    in what the bot's runtime wrote before it died: whether the fault's detail (its
    stderr's end) says it ran out of memory, or of processes, for the limits set."""
    return memory and bool(OUT_OF_MEMORY.search(detail)), processes and bool(NO_MORE_PROCESSES.search(detail))
