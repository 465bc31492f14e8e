"""A bot's stderr: drained into a capped log file, cheaply whatever the bot writes.

stderr is the bot's log, never parsed. The drain reads in large chunks from a pipe
made large (F_SETPIPE_SZ) and pauses a moment between reads, so a bot writing a byte
at a time costs the referee a few hundred wake-ups a second, not one per write. Past
the cap nothing more is kept: the rest is moved to /dev/null inside the kernel
(splice) without being read, copied or decoded, at a slower pace still, all but the
last TAIL_BYTES the pipe holds at each pass, which are read to keep the tail. A bot
whose writes block on a full pipe slows only itself.

The cap is a bot's, not a process's (LogBudget): a bot is restarted after a crash, and
in a game with hidden hands for every deal it has seen, and every process of it appends
to the same log; what the bot's logs already hold on disk is counted when a log is
opened, so a restart, another unit of a league's work or a resumed run goes on with
what is left. In a league, whose tables each have their log folder (`table-N`), the
bot's logs at all its tables share one cap: the number of tables grows with the square
of the number of bots (a round robin of 100 bots has 4,950 tables at two seats), and a
cap per table would let one bot fill 99 MiB and the league 10 GB, where an organiser
reads "1 MiB per bot" as a bound on the disk the league can take: bots x cap per kind
of log. A chatty bot's later tables then log nothing more; a fault's detail still
quotes its last words, kept in memory.

The last few hundred bytes kept tell why a bot died (`last_words`); in a sandbox the
first line is the sandbox's own word that it stood (READY_LINE), which is not the
bot's.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import os
import re
import termios
import threading
from collections.abc import Callable
from pathlib import Path

import trio

from arena.process.sandbox import READY_LINE

READY = (READY_LINE + "\n").encode()
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PIPE_SIZE = 1 << 20
"""The pipe size asked for (the kernel's default most for a user is 1 MiB)."""
PAUSE_S = 0.002
"""Pause between reads while the log is below its cap."""
DROP_PAUSE_S = 0.02
"""Pause between discards past the cap."""
TAIL_BYTES = 2048
STDERR_NOTE = "\n[arena: log capped at {cap} bytes]\n"
"""Written once to each file the cap cut (or, once full, had output refused)."""
TABLE_FOLDER = re.compile(r"table-\d+")
"""A league table's log folder (the league's `logs/table-N`): the bot's logs in every
table folder beside it share its cap."""


def telling_lines(text: str, most: int = 2, chars: int = 300) -> str:
    """The last lines of `text` that hold words or numbers (a runtime's crash report
    often ends with decoration, node's with a lone '#'), the last `most` of them, joined
    with ' | ' and cut to the last `chars` characters."""
    lines = [line.strip(" #*=-\t") for line in text.splitlines()]
    meaningful = [line for line in lines if any(c.isalnum() for c in line)]
    return " | ".join(meaningful[-most:])[-chars:]


class LogBudget:
    """The bytes one bot's logs of one kind (its stderr logs, or its protocol logs) may
    hold in all: every process of the bot, in this referee, shares this object, and
    what its files hold on disk is counted when one of them is opened (so another
    referee process, a resumed run, goes on from there). Its lock covers the count and
    each write: concurrent processes of one bot never overshoot in one referee, and by
    at most one write each when referees share a folder (each write first looks at the
    file's size)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.lock = threading.Lock()
        self.sizes: dict[str, int] = {}
        """What each of the bot's files holds (its path: its size), as last seen."""
        self.used = 0
        self.noted: set[str] = set()
        """The files that end with the note (nothing written to them since)."""

    @property
    def room(self) -> int:
        return self.cap - self.used

    def settle(self, file: str, size: int) -> None:
        """`file` holds `size` bytes now (the caller holds the lock)."""
        self.used += size - self.sizes.get(file, 0)
        self.sizes[file] = size

    def grew(self, file: str, by: int) -> None:
        self.settle(file, self.sizes.get(file, 0) + by)

    def recount(self, folder: str, names: re.Pattern[str]) -> None:
        """Count the bot's files in `folder` as the disk has them (the caller holds the
        lock)."""
        found: dict[str, int] = {}
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if names.fullmatch(entry.name) and entry.is_file():
                    found[entry.path] = entry.stat().st_size
        for file in [f for f in self.sizes if os.path.dirname(f) == folder and f not in found]:
            self.settle(file, 0)
            del self.sizes[file]
            self.noted.discard(file)
        for file, size in found.items():
            self.settle(file, size)


_budgets: dict[tuple[str, str], LogBudget] = {}
_budgets_lock = threading.Lock()


def bot_logs(path: Path, suffix: str) -> tuple[str, re.Pattern[str], bool]:
    """Which files share `path`'s budget: the folder that holds them, the pattern of
    their names, and whether they lie in that folder's table folders rather than in it.

    A match names a bot's log `<seat index>-<name><suffix>` in its log folder: the bot's
    logs are the files of that pattern for its name, whatever the index (another run
    in the same folder may have seated it elsewhere), and in a league table's folder,
    those of every table folder beside it. Any other file name is a budget of its own."""
    folder = os.path.abspath(path.parent)
    named = re.fullmatch(r"\d+-(.+)" + re.escape(suffix), path.name)
    if named is None:
        return folder, re.compile(re.escape(path.name)), False
    names = re.compile(r"\d+-" + re.escape(named.group(1)) + re.escape(suffix))
    if TABLE_FOLDER.fullmatch(os.path.basename(folder)):
        return os.path.dirname(folder), names, True
    return folder, names, False


def log_budget(path: Path, suffix: str, cap: int) -> LogBudget:
    """The budget `path` shares with the bot's other logs of its kind, counted from the
    disk when first asked for in this process (blocking: a worker thread's, in a league
    with many tables)."""
    root, names, tables = bot_logs(path, suffix)
    with _budgets_lock:
        budget = _budgets.get((root, names.pattern))
        if budget is None:
            budget = _budgets[(root, names.pattern)] = LogBudget(cap)
            folders = _table_folders(root) if tables else [root]
            with budget.lock:
                for folder in folders:
                    budget.recount(folder, names)
    budget.cap = cap
    return budget


def _table_folders(root: str) -> list[str]:
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        return [entry.path for entry in entries if TABLE_FOLDER.fullmatch(entry.name) and entry.is_dir()]
    return []


class CappedLog:
    """One log file of a bot, appended to while the bot's budget has room. The write that
    fills the budget is cut to it and followed by the note; a file whose output is
    refused once the budget is full gets the note too: once per file."""

    def __init__(self, path: Path, suffix: str, cap: int, note: str) -> None:
        self.path = path
        self.suffix = suffix
        self.cap = cap
        self.note = note.format(cap=cap).encode()
        self.file = os.path.join(os.path.abspath(path.parent), path.name)
        self.budget: LogBudget | None = None
        self.fd = -1

    def open(self) -> bool:
        """Open (or create) the file and count what the bot's logs hold; False when it
        cannot be opened (blocking: a worker thread's)."""
        try:
            budget = log_budget(self.path, self.suffix, self.cap)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            return False
        with budget.lock:
            budget.recount(os.path.dirname(self.file), bot_logs(self.path, self.suffix)[1])
            with contextlib.suppress(OSError):
                size = os.fstat(fd).st_size
                budget.settle(self.file, size)
                if size >= len(self.note) and os.pread(fd, len(self.note), size - len(self.note)) == self.note:
                    budget.noted.add(self.file)
        self.budget, self.fd = budget, fd
        return True

    @property
    def full(self) -> bool:
        """Whether nothing more will be written (no file, or the budget is spent)."""
        return self.budget is None or self.fd < 0 or self.budget.room <= 0

    @property
    def done(self) -> bool:
        """Whether nothing more, not even the note, will be written to this file."""
        return self.full and (self.budget is None or self.fd < 0 or self.file in self.budget.noted)

    def write(self, data: bytes) -> None:
        """Append what the budget has room for; the note once the budget is full."""
        budget = self.budget
        if budget is None or self.fd < 0 or not data:
            return
        with budget.lock, contextlib.suppress(OSError):  # a full disk loses the bot's log, nothing else
            budget.settle(self.file, os.fstat(self.fd).st_size)  # with what other processes appended
            room = budget.room
            if room > 0:
                kept = data[:room]
                budget.noted.discard(self.file)
                _write_all(self.fd, kept)
                budget.grew(self.file, len(kept))
            if len(data) >= room:
                self._note(budget)

    def refuse(self) -> None:
        """Output came that the budget has no room for: the note, if the file lacks it."""
        budget = self.budget
        if budget is None or self.fd < 0:
            return
        with budget.lock, contextlib.suppress(OSError):
            if budget.room <= 0:
                self._note(budget)

    def _note(self, budget: LogBudget) -> None:
        if self.file not in budget.noted:
            budget.noted.add(self.file)
            _write_all(self.fd, self.note)
            budget.grew(self.file, len(self.note))

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = -1


class StderrLog:
    """Drains one bot's stderr pipe into its log file, while the bot's logs hold less
    than `cap` bytes in all."""

    def __init__(self, fd: int, path: Path | None, cap: int, sandboxed: bool,
                 on_ready: Callable[[], None] = lambda: None) -> None:
        self.fd = fd
        self.path = path
        self.cap = cap
        self.sandboxed = sandboxed
        self.on_ready = on_ready
        self.bytes = 0
        """Bytes the bot wrote (kept or not)."""
        self.tail = b""
        self._head = b""
        self.ready_seen = False
        """Whether the sandbox said it stood, before the bot's command ran."""
        self._file: CappedLog | None = None
        self._refused = False
        self._null = -1
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)

    def open_file(self) -> None:
        """Open the log file, counting what the bot's logs hold (blocking: the drain calls
        it in a worker thread); without one the output is drained all the same."""
        if self.path is not None and self._file is None:
            log = CappedLog(self.path, ".log", self.cap, STDERR_NOTE)
            if log.open():
                self._file = log

    async def drain(self) -> None:
        """Copy stderr to the log until the cap, then discard, until the pipe ends (or
        its fd is closed under this task by the process's kill)."""
        await trio.to_thread.run_sync(self.open_file)
        try:
            while True:
                await trio.lowlevel.wait_readable(self.fd)
                if self._capped():
                    if not self._discard():
                        return
                    await trio.sleep(DROP_PAUSE_S)
                    continue
                try:
                    chunk = os.read(self.fd, PIPE_SIZE)
                except BlockingIOError:
                    continue
                if not chunk:
                    return
                self._keep(chunk)
                await trio.sleep(PAUSE_S)
        finally:
            self.close()

    def _capped(self) -> bool:
        """Whether nothing more is to be logged (the sandbox's ready line, which is
        not the bot's, is read first)."""
        if self.sandboxed and not self.ready_seen:
            return False
        return self._file is None or self._file.full

    def _keep(self, chunk: bytes) -> None:
        """Note the sandbox's ready line, keep the tail, log what the budget allows."""
        if not self.ready_seen and self.sandboxed:
            self._head = (self._head + chunk)[:len(READY)]
            self.ready_seen = self._head == READY
            if self.ready_seen:  # the sandbox's own line is not the bot's last word
                self.on_ready()
                chunk = (self.tail + chunk).removeprefix(READY)
                self.tail = b""
        self.tail = (self.tail + chunk[-TAIL_BYTES:])[-TAIL_BYTES:]
        if self._file is not None:
            self._file.write(chunk)
        self.bytes += len(chunk)

    def _discard(self) -> bool:
        """Move what the pipe holds to /dev/null without reading it, all but its last
        TAIL_BYTES, which are read into the tail (the bot's last words are often
        written just before it dies); False at the pipe's end."""
        waiting = _waiting(self.fd)
        if waiting < 0:  # cannot tell: as much as a pass may take
            waiting = PIPE_SIZE + TAIL_BYTES
        moved = 0
        if waiting > TAIL_BYTES:
            try:
                if self._null < 0:
                    self._null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
                moved = os.splice(self.fd, self._null, waiting - TAIL_BYTES, flags=os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                moved = 0
            except (OSError, AttributeError):  # no splice here: read and drop
                try:
                    moved = len(os.read(self.fd, waiting - TAIL_BYTES))
                except OSError:
                    moved = 0
            self.bytes += moved
        try:
            chunk = os.read(self.fd, TAIL_BYTES)
            ended = not chunk and not moved
        except BlockingIOError:
            chunk, ended = b"", False
        except OSError:
            chunk, ended = b"", True
        self.tail = (self.tail + chunk)[-TAIL_BYTES:]
        self.bytes += len(chunk)
        if (moved or chunk) and self._file is not None and not self._refused:
            self._refused = True  # this process's output was refused: its file says so, once
            self._file.refuse()
        return not ended

    def telling_tail(self, most: int = 2) -> str:
        """The last `most` lines the bot wrote to stderr that say something (what is
        still in the pipe is read first)."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                self._keep(os.read(self.fd, 1 << 16))
        return telling_lines(self.tail.decode("utf-8", "replace"), most)

    def last_words(self) -> str:
        """What the bot last wrote to stderr that says something, to say why it died."""
        telling = self.telling_tail()
        return f"; its stderr ends: {telling!r}" if telling else ""

    def close_pipe(self) -> None:
        """Close our end of the pipe (the bot is being killed), waking the drain; what
        the pipe still holds is logged first (the drain pauses between reads, and a bot's
        last lines before it was killed are often the ones that say why)."""
        if self.fd >= 0:
            self._take_rest()
            trio.lowlevel.notify_closing(self.fd)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1

    def _take_rest(self, most_reads: int = 4) -> None:
        """Read what is left in the pipe into the log, up to the cap (a few reads at
        most); past the cap, its tail only."""
        for _ in range(most_reads):
            if self._capped():
                self._discard()
                return
            try:
                chunk = os.read(self.fd, PIPE_SIZE)
            except OSError:  # empty (BlockingIOError) or gone
                return
            if not chunk:
                return
            self._keep(chunk)

    def close(self) -> None:
        """Close the log file."""
        if self._file is not None:
            self._file.close()
        if self._null >= 0:
            with contextlib.suppress(OSError):
                os.close(self._null)
        self._null = -1


def _waiting(fd: int) -> int:
    """The bytes a pipe holds (-1 if it cannot tell)."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return -1
    return count[0]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
