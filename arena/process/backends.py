"""Isolation backends: how a bot's process is isolated, chosen by type.

A `BotProcess` asks its backend three things: what to start (the command, built whole
here, so the spawn is the same for every backend), how to empty the bot's writable
folders between games, and what a start-up failure or a crash means in its terms.
Pipes, the process tree, limits, counting and reaping are the same for every backend.

The backend of a launch is `Launch.backend` when the caller names one, else
`backend_for(limits)`: the one place that reads `Limits.sandbox` (what the person
asked for) beside what this machine offers (`sandbox.probe`). A new backend is a
subclass of `Backend` (docs/architecture.md)."""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from arena.process.command import BotCommand
from arena.process.faults import BotFault
from arena.process.sandbox import probe, sandbox_command
from arena.process.scratch import Budget, Scratch, TmpfsFolders
from arena.process.secret import SECRET_ENV
from arena.process.spec import BotSpec, Limits
from arena.process.view import hidden_paths_hint
from arena.termination import Termination

_PROBING = threading.Lock()
"""The sandbox's probe runs bubblewrap once, before any thread makes the referee a
subreaper (whose init would it reap?): one thread at a time."""


class Backend(ABC):
    """One bot process's isolation: made fresh for each process (it keeps what the
    process's later questions need, such as its scratch folders)."""

    sandboxed: ClassVar[bool] = False
    """Whether the bot runs under a sandbox's own init, which holds its pipes and
    reaps its orphans (the process tree counts and looks for stalls accordingly)."""

    def __init__(self, spec: BotSpec, limits: Limits, hidden: tuple[Path, ...]) -> None:
        self.spec = spec
        self.limits = limits
        self.hidden = hidden
        """The referee's output, to be kept from the bot wherever it could read it."""

    @abstractmethod
    def command(self, memory_counted: bool, cleanups: list[Callable[[], None]]) -> BotCommand:
        """What to start. `cleanups` takes callables the reaper runs once the process
        is dead; `memory_counted` says whether a cgroup counts the bot's memory."""

    @abstractmethod
    def empty(self, budget: Budget, pid: int | None, cleanups: list[Callable[[], None]]) -> bool:
        """Empty the bot's writable folders within `budget`; False when that cannot be
        done (the caller starts a fresh process, whose folders are empty)."""

    def forget(self) -> None:
        """The process was killed: drop what points into it (the reaper closes it)."""
        return None

    def startup_failure(self, stderr_tail: str) -> BotFault | None:
        """A fault of the bot's for a start that failed before the bot ran, or None
        when the failure is not the bot's (the caller then says whose it is)."""
        del stderr_tail
        return None

    def crash_hint(self, stderr_tail: str) -> str:
        """Words to add to a crash's detail that tell how to fix it ("" when none)."""
        del stderr_tail
        return ""


class Unsandboxed(Backend):
    """The bot runs as it is, as the arena's user, with writable folders of its own
    on the host (removed whole by the reaper)."""

    def __init__(self, spec: BotSpec, limits: Limits, hidden: tuple[Path, ...]) -> None:
        super().__init__(spec, limits, hidden)
        self.scratch: Scratch | None = None

    def command(self, memory_counted: bool, cleanups: list[Callable[[], None]]) -> BotCommand:
        self.scratch = scratch = Scratch()
        cleanups.append(scratch.remove)
        env = {name: value for name, value in os.environ.items() if name != SECRET_ENV}
        env.update({"ARENA_SCRATCH": str(scratch.scratch), "TMPDIR": str(scratch.tmp)})
        env.update(self.spec.environment())
        return BotCommand(list(self.spec.command), env, self.spec.cwd)

    def empty(self, budget: Budget, pid: int | None, cleanups: list[Callable[[], None]]) -> bool:
        return self.scratch is None or self.scratch.empty(budget)


class Bubblewrap(Backend):
    """The bot runs in a bubblewrap sandbox (sandbox.py, view.py): it sees the system,
    its program's installation and its own folder, writes only to memory-backed
    /scratch and /tmp, and its syscalls pass a filter."""

    sandboxed = True

    def __init__(self, spec: BotSpec, limits: Limits, hidden: tuple[Path, ...]) -> None:
        super().__init__(spec, limits, hidden)
        self.shown: tuple[Path, ...] = ()
        """What the sandbox shows beyond the system (to explain a start-up failure)."""
        self.folder: Path | None = None
        """The bot's folder in its sandbox."""
        self.tmpfs_bytes: int | None = None
        """The size of its sandbox's /scratch and /tmp."""
        self._tmpfs: TmpfsFolders | None = None
        """Its /scratch and /tmp, opened from the host when first emptied."""

    def command(self, memory_counted: bool, cleanups: list[Callable[[], None]]) -> BotCommand:
        with _PROBING:
            isolation = probe()
        command = sandbox_command(isolation, self.spec, self.limits, self.hidden, memory_counted)
        self.shown, self.folder, self.tmpfs_bytes = command.shown, command.folder, command.tmpfs_bytes
        return command

    def empty(self, budget: Budget, pid: int | None, cleanups: list[Callable[[], None]]) -> bool:
        if self._tmpfs is None and pid is not None:
            self._tmpfs = TmpfsFolders.open(pid, self.tmpfs_bytes)
            if self._tmpfs is not None:
                cleanups.append(self._tmpfs.close)
        return self._tmpfs is not None and self._tmpfs.empty(budget)

    def forget(self) -> None:
        self._tmpfs = None

    def startup_failure(self, stderr_tail: str) -> BotFault | None:
        detail = stderr_tail.strip()[-300:]
        if self.folder is not None and str(self.folder) in detail:  # what its own folder holds
            return BotFault(Termination.STARTUP_FAILURE, f"its folder could not be shown in its sandbox "
                            f"({detail}): remove what the message names, or give the bot a folder of its own")
        return None

    def crash_hint(self, stderr_tail: str) -> str:
        # a path it needed and was not shown: how to allow it
        return hidden_paths_hint(stderr_tail, self.shown, self.folder)


def backend_for(limits: Limits) -> type[Backend]:
    """The backend a bot with these limits gets where no caller chose one: a sandbox
    when one is asked for and this machine offers it, else none."""
    if not limits.sandbox:
        return Unsandboxed
    with _PROBING:
        isolation = probe()
    return Bubblewrap if isolation.sandbox and isolation.bwrap else Unsandboxed
