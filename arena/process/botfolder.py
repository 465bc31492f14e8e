"""A bot's folder and the files its command may name.

A bot's folder is its program's folder: the folder of the script its interpreter runs
(`python3 bots/mine/bot.py`: bots/mine), or of the program its command starts with
(`./mybot`, `/opt/engine/run`), or the `cwd` its league entry or registry entry states.
It is never the folder the arena happens to be started in. A command that names no file
(`python3 -m mybot`) has no folder: it runs in its empty scratch folder, unless a `cwd`
is stated.

A sandboxed bot sees its own folder read-only and nothing else of the user's: every
argument that names a file or folder outside it (and outside the system, the arena's
own packages and the program's installation) is refused before the first game, unless
the user allows it read-only (`--ro PATH`, `ro_paths`). The arena's output (records,
logs, the league's folder) may not lie inside a sandboxed bot's folder either: such a
run is refused before its first game with the fix, since a file the arena writes there
later could reach the bot. Files an earlier run left there (records, logs, databases,
live.json) are never shown (see `ARTIFACTS`).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.process.procfs import YIELD_EVERY, YIELD_S
from arena.process.spec import BotSpec
from arena.process.toolchain import SHARED_DIRS, home_folders, is_system, within

INTERPRETERS = ("python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "java",
                "Rscript", "julia", "sh", "bash", "dash", "zsh", "ksh", "fish", "env", "tclsh", "guile", "racket",
                "ocaml", "dotnet", "mono", "elixir", "erl", "escript", "swipl", "sbcl", "runghc", "stack", "go",
                "cargo", "uv", "poetry", "pipenv", "conda", "timeout", "nice", "stdbuf", "taskset")
"""Programs that run another file: a command starting with one has the folder of the
file it runs (python3.12, node20 and the like count by their stem)."""

ARTIFACTS = ("*.pgn", "*.pgn.tmp", "*.log", "live.json", "*.sqlite", "*.sqlite-wal", "*.sqlite-shm",
             "*.sqlite-journal", "secret", "arena-errors.log", "arena-logs-*")
"""Names of what the arena writes (records, logs, protocol logs, a league's database and
live page, the key): never shown to a bot, wherever they lie in its folder."""

COPY_MAX_BYTES = 64 << 20
COPY_MAX_ENTRIES = 5000
"""The largest folder shown as a private copy made for each process; a larger one is
shown as it is (see docs/security.md: the page cache of its files is then shared)."""

WALK_MAX_ENTRIES = 100_000
"""Most entries of a folder too large to copy: it is searched whole for what to hide,
and a larger one is refused (a bot's folder that large is not a bot's folder)."""
MASKS_MAX = 1000
"""Most entries of such a folder that may need hiding (the arena's files, special files)."""


class BotFolderError(ArenaError):
    """A bot's command names a file it would not be shown, or the arena's output lies in
    a bot's folder; the message names the fix."""


def is_interpreter(program: str) -> bool:
    """Whether `program` (a name or path) runs another file named after it."""
    name = Path(program).name
    stem = name.rstrip("0123456789.-")
    return name in INTERPRETERS or stem in INTERPRETERS or stem.removesuffix("w") in INTERPRETERS


def _exists(path: Path) -> bool:
    """Whether `path` names something; False for what cannot be a name at all (a word
    of 300 letters, a NUL), which a bot's argument may well be."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def file_arguments(argv: Sequence[str], base: Path) -> list[tuple[str, Path]]:
    """The arguments (after the program) that name an existing file or folder, relative
    ones from `base`, with their absolute path (an option's `--key=VALUE` counts by its
    value)."""
    found = []
    for arg in argv[1:]:
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if not value or value.startswith("-") or "\0" in value:
            continue
        path = Path(value) if Path(value).is_absolute() else base / value
        try:
            if path.exists():
                found.append((arg, Path(os.path.abspath(path))))
        except OSError:
            continue
    return found


def program_folder(argv: Sequence[str], base: Path) -> Path | None:
    """The folder of what a command runs: of its program when that is a path to
    something other than an interpreter, else of the first file it names; None when it
    names none."""
    if not argv:
        return None
    program = argv[0]
    if "/" in program and not is_interpreter(program):
        path = Path(program) if Path(program).is_absolute() else base / program
        if _exists(path) and path.is_file() and not is_system(path.resolve()):
            return Path(os.path.abspath(path)).parent
    for _, path in file_arguments(argv, base):
        if path.is_file() and not is_interpreter(path.name):  # `env X=1 python3 bot.py`: bot.py
            return path.parent
    return None


def absolute_arguments(argv: Sequence[str], base: Path) -> list[str]:
    """`argv` with each relative path that names an existing file made absolute from
    `base` (the program too, when it is a relative path): the bot then runs in its own
    folder, whichever folder the arena was started from."""
    out = list(argv)
    if out and "/" in out[0] and not Path(out[0]).is_absolute() and _exists(base / out[0]):
        out[0] = os.path.abspath(base / out[0])
    for index, arg in enumerate(out[1:], start=1):
        prefix, value = ("", arg)
        if arg.startswith("-") and "=" in arg:
            key, value = arg.split("=", 1)
            prefix = key + "="
        if value and not value.startswith("-") and not Path(value).is_absolute() and _exists(base / value):
            out[index] = prefix + os.path.abspath(base / value)
    return out


@dataclass(frozen=True)
class Placed:
    """A command placed: its argv (relative paths made absolute) and its folder."""

    argv: list[str]
    folder: Path | None


def place(argv: Sequence[str], base: Path) -> Placed:
    """Where a command given without a folder runs: its program's folder (see the
    module), with its relative paths taken from `base` (the current folder, or the
    league file's)."""
    absolute = absolute_arguments(argv, base)
    folder = program_folder(absolute, base)
    return Placed(absolute, Path(os.path.realpath(folder)) if folder is not None else None)


def placed(spec: BotSpec) -> Placed:
    """Where a bot runs: its stated `cwd`, else its program's folder (a BotSpec made
    directly, without resolve_bot, is placed the same way, from the current folder)."""
    if spec.cwd:
        return Placed(list(spec.command), Path(os.path.realpath(spec.cwd)))
    return place(spec.command, Path.cwd())


def safe_folder(folder: Path) -> bool:
    """Whether a bot's folder may be shown whole (not /tmp, /, a home folder...)."""
    return str(folder) not in SHARED_DIRS and folder not in home_folders()


def is_artifact(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in ARTIFACTS)


def hidden_in_folder(folder: Path, leave_out: Iterable[Path] = ()) -> list[Path]:
    """What a folder shown as it is (too large to copy) must hide: the arena's files
    (records, logs, databases; `leave_out` paths there) and every special file (a FIFO,
    socket or device a bot could open to reach another sandbox or the host, which a
    read-only mount does not stop). Entries are judged by lstat: a link is never
    followed, nor masked (it resolves inside the sandbox, where its target is masked
    or absent). BotFolderError when the folder holds more than WALK_MAX_ENTRIES
    entries or more than MASKS_MAX such files: it cannot be shown safely."""
    found = [p for p in leave_out if within(Path(os.path.realpath(p)), folder) and Path(p).exists()]
    seen = 0
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        for name in [*dirs, *files]:
            seen += 1
            if seen % YIELD_EVERY == 0:  # a spawner thread's walk: the event loop gets the GIL back often
                time.sleep(YIELD_S)
            path = here / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                continue
            if is_artifact(name) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                found.append(path)
        dirs[:] = [d for d in dirs if not is_artifact(d) and not (here / d).is_symlink()]
        if seen > WALK_MAX_ENTRIES:
            raise BotFolderError(f"the bot's folder {folder} holds more than {WALK_MAX_ENTRIES:,} entries, too many "
                                 "to search for what its sandbox must hide: give the bot a folder of its own with "
                                 "what it needs (cwd in a league file or bots.toml)")
        if len(found) > MASKS_MAX:
            raise BotFolderError(f"the bot's folder {folder} holds more than {MASKS_MAX:,} files named like the "
                                 "arena's output (*.log, *.pgn, *.sqlite...) or special files (FIFOs, sockets, "
                                 "devices), which its sandbox would have to hide one by one: remove them, or give "
                                 "the bot a folder of its own (cwd in a league file or bots.toml)")
    return found


def copy_plan(folder: Path, leave_out: Iterable[Path] = (), max_bytes: int | None = None,
              max_entries: int | None = None) -> list[tuple[Path, Path, os.stat_result]] | None:
    """What a private copy of `folder` copies, as (source, path relative to the copy,
    lstat) in order; None when the folder is too large to copy (then it is shown as it
    is: see `hidden_in_folder`)."""
    max_bytes = COPY_MAX_BYTES if max_bytes is None else max_bytes
    max_entries = COPY_MAX_ENTRIES if max_entries is None else max_entries
    skip = {Path(os.path.realpath(p)) for p in leave_out}
    plan: list[tuple[Path, Path, os.stat_result]] = []
    total = 0
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not is_artifact(d) and (here / d) not in skip)
        for name in sorted([*dirs, *files]):
            source = here / name
            if is_artifact(name) or source in skip:
                continue
            try:
                info = source.lstat()
            except OSError:
                continue
            total += info.st_size if stat.S_ISREG(info.st_mode) else 0
            plan.append((source, source.relative_to(folder), info))
            if len(plan) % YIELD_EVERY == 0:
                time.sleep(YIELD_S)
            if total > max_bytes or len(plan) > max_entries:
                return None
    return plan


