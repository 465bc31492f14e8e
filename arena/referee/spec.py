"""What it takes to start a bot: its command, folder and environment (BotSpec), and the
limits every bot process runs under (Limits)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.referee.timecontrol import TimeControl
from protocol import MAX_LINE_BYTES

DEFAULT_MEMORY_MB = 2048
DEFAULT_PROCESSES = 256
DEFAULT_SCRATCH_MB = 512
DEFAULT_CPUS = 1.0


@dataclass(frozen=True)
class Limits:
    """Limits every bot runs under (None = no limit). Memory and processes hold for the
    bot's whole process tree where cgroups can be made, else per process."""

    memory_bytes: int | None = DEFAULT_MEMORY_MB << 20
    cpu_seconds: int | None = None
    processes: int | None = DEFAULT_PROCESSES
    cpus: float | None = DEFAULT_CPUS
    """Cores the whole tree may use at once (a cgroup CPU quota): a bot that spins
    threads while its opponent thinks takes no more than this from it."""
    scratch_bytes: int | None = DEFAULT_SCRATCH_MB << 20
    """Size of a sandboxed bot's /scratch and of its /tmp, each (memory-backed: what it
    writes there counts against its memory limit where cgroups hold it)."""
    sandbox: bool = True
    """Run the bot in its sandbox (where the machine allows one)."""
    max_line_bytes: int = MAX_LINE_BYTES
    stderr_bytes: int = 1 << 20


@dataclass
class BotSpec:
    """How to start a bot: its display name, argv, working folder and extra environment."""

    name: str
    command: list[str]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits | None = None
    """This bot's own limits, where they differ from the match's."""
    time_control: TimeControl | None = None
    """This bot's own time control, where it differs from the match's (a handicap)."""
    named: bool = True
    """Whether the user named the bot; if not (a command line), the name the bot gives
    in its `ready` is shown instead of the one made from its command."""
