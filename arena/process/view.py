"""What one sandboxed bot sees, built as the bubblewrap command that starts it.

Read-only: the system folders, the arena's own packages (arena, protocol, the shipped
bots), its program's installation (arena/process/toolchain.py), the paths allowed to it
(`--ro`, `ro_paths`) and its own folder (arena/process/botfolder.py), as a private copy
made for this process where the folder is small. Writable: its /scratch, /tmp and
/dev/shm, memory-backed and of a fixed size. Masked: the referee's output, other bots'
folders, the arena's key and the arena's files an earlier run left in its folder.

When the arena runs as root, bubblewrap runs as user nobody (`RUN_AS`), so the bot's
user is nobody outside too. What nobody cannot reach (a Python under /root, mode 700)
is bound, by the child while it is still root, in a mount namespace of its own at a
mount point nobody can read, and bubblewrap shows it from there at its own path.
"""

from __future__ import annotations

import atexit
import itertools
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from arena.process.botfolder import BotFolderError, hidden_in_folder, is_interpreter, placed, private_copy, safe_folder
from arena.process.command import BotCommand
from arena.process.sandbox_users import lease
from arena.process.spec import BotSpec, Limits
from arena.process.syscall_filter import memory_file, program
from arena.process.toolchain import SYSTEM_DIRS, SYSTEM_PATH, Toolchain, credentials_in, is_system, resolve, within

RUN_AS = (65534, 65534)
"""Host uid and gid of a sandbox the arena starts as root when no user of its own can be
leased for it (nobody, nogroup; see arena/process/sandbox_users.py)."""

SCRATCH = "/scratch"
"""The bot's writable folder inside the sandbox."""

BOT_UID = 65534
"""The bot's user inside its namespace (nobody), holding no capabilities."""

READY_LINE = "[arena] sandbox ready"
"""Written to the bot's stderr once its sandbox stands, just before the bot's command
runs: a process that exits without it failed in bubblewrap's set-up, which is no fault
of the bot's."""

LANG = "C.UTF-8"
"""The bot's locale (its own, not the referee's)."""


@cache
def arena_folders() -> tuple[Path, ...]:
    """The arena's own packages, shown to every bot (the shipped bots import the rules)."""
    import protocol

    arena_folder = Path(__file__).resolve().parents[1]
    folders = [arena_folder, Path(str(protocol.__file__)).resolve().parent]
    bots = arena_folder.parent / "bots"
    if bots.is_dir():
        folders.append(bots)
    return tuple(folders)


@dataclass
class View:
    """The mounts of one bot's sandbox, before they become bubblewrap's arguments."""

    binds: list[tuple[Path, Path]] = field(default_factory=list)
    """(source on the host, destination in the sandbox), read-only."""
    masks: list[Path] = field(default_factory=list)
    """Destinations hidden: an empty read-only folder over a folder, /dev/null over a file."""
    chdir: str = SCRATCH
    path: list[str] = field(default_factory=list)
    argv: list[str] = field(default_factory=list)
    owned: list[Path] = field(default_factory=list)
    folder: Path | None = None
    copied: bool = False

    @property
    def shown(self) -> tuple[Path, ...]:
        return tuple(dest for _, dest in self.binds)


_work: list[Path] = []
_ids = itertools.count()


def work_folder() -> Path:
    """A folder of this referee process for what it makes for its bots (private copies,
    mount points), in /dev/shm where it can be, removed when the process exits. Mode
    711: an unprivileged sandbox reaches its own mount points by their names, and no one
    can list them."""
    if not _work:
        memory = "/dev/shm"  # a tmpfs where there is one: copies cost a third of what they cost on a disk
        base = memory if os.path.isdir(memory) and os.access(memory, os.W_OK | os.X_OK) else None
        _sweep(Path(base or tempfile.gettempdir()))
        folder = Path(tempfile.mkdtemp(prefix=f"arena-sandboxes-{os.getpid()}-", dir=base))
        os.chmod(folder, 0o711)
        _work.append(folder)
        atexit.register(shutil.rmtree, folder, True)
    return _work[0]


def _sweep(base: Path) -> None:
    """Remove the work folders of referees that died without removing theirs (killed:
    no exit handler ran), so that copies in memory do not pile up."""
    for folder in base.glob("arena-sandboxes-*-*"):
        pid = folder.name.split("-")[2]
        try:
            mine = folder.stat().st_uid == os.geteuid()
        except OSError:
            continue
        if mine and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(folder, ignore_errors=True)


