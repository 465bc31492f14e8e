"""What a bot's program needs to run, found on the host: the sandbox shows exactly that.

A command names its program as a user's shell would find it: a path, or a name looked up
on PATH. From there the arena follows, as the system would when it runs it:

- version-manager shims (pyenv, rbenv, nodenv, goenv, asdf: a script that ends in
  `exec MANAGER exec NAME`; mise and volta: a link to the manager), asked through the
  manager's own `which`, from the bot's folder (so its `.python-version` counts). The
  manager runs on the host, outside any sandbox, so a shim is followed only where the
  user's own files put it: found on PATH (or by `#!/usr/bin/env`), or named by an
  absolute path outside the bot's folder and the machine's shared writable folders;
  and its manager must be a known one, by an absolute path outside those folders too
  (a bot folder's "shim" that names its own program would run that program unsandboxed);
- symbolic links, to the real file;
- `#!` lines, `#!/usr/bin/env NAME` included, to the interpreter they name;
- a virtual environment (`pyvenv.cfg` beside its `bin`), to the Python it was made from.

Each program found belongs to an installation: the folder above its `bin` (a pyenv or
conda version, an nvm node, a rustup toolchain, a venv), or the folder it lies in. That
installation is shown read-only, only for an executable file (a `#!` line or a venv's
`home` naming any other file shows nothing: no way to name a folder such as ~/.ssh);
nothing else of the home folder is: where the installation would be the home folder
itself, `~/.local` or a folder holding the arena's own key, the program's file alone
is shown.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Read-only in every sandbox (missing ones are skipped)."""

SYSTEM_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
"""The end of every sandboxed bot's PATH."""

SHARED_DIRS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/run", "/home", "/root", "/proc", "/sys", "/dev")
"""Folders shared by everything on the machine: never shown to a bot whole."""

MAX_STEPS = 8
"""Most links, shims and `#!` lines followed from a command's program (a loop ends there)."""

WHICH_TIMEOUT_S = 10.0

_SHIM = re.compile(rb'^\s*exec\s+"?([^"\s]+)"?\s+exec\s', re.MULTILINE)
"""The last line of a pyenv/rbenv/nodenv/goenv/asdf shim: `exec "MANAGER" exec "$program" "$@"`."""
LINKED_MANAGERS = {"mise": "mise", "rtx": "rtx", "volta-shim": "volta"}
"""Managers whose shims are links to one binary: the link's target, and the manager to ask."""
MANAGERS = frozenset({"pyenv", "rbenv", "nodenv", "goenv", "plenv", "jenv", "asdf", "mise", "rtx", "volta"})
"""The version managers whose `which` the arena asks (by the file name of the manager)."""
CREDENTIALS = ("credentials", "credentials.toml", ".credentials.toml", ".npmrc", ".pypirc", ".netrc",
               ".git-credentials", ".condarc")
"""Files that hold a user's tokens in a toolchain's own folder (cargo's registry tokens
in ~/.cargo, npm's, PyPI's, conda's channels): hidden wherever a shown installation
holds them, since the program never needs them to run."""
WRITABLE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run")
"""Shared folders anyone, bots' scratch copies included, may write into: no shim or
manager there is trusted."""


@dataclass(frozen=True)
class Toolchain:
    """What running a program takes: the file to run, the installations to show, the
    folders its PATH needs, and how it was found (for `arena bench` and messages)."""

    program: str | None
    """The program to exec (absolute; a shim replaced by what it runs), None if not found."""
    folders: tuple[Path, ...] = ()
    """Installations (or single files) to show read-only, outside the system folders."""
    path: tuple[str, ...] = ()
    """Folders to put first on the bot's PATH (where the program and its interpreters lie)."""
    steps: tuple[str, ...] = field(default=(), compare=False)


def is_system(path: Path) -> bool:
    """Whether `path` lies in a folder every sandbox shows anyway."""
    text = str(path)
    return any(text == d or text.startswith(d + "/") for d in SYSTEM_DIRS)


def home_folders() -> tuple[Path, ...]:
    """Folders never shown whole: the home folder and ~/.local (the arena's key is there)."""
    home = Path.home()
    return (home, home / ".local", home / ".local" / "share")