def private_copy(folder: Path, into: Path, leave_out: Iterable[Path] = (), readable_by_all: bool = False,
                 max_bytes: int | None = None, max_entries: int | None = None) -> Path | None:
    """A copy of `folder` in the new folder `into`, without the arena's files and the
    `leave_out` paths: fresh files whose page cache no earlier process touched, and a
    snapshot (nothing written to the folder later appears in it). None, and nothing
    left in `into`, when the folder holds more than `max_bytes` or `max_entries`.
    Symbolic links are copied as links; other special files are left out; no file keeps
    a set-user-ID or set-group-ID bit (the copy is owned by the arena's user: root's copy
    of a bot's set-user-ID file would be set-user-ID root)."""
    plan = copy_plan(folder, leave_out, max_bytes, max_entries)
    if plan is None:
        return None
    extra = 0o444 if readable_by_all else 0
    into.mkdir(mode=0o755)
    try:
        for source, relative, info in plan:
            target = into / relative
            if stat.S_ISDIR(info.st_mode):
                target.mkdir(mode=0o755)
            elif stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(source), target)
            elif stat.S_ISREG(info.st_mode):
                shutil.copyfile(source, target, follow_symlinks=False)
                mode = (stat.S_IMODE(info.st_mode) & 0o777) | extra  # never set-user-ID: the copy is the arena's
                os.chmod(target, mode | (0o111 if readable_by_all and mode & 0o100 else 0))
                os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))  # compiled Python stays valid
    except OSError:
        shutil.rmtree(into, ignore_errors=True)
        return None
    os.chmod(into, 0o755)
    return into
