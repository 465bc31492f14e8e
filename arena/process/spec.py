"""What it takes to start a bot: its command, folder and environment (BotSpec), and the
limits every bot process runs under (Limits)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

from arena.timecontrol import TimeControl
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
    affinity: tuple[int, ...] = ()
    """The cores every process of the bot may run on (`--affinity`: its table's own
    cores, so tables do not take cores from each other); empty: any of the referee's."""


class LimitKeys(Protocol):
    """The limit keys a league file's [limits] table, its bot entries and the bot
    registry share (None: not given)."""

    @property
    def memory_mb(self) -> int | None: ...
    @property
    def max_processes(self) -> int | None: ...
    @property
    def cpus(self) -> float | None: ...
    @property
    def scratch_mb(self) -> int | None: ...


LIMIT_RANGES: dict[str, tuple[float, float, str]] = {
    "memory_mb": (16, 1 << 30, "MiB; 16 is too little for most bots"),
    "max_processes": (1, 1 << 22, "processes"),
    "cpus": (0.01, 4096, "cores, e.g. 1 or 0.5"),
    "scratch_mb": (1, 1 << 20, "MiB"),
}


class LimitError(ValueError):
    """A limit key out of its range; the message names the key and the range."""


def with_limits(base: Limits, given: LimitKeys) -> Limits:
    """`base` with the limits `given` sets, each checked (`base` itself when it sets none)."""
    for key, (low, high, unit) in LIMIT_RANGES.items():
        value = getattr(given, key)
        if value is not None and not low <= value <= high:
            shown = value if abs(value) < 10**12 else "a huge number"
            raise LimitError(f"{key}: {shown} is out of range; give {low:g} to {high:g} ({unit})")
    changes: dict[str, int | float] = {}
    if given.memory_mb is not None:
        changes["memory_bytes"] = given.memory_mb << 20
    if given.max_processes is not None:
        changes["processes"] = given.max_processes
    if given.cpus is not None:
        changes["cpus"] = float(given.cpus)
    if given.scratch_mb is not None:
        changes["scratch_bytes"] = given.scratch_mb << 20
    return replace(base, **changes) if changes else base  # type: ignore[arg-type]


BOT_SEED_ENV = "ARENA_BOT_SEED"
"""The variable a bot reads its seed from (BotSpec.bot_seed)."""


@dataclass
class BotSpec:
    """How to start a bot: its display name, argv, working folder and extra environment,
    and what it plays under (its limits, time control and seed)."""

    name: str
    command: list[str]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    """Variables the bot gets beside the arena's own (a league file's or registry's `env`)."""
    limits: Limits | None = None
    """This bot's own limits, where they differ from the match's."""
    time_control: TimeControl | None = None
    """The time control this bot plays under: the one place a seat's control is kept.
    Whoever prepares a match sets it for every bot before play_match (the session
    layer, a league, a rerun; `timed` for bots timed alike); None only while a bot is
    being resolved and has no control of its own (a registry's entry may give one: a
    handicap)."""
    named: bool = True
    """Whether the user named the bot; if not (a command line), the name the bot gives
    in its `ready` is shown instead of the one made from its command."""
    ro_paths: tuple[str, ...] = ()
    """Paths outside its folder its sandbox shows it read-only (`--ro`, `ro_paths`)."""
    bot_seed: int | None = None
    """The seed for the bot's own randomness: the launcher puts it in the bot's
    environment as ARENA_BOT_SEED and the record's BotSeeds tag keeps it. It wins over an
    ARENA_BOT_SEED the bot's `env` gives, so that the seed recorded is the seed the bot
    saw; None: no seed (an ARENA_BOT_SEED in `env` then passes as it is)."""

    def environment(self) -> dict[str, str]:
        """What the bot's environment holds beside the arena's fixed variables: its
        `env`, and ARENA_BOT_SEED from `bot_seed` (for both launchers, sandboxed or not)."""
        if self.bot_seed is None:
            return dict(self.env)
        return {**self.env, BOT_SEED_ENV: str(self.bot_seed)}


def timed(specs: Iterable[BotSpec], control: TimeControl) -> list[BotSpec]:
    """Copies of `specs` for a match, each under its own time control where it has one
    (a handicap), else `control`."""
    return [replace(spec, command=list(spec.command), env=dict(spec.env), time_control=spec.time_control or control)
            for spec in specs]