def build_view(spec: BotSpec, limits: Limits, hidden: Iterable[Path], readable_by_all: bool) -> View:
    """What the bot of `spec` sees. `readable_by_all`: its private copy is made readable
    by the unprivileged user the sandbox runs as."""
    view = View()
    where = placed(spec)
    folder, command = where.folder, where.argv
    view.folder = folder
    chains = toolchains(command, folder or Path.cwd())
    view.argv = [chains[0].program or command[0], *command[1:]] if command else []
    view.path = [p for chain in chains for p in chain.path if p not in SYSTEM_PATH]
    hidden_real = [Path(os.path.realpath(p)) for p in hidden]
    readable: list[tuple[Path, Path]] = []
    installed = [folder for chain in chains for folder in chain.folders]
    for path in [*arena_folders(), *installed, *(Path(os.path.realpath(p)) for p in spec.ro_paths)]:
        if not is_system(path) and path.exists() and (folder is None or path != folder):
            readable.append((path, path))
    if folder is not None and safe_folder(folder):
        private = Path(tempfile.mkdtemp(dir=work_folder(), prefix=f"{next(_ids)}-"))
        view.owned.append(private)
        copy = private_copy(folder, private / "copy", hidden_real, readable_by_all)
        view.copied = copy is not None
        readable.append((copy or folder, folder))
        view.chdir = str(folder)
    elif folder is not None:
        for arg in command[1:]:  # a bot in a shared folder: the files it names there
            candidate = Path(arg) if Path(arg).is_absolute() else folder / arg
            if candidate.is_file() and Path(os.path.realpath(candidate)).parent == folder:
                readable.append((candidate, candidate))
        view.chdir = str(folder)
    view.binds = sorted(dict.fromkeys(readable), key=lambda b: (len(b[1].parts), str(b[1])))
    direct = [dest for source, dest in view.binds if source == dest]
    try:
        leftovers = hidden_in_folder(folder) if folder is not None and not view.copied and safe_folder(folder) else []
    except BotFolderError:
        for made in view.owned:
            shutil.rmtree(made, ignore_errors=True)
        raise
    tokens = [path for shown in installed if shown.is_dir() for path in credentials_in(shown)]
    view.masks = masks([*hidden_real, *leftovers, *tokens], direct)
    return view


def toolchains(argv: list[str], base: Path) -> list[Toolchain]:
    """The toolchain of the command's program, and of each interpreter it names after it
    (`env X=1 python3 bot.py`, `timeout 60 node bot.js`)."""
    if not argv:
        return [Toolchain(None)]
    chains = [resolve(argv[0], base)]
    for arg in argv[1:]:
        if not arg.startswith("-") and "=" not in arg and is_interpreter(arg):
            chains.append(resolve(arg, base))
    return chains


def masks(hidden: Iterable[Path], readable: list[Path]) -> list[Path]:
    """The hidden paths that a directly shown folder would show, shallowest first,
    once each (a path inside another masked folder is hidden with it). A hidden folder
    that holds something the bot must read (its own folder, the arena's packages) is not
    masked whole: the files in it that are to be hidden are listed on their own."""
    resolved = {p for p in hidden if p.exists()}
    shown = sorted((p for p in resolved if any(within(p, r) for r in readable)
                    and not any(within(r, p) for r in readable)), key=lambda p: (len(p.parts), str(p)))
    masked: list[Path] = []
    for path in shown:
        if not any(within(path, m) for m in masked if m.is_dir()):
            masked.append(path)
    return masked


