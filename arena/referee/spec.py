"""What it takes to start a bot: its command, folder and environment (BotSpec), and the
limits every bot process runs under (Limits)."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol import MAX_LINE_BYTES


@dataclass
class BotSpec:
    """How to start a bot: its display name, argv, working folder and extra environment."""

    name: str
    command: list[str]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every bot process (None = no limit)."""

    memory_bytes: int | None = None
    cpu_seconds: int | None = None
    processes: int | None = None
    max_line_bytes: int = MAX_LINE_BYTES
    stderr_bytes: int = 1 << 20
