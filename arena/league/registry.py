"""The bot registry, like cutechess's engines.json: `bots.toml` names bots once, with
their command, folder, environment, own time control and limits, and `arena play`,
`arena match`, `arena check` and league files use those names.

    [mybot]
    command = "./mybot --fast"       # or a list of arguments; relative paths from cwd
    cwd = "../engines/mybot"         # relative to this file (default: its folder)
    env = { THREADS = "1" }
    time_per_move = "200ms"          # this bot's own time control (a handicap)
    memory_mb = 1024                 # its own limits: memory_mb, max_processes, cpus, scratch_mb

The registry is `bots.toml` in the current folder (for a league file: beside it), or
the file `--bots FILE` (a league's `registry` key) names. A name in it wins over a
shipped bot of the same name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena.errors import ArenaError, excerpt
from arena.files import read_toml_file
from arena.process.botnames import BotNameError, resolve_bot
from arena.process.spec import BotSpec, LimitError, Limits, with_limits
from arena.timecontrol import TimeControlError, own_time_control

REGISTRY_FILE = "bots.toml"
MAX_BYTES = 1 << 20


class RegistryError(ArenaError, ValueError):
    """A registry file that cannot be used; the message names the bot, the key and the fix."""


class RegistryEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    command: str | list[str]
    cwd: str | None = None
    env: dict[str, str] = {}
    time_per_move: str | float | None = None
    clock: str | None = None
    memory_mb: int | None = None
    max_processes: int | None = None
    cpus: float | None = None
    scratch_mb: int | None = None
    ro_paths: list[str] = []


@dataclass(frozen=True)
class Registry:
    """The bots a registry file names."""

    path: Path
    entries: dict[str, RegistryEntry]

    def __contains__(self, name: str) -> bool:
        return name in self.entries

    def spec(self, name: str, game_id: str, base: Limits) -> BotSpec:
        """The bot named `name`, its limits on top of `base` (the match's or league's)."""
        entry = self.entries[name]
        where = f"{self.path}: [{name}]"
        folder = (self.path.parent / entry.cwd).resolve() if entry.cwd is not None else self.path.parent.resolve()
        if not folder.is_dir():
            raise RegistryError(f"{where} cwd: no such folder {excerpt(str(folder), 200)} (cwd is relative to the "
                                "registry file)")
        try:
            spec = resolve_bot(entry.command, game_id, folder if entry.cwd is not None else None, folder)
        except BotNameError as exc:
            raise RegistryError(f"{where} command: {exc}") from None
        allowed = []
        for text in entry.ro_paths:
            path = (folder / text).resolve()
            if not path.exists():
                raise RegistryError(f"{where} ro_paths: no such file or folder {excerpt(str(path), 200)} (relative "
                                    "paths start at the bot's cwd)")
            allowed.append(str(path))
        spec.ro_paths = tuple(allowed)
        spec.name, spec.named = name, True
        spec.env.update(entry.env)
        spec.limits = _limits(where, entry, base)
        try:
            spec.time_control = own_time_control(entry.time_per_move, entry.clock)
        except TimeControlError as exc:
            raise RegistryError(f"{where} {exc}") from None
        return spec


def _limits(where: str, entry: RegistryEntry, base: Limits) -> Limits | None:
    """`base` with the limits the entry gives (checked), or None when it gives none."""
    try:
        limits = with_limits(base, entry)
    except LimitError as exc:
        raise RegistryError(f"{where} {exc}") from None
    return None if limits is base else limits


def _explain(message: str) -> str:
    """msgspec's message with the key it names, and what a registry entry holds."""
    text, _, at = message.partition(" - at `$")
    where = at.rstrip("`").lstrip(".").replace("[", " [") if at else ""
    return (f"{where + ': ' if where else ''}{text}; each bot is a table [NAME] with `command` (required), and "
            "optionally cwd, env, time_per_move, clock, memory_mb, max_processes, cpus, scratch_mb, ro_paths")


def load_registry(path: Path) -> Registry:
    """Read and check a registry file; RegistryError names the problem and the fix."""
    entries = read_toml_file(path, dict[str, RegistryEntry], "bot registry", REGISTRY_FILE, MAX_BYTES,
                             RegistryError, _explain)
    for name in entries:
        if not name.strip() or "\x00" in name:
            raise RegistryError(f"{path}: a bot needs a name (the table's name, e.g. [mybot])")
    return Registry(path.resolve(), entries)


def find_registry(given: Path | None, folder: Path | None = None) -> Registry | None:
    """The registry to use: the file given (it must exist), else `bots.toml` in
    `folder` (default: the current folder) if there is one."""
    if given is not None:
        return load_registry(given)
    default = (folder or Path.cwd()) / REGISTRY_FILE
    return load_registry(default) if default.is_file() else None