def within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def resolve(program: str, base: Path, search_path: str | None = None) -> Toolchain:
    """The toolchain of `program` (argv[0]) for a bot whose relative paths start at `base`,
    looked up on `search_path` (default: this process's PATH). Cached: the answer for
    the same program, folder and PATH is computed once per process."""
    path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    return _resolve(program, str(base), path, _versions())


def _versions() -> tuple[str, ...]:
    """Versions chosen in the environment: part of a cached answer's key."""
    return tuple(os.environ.get(name, "") for name in ("PYENV_VERSION", "RBENV_VERSION", "NODENV_VERSION",
                                                     "ASDF_PYTHON_VERSION", "ASDF_NODEJS_VERSION"))


@lru_cache(maxsize=256)
def _resolve(program: str, base: str, search_path: str, _versions: tuple[str, ...]) -> Toolchain:
    steps: list[str] = []
    found = _locate(program, Path(base), search_path)
    if found is None:
        return Toolchain(None, steps=(f"{program}: not found",))
    folders: list[Path] = []
    path: list[str] = []
    current: Path = found
    on_path = "/" not in program  # found by the user's PATH, not named by the bot's files
    program_path: Path | None = None
    for _ in range(MAX_STEPS):
        shimmed = _through_shim(current, Path(base), search_path, on_path) \
            if _users_own(current, Path(base), on_path) else None
        if shimmed is not None:
            steps.append(f"{current}: a shim; its manager runs {shimmed}")
            current = shimmed
            continue
        if program_path is None:
            program_path = current
        _add(path, str(current.parent))
        real = Path(os.path.realpath(current))
        if real != current:
            steps.append(f"{current}: a link to {real}")
        for folder in installations(current, real):
            _add(folders, folder)
        interpreter, on_path = _interpreter(real, search_path)
        if interpreter is None:
            break
        steps.append(f"{real}: its #! line runs {interpreter}")
        current = interpreter
    return Toolchain(str(program_path or current), tuple(folders), tuple(path), tuple(steps))


def _add(items: list[str] | list[Path], item: str | Path) -> None:
    if item not in items:
        items.append(item)  # type: ignore[arg-type]


def _locate(program: str, base: Path, search_path: str) -> Path | None:
    """argv[0] as a path: relative to the bot's folder when it holds a slash, else the
    first match on PATH (not resolved through links: a venv's python must stay itself)."""
    if "/" in program:
        candidate = Path(program) if Path(program).is_absolute() else base / program
        return Path(os.path.abspath(candidate)) if candidate.exists() else None
    found = shutil.which(program, path=search_path)
    return Path(os.path.abspath(found)) if found else None


def _outside(path: Path, base: Path) -> bool:
    """Whether `path` (really) lies outside the bot's folder and the shared writable folders."""
    real = Path(os.path.realpath(path))
    return not any(within(real, Path(folder)) for folder in (os.path.realpath(base), *WRITABLE_DIRS))


def _inside(path: Path, base: Path) -> bool:
    """Whether `path` (really) lies in the bot's folder."""
    return within(Path(os.path.realpath(path)), Path(os.path.realpath(base)))


def _users_own(path: Path, base: Path, on_path: bool) -> bool:
    """Whether a shim, or the manager it names, is the user's and not the bot's (the
    arena runs the manager on the host): outside the bot's folder, and where the bot's
    files named it rather than the user's PATH, outside the shared writable folders
    too (never a file the bot or its scratch could have written)."""
    return _outside(path, base) if not on_path else not _inside(path, base)


def _through_shim(file: Path, base: Path, search_path: str, on_path: bool) -> Path | None:
    """What a version manager's shim runs for the bot (asked through the manager's own
    `which`), or None when `file` is no shim or names no known manager outside the
    bot's reach (a shim found on the user's PATH is the user's: its manager may lie
    anywhere but in the bot's folder)."""
    manager: str | None = None
    real = Path(os.path.realpath(file))
    if real.name in LINKED_MANAGERS and file.name != real.name:
        manager = str(real.parent / LINKED_MANAGERS[real.name])
        if not os.path.exists(manager):
            manager = shutil.which(LINKED_MANAGERS[real.name], path=search_path)
    else:
        head = _head(real, 4096)
        if head.startswith(b"#!") and (match := _SHIM.search(head)) is not None:
            manager = match.group(1).decode(errors="replace")
    if manager is None or not _known_manager(Path(manager), base, on_path):
        return None
    try:
        done = subprocess.run([manager, "which", file.name], cwd=base, capture_output=True, text=True,
                              timeout=WHICH_TIMEOUT_S, env={**os.environ, "PATH": search_path})
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip().splitlines()
    if done.returncode != 0 or not answer or not os.path.isabs(answer[-1]) or not os.path.exists(answer[-1]):
        return None
    return Path(os.path.abspath(answer[-1]))


