"""`arena doctor`: what isolation this machine gives bots, and why not where it cannot."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

from rich.table import Table
from rich.text import Text

from arena.cli.common import console
from arena.process.botfolder import COPY_MAX_BYTES
from arena.process.cgroups import cgroup_support
from arena.process.sandbox import probe
from arena.process.secret import SECRET_ENV, secret_path


def doctor_command() -> None:
    """Print what isolation this machine offers bots (sandbox, whole-tree limits, CPU
    accounting, the secret key of chance) and, for what is missing, why and the fix."""
    table = Table(title="Isolation of bots on this machine", show_lines=True)
    table.add_column("what", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("details", overflow="fold")  # a long path is folded, never cut
    isolation = probe()
    if isolation.sandbox:
        version = subprocess.run([str(isolation.bwrap), "--version"], capture_output=True, text=True).stdout.strip()
        table.add_row("sandbox", Text("on", "green"), f"{version} at {isolation.bwrap}: each bot has its own user, "
                      "pid, network, ipc and uts namespaces, no capabilities, a read-only system, its program's "
                      "installation and its own folder (a private copy for each process, up to "
                      f"{COPY_MAX_BYTES >> 20} MiB), and its own /scratch, /tmp and /dev/shm (memory-backed, of a "
                      "fixed size, emptied before every game); it sees no other process, no network, no output of "
                      "the referee, nothing else of your home")
        for layer in isolation.layers:
            table.add_row(f"  {layer.name}", Text("on", "green") if layer.on else Text("missing", "red"),
                          layer.detail)
    else:
        table.add_row("sandbox", Text("off", "red"), f"{isolation.why}. Bots run as plain processes in their own "
                      "process groups: a bot can read what your user can, use the network and signal other processes")
    support = cgroup_support()
    if support.version:
        where = ", ".join(f"{name or 'v2'}: {path}" for name, path in support.parents.items())
        cpu = "cpu per decision from the cgroup" if support.version == 2 or "cpuacct" in support.parents else \
            "cpu per decision not counted (no cpuacct group)"
        quota = "a CPU quota (--cpus)" if support.version == 2 or "cpu" in support.parents else \
            "no CPU quota (no cpu controller)"
        cpu = f"{cpu}; {quota}; CPU weight of all bots {support.weight}, referee {support.referee_weight or 'same'}"
        table.add_row("limits", Text(f"cgroup v{support.version}", "green"), "memory and processes held for each "
                      f"bot's whole process tree ({where}); {cpu}; hitting a limit is memory-limit or "
                      "process-limit")
    else:
        table.add_row("limits", Text("per process", "yellow"), f"{support.why}. Memory is RLIMIT_DATA per process "
                      "(and 4 GiB of address space beyond it) and processes RLIMIT_NPROC over the user's own (not "
                      "binding for root); CPU per decision is the bot's main process only")
    key = os.environ.get(SECRET_ENV)
    path = secret_path()
    table.add_row("chance key", Text("set", "green") if key or path.exists() else Text("not made yet", "yellow"),
                  f"from ${SECRET_ENV}" if key else f"{path} (made on first use; copy it to replay the same deals "
                  "from the same seeds elsewhere)")
    if os.geteuid() == 0 and not isolation.sandbox:
        table.add_row("user", Text("root", "red"), "without their sandbox, bots run as root: run the arena as an "
                      "ordinary user, or give it a sandbox")
    table.add_row("platform", platform.system(), f"{platform.platform()}; Python {platform.python_version()} "
                  f"({sys.executable})")
    console.print(table)