def system_args() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.lexists(path):
            args += ["--ro-bind", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
    return args


KERNEL_FILES = ("/proc/keys", "/proc/key-users", "/proc/locks")
"""/proc files that list kernel state of every sandbox and of the host (keys, locks):
hidden, though no sandbox can make such state (arena/process/syscall_filter.py)."""


def tmpfs_bytes(limits: Limits, memory_counted: bool) -> int | None:
    """The size of each of a bot's /scratch, /tmp and /dev/shm. Their pages are memory:
    a cgroup counts them against the bot's limit; without one no limit would, so the
    three together are held to the memory limit (a third each)."""
    size = limits.scratch_bytes
    if memory_counted or limits.memory_bytes is None:
        return size
    share = max(limits.memory_bytes // 3, 1 << 20)
    return share if size is None else min(size, share)


def hardening_args(size_bytes: int | None) -> list[str]:
    """What no bot may change, in every mode: /proc/sys and /dev read-only, the kernel's
    lists of keys and locks hidden, and its own /dev/shm, /scratch and /tmp of a fixed size."""
    size = ["--size", str(size_bytes)] if size_bytes is not None else []
    args = ["--ro-bind", "/proc/sys", "/proc/sys"]
    for path in ("/proc/sysrq-trigger", "/proc/pressure"):  # pressure: no triggers of its own on the host's
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    for path in KERNEL_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    args += ["--perms", "1777", *size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    for mount in (SCRATCH, "/tmp"):
        args += ["--perms", "1777", *size, "--tmpfs", mount]
    return args


def bwrap_options(namespaces: list[str], view: View, size_bytes: int | None, env: dict[str, str],
                  source: dict[Path, str]) -> list[str]:
    """bubblewrap's options for `view` (each bind's source as `source` maps it); the
    command follows them."""
    args = [*namespaces, *system_args(), *hardening_args(size_bytes)]
    for src, dest in view.binds:
        args += ["--ro-bind", source.get(src, str(src)), str(dest)]
    for path in view.masks:
        if path.is_dir() and not path.is_symlink():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:  # a file, or a FIFO, socket or device: /dev/null, on a mount without devices, opens for no one
            args += ["--ro-bind", "/dev/null", str(path)]
    args += ["--remount-ro", "/", "--chdir", view.chdir, "--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return args


def bot_argv(view: View) -> list[str]:
    """What bubblewrap runs: a shell that says the sandbox stands, then the bot's
    command. The shell sets PWD: not one of the bot's variables."""
    return ["/bin/sh", "-c", f'unset PWD OLDPWD; echo "{READY_LINE}" >&2; exec "$@"', "sh", *view.argv]


def options_file(options: list[str]) -> int:
    """A memory file of bubblewrap's options, NUL-separated (`--args FD`): no length
    limit of the kernel's (a folder with thousands of masks made 'Argument list too
    long'). ValueError for an option holding a NUL, which would split into options."""
    if any("\0" in option for option in options):
        raise ValueError("a path or environment value holds a NUL character")
    return memory_file(b"".join(option.encode("utf-8", "surrogateescape") + b"\0" for option in options),
                       "arena-bwrap-options")


def bot_environment(view: View, spec: BotSpec) -> dict[str, str]:
    """Exactly the variables docs/protocol.md lists: PATH of the shown folders, LANG,
    HOME, TMPDIR, ARENA_SCRATCH, PYTHONDONTWRITEBYTECODE, and the bot's own
    (BotSpec.environment: its `env` and ARENA_BOT_SEED)."""
    path = ":".join(dict.fromkeys([*view.path, *SYSTEM_PATH]))
    fixed = {"PATH": path, "LANG": LANG, "HOME": SCRATCH, "TMPDIR": "/tmp", "ARENA_SCRATCH": SCRATCH,
             "PYTHONDONTWRITEBYTECODE": "1"}
    return {**fixed, **spec.environment()}


def reachable_by(path: Path, uid: int, gid: int) -> bool:
    """Whether user `uid` can reach `path` through every folder above it (search
    permission), by the modes alone (the question is asked as root)."""
    for folder in [*reversed(path.parents)]:
        try:
            info = folder.stat()
        except OSError:
            return False
        bit = stat.S_IXUSR if info.st_uid == uid else stat.S_IXGRP if info.st_gid == gid else stat.S_IXOTH
        if not info.st_mode & bit:
            return False
    return True


def stage(view: View, bwrap: str, uid: int, gid: int) -> tuple[dict[Path, str], list[tuple[str, str]], str]:
    """Mount points for the sources user `uid` cannot reach, and bubblewrap itself where
    it cannot run it: (source -> staged path, (source, mount point) pairs, bwrap path)."""
    folder = Path(tempfile.mkdtemp(dir=work_folder(), prefix=f"{next(_ids)}-stage-"))
    os.chmod(folder, 0o755)
    view.owned.append(folder)
    mapping: dict[Path, str] = {}
    pairs: list[tuple[str, str]] = []
    for index, (src, _) in enumerate(view.binds):
        if src in mapping:
            continue
        point = folder / str(index)
        if src.is_dir():
            point.mkdir()
        else:
            point.touch()
        mapping[src] = str(point)
        pairs.append((str(src), str(point)))
    real = Path(os.path.realpath(bwrap))
    if not reachable_by(real, uid, gid):
        top = real.parents[2] if len(real.parents) > 2 else real.parent
        point = folder / "bwrap"
        point.mkdir()
        pairs.append((str(top), str(point)))
        bwrap = str(point / real.relative_to(top))
    return mapping, pairs, bwrap


def sandbox_command(bwrap: str, namespaces: list[str], run_as: tuple[int, int] | None, spec: BotSpec,
                    limits: Limits, hidden: Iterable[Path], own_user: bool = False, syscall_filter: bool = False,
                    memory_counted: bool = True) -> BotCommand:
    """The whole command that starts `spec` in its sandbox: as `run_as` (root's
    sandboxes), or as a host user leased for it alone (`own_user`), with what that user
    cannot reach bound in the child's own mount namespace; under the system call filter
    (`syscall_filter`); its tmpfs held to its memory limit unless a cgroup counts them."""
    view = build_view(spec, limits, hidden, readable_by_all=run_as is not None)
    env = bot_environment(view, spec)
    pairs: list[tuple[str, str]] = []
    mapping: dict[Path, str] = {}
    size = tmpfs_bytes(limits, memory_counted)
    command = BotCommand([bwrap], {"PATH": "/usr/bin:/bin"}, "/", sandboxed=True, shown=view.shown,
                         owned=view.owned, folder=view.folder, tmpfs_bytes=size)
    fds: list[int] = []
    try:  # whatever fails, what was made for this process (folders, a lease, descriptors) goes with it
        if run_as is not None and own_user and (user := lease()) is not None:
            run_as = (user.uid, user.uid)
            command.on_release.append(user.release)
        if run_as is not None:
            mapping, pairs, command.argv[0] = stage(view, bwrap, *run_as)
        command.run_as, command.stage = run_as, tuple(pairs)
        options = bwrap_options(namespaces, view, size, env, mapping)
        if syscall_filter:
            fds.append(memory_file(program(), "arena-syscall-filter"))
            options += ["--seccomp", str(fds[-1])]
        fds.append(options_file(options))
    except BaseException:
        for fd in fds:
            os.close(fd)
        command.release()
        raise
    command.pass_fds = tuple(fds)
    command.argv += ["--args", str(fds[-1]), "--", *bot_argv(view)]
    return command


_PATH_IN_TEXT = re.compile(r"(?<![\w.~-])(/[^\s'\"‘’“”`:,;()<>\[\]{}]+)")
HINT_PATHS = 2
"""Most hidden paths one start-up failure names."""


_RELATIVE_PATH_IN_TEXT = re.compile(r"(?<![\w.~/-])((?:\.\./)+[^\s'\"‘’“”`:,;()<>\[\]{}]+)")
"""A path that climbs out of the bot's folder (`../data/weights.txt`)."""


def _named_paths(text: str, folder: Path | None) -> Iterator[str]:
    """The absolute paths a bot's last words name, and those relative to its folder
    that climb out of it, as absolute paths on this machine."""
    found = [(m.start(), m.group(1)) for m in _PATH_IN_TEXT.finditer(text)]
    if folder is not None:
        found += [(m.start(), os.path.normpath(folder / m.group(1))) for m in _RELATIVE_PATH_IN_TEXT.finditer(text)]
    for _, path in sorted(found):
        yield path


def hidden_paths_hint(text: str, shown: Iterable[Path], folder: Path | None = None) -> str:
    """For a bot that failed to start in its sandbox: the paths its last words name that
    exist on this machine but were not shown to it, and how to allow them; '' if none.
    A relative path that climbs out of `folder` (the bot's working folder) counts too."""
    folders = list(shown)
    hidden: list[str] = []
    for named in _named_paths(text, folder):
        path = named.rstrip(".")
        if path in hidden or any(path == p or path.startswith(p + "/") for p in ("/proc", "/dev", "/sys", SCRATCH)):
            continue
        try:
            exists = os.path.lexists(path)
        except (OSError, ValueError):
            continue
        candidate = Path(path)
        if exists and not is_system(candidate) and not any(within(candidate, f) for f in folders):
            hidden.append(path)
        if len(hidden) == HINT_PATHS:
            break
    if not hidden:
        return ""
    named = " and ".join(hidden)
    options = " ".join(f"--ro {p}" for p in hidden)
    return (f"; {named} exists on this machine but the bot's sandbox does not show it: move it into the bot's "
            f"folder, or allow it read-only with {options} (ro_paths in a league file or bots.toml)")