def _head(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def _known_manager(manager: Path, base: Path, on_path: bool) -> bool:
    """A manager the arena may run on the host: a known one, by an absolute path to an
    executable file that is the user's (see _users_own)."""
    return (manager.is_absolute() and manager.name in MANAGERS and manager.is_file()
            and os.access(manager, os.X_OK) and _users_own(manager, base, on_path))


def _interpreter(real: Path, search_path: str) -> tuple[Path | None, bool]:
    """The program a `#!` line names, or None; and whether it was found on PATH
    (`#!/usr/bin/env NAME`) rather than named by the file."""
    head = _head(real, 256)
    if not head.startswith(b"#!"):
        return None, False
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None, False
    if Path(words[0]).name == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not names:
            return None, False
        found = shutil.which(names[0], path=search_path)
        return (Path(os.path.abspath(found)), True) if found else (None, False)
    return (Path(words[0]), False) if os.path.isabs(words[0]) and os.path.exists(words[0]) else (None, False)


def installations(found: Path, real: Path) -> list[Path]:
    """The installations a program found at `found` (its real file `real`) needs: a
    venv's folder and the Python it was made from, the folder above `bin`. System
    folders need nothing; a home folder is never shown whole (the file alone)."""
    folders: list[Path] = []
    venv = _venv_of(found)
    if venv is not None:
        folders.append(venv)
        home = _venv_home(venv)
        if home is not None:
            folders.extend(_installation(home / "python3", home / "python3"))
    folders.extend(_installation(found, found))
    folders.extend(_installation(real, real))
    unique: list[Path] = []
    for folder in folders:
        if folder not in unique:
            unique.append(folder)
    return unique


def _installation(file: Path, real: Path) -> list[Path]:
    if is_system(real) or not (real.is_file() and os.access(real, os.X_OK)):
        return []  # only a program has an installation: a `#!` line or a venv's home names no data file
    folder = real.parent.parent if real.parent.name == "bin" else real.parent
    if not safe_to_show(folder):
        return [real] if real.exists() else []
    return [folder]


def credentials_in(folder: Path) -> list[Path]:
    """The token files at the top of a shown installation (see CREDENTIALS)."""
    return [folder / name for name in CREDENTIALS if (folder / name).is_file()]


def safe_to_show(folder: Path) -> bool:
    """Whether a folder may be shown whole: not a shared folder, not the home folder nor
    ~/.local (nor anything holding them), nor a folder holding the arena's key."""
    from arena.process.secret import secret_path

    if str(folder) in SHARED_DIRS or folder == Path("/"):
        return False
    if any(within(home, folder) for home in home_folders()):
        return False
    key = secret_path()
    return not within(key, folder) and not within(Path(os.path.realpath(key)), folder)


def _venv_of(found: Path) -> Path | None:
    """The virtual environment a program found at `found` belongs to, if any."""
    folder = found.parent.parent if found.parent.name == "bin" else None
    if folder is not None and (folder / "pyvenv.cfg").is_file():
        return folder
    return None


def _venv_home(venv: Path) -> Path | None:
    """The `home` of a venv's pyvenv.cfg: the bin folder of the Python it was made from."""
    try:
        text = (venv / "pyvenv.cfg").read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and os.path.isabs(value.strip()):
            return Path(value.strip())
    return None


def timed_resolution(programs: Iterable[str], base: Path) -> list[tuple[str, float, float, Toolchain]]:
    """For `arena bench`: each program's resolution time, first (cold) and cached, in s."""
    out = []
    for program in programs:
        _resolve.cache_clear()
        start = time.perf_counter()
        chain = resolve(program, base)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        resolve(program, base)
        cached = time.perf_counter() - start
        out.append((program, cold, cached, chain))
    return out
