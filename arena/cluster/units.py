"""What travels to a cluster's workers: a work unit, a plain picklable description of
a job (the game, its options, limits, the chance key, and the table's bots, each with
its time control and seed, named so that any machine with the arena installed can
start them), and the
bots' folders, packed once and named by the hash of their contents.

A bot's command is made portable by naming the machine-dependent parts: this Python
becomes `{python}`, a path inside the bot's folder `{folder}/...`, and the folder is
either one of the arena's shipped bots (`shipped:<path under bots/>`) or a package
(`sha256:<hash>`) the worker unpacks into its cache."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import bots as shipped_bots_package
from arena.errors import ArenaError
from arena.files import extract_data
from arena.league.executor import Job
from arena.league.schedule import ScheduledGame
from arena.process.botfolder import placed
from arena.process.spec import BotSpec, Limits
from arena.referee.match import MatchConfig, PlannedGame
from arena.referee.player import Timing
from arena.timecontrol import TimeControl

PYTHON = "{python}"
FOLDER = "{folder}"
MAX_FOLDER_MB = 200
"""A bot folder a cluster ships at most (a league file's [cluster] max_folder_mb)."""


class PackageError(ArenaError):
    """A bot's folder cannot be shipped to the workers."""


def shipped_root() -> Path:
    return Path(str(shipped_bots_package.__file__)).resolve().parent


@dataclass(frozen=True)
class PortableBot:
    """A bot any worker can start: its command with `{python}` and `{folder}` in place
    of this machine's paths, and where its folder comes from."""

    name: str
    command: list[str]
    folder: str
    """`shipped:<relative path>` or `sha256:<hash of its package>`."""
    env: dict[str, str]
    limits: Limits | None
    time_control: TimeControl | None
    ro_paths: tuple[str, ...] = ()
    bot_seed: int | None = None


@dataclass(frozen=True)
class WorkUnit:
    """One job as it travels to a worker; its result is one report per game."""

    key: str
    game_id: str
    options: dict[str, str]
    timing: Timing
    limits: Limits
    event: str
    chance_key: bytes
    bots: list[PortableBot]
    games: list[ScheduledGame]
    plan: tuple[PlannedGame, ...]
    """Per game: seats (index into `bots`), seed, round label and opening."""
    log_protocol: bool = False
    random_opening: int = 0


# ---- packing bot folders ---------------------------------------------------------------------


def _files(folder: Path, leave_out: tuple[Path, ...]) -> list[Path]:
    found = []
    for root, dirs, names in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not any(here / d == p or p in (here / d).parents for p in leave_out)
                         and d != "__pycache__")
        found += [here / n for n in sorted(names) if here / n not in leave_out]
    return found


def folder_size(folder: Path, leave_out: tuple[Path, ...] = ()) -> int:
    """Bytes in the files of `folder` (what a package of it would hold)."""
    total = 0
    for path in _files(folder, leave_out):
        try:
            total += path.lstat().st_size
        except OSError:
            continue
    return total


def pack_folder(folder: Path, leave_out: tuple[Path, ...] = ()) -> tuple[str, bytes]:
    """A package of `folder` (a gzipped tar, the same bytes for the same contents:
    sorted names, no owners or times) and its name `sha256:<hash>`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        for path in _files(folder, leave_out):
            info = archive.gettarinfo(str(path), arcname=str(path.relative_to(folder)))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isreg():
                with path.open("rb") as handle:
                    archive.addfile(info, handle)
            elif info.issym() or info.isdir():
                archive.addfile(info)
    data = buffer.getvalue()
    return "sha256:" + hashlib.sha256(data).hexdigest(), data


def unpack(name: str, data: bytes, cache: Path) -> Path:
    """The package's folder in `cache`, unpacked once (an unpacking that was cut short
    never counts: the folder appears whole, by a rename, or not at all)."""
    target = cache / "bots" / name.replace(":", "-")
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.with_name(f".{target.name}.{os.getpid()}")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        extract_data(archive, work)
    try:
        os.rename(work, target)
    except OSError:  # another task unpacked it first
        shutil.rmtree(work, ignore_errors=True)
    return target


# ---- portable commands -----------------------------------------------------------------------


def portable_bot(spec: BotSpec, packages: dict[Path, str]) -> PortableBot:
    """`spec` with this machine's paths named; `packages` maps each packed folder to
    its package name."""
    placing = placed(spec)
    if placing.folder is None:
        return PortableBot(spec.name, [PYTHON if p == sys.executable else p for p in placing.argv], NO_FOLDER,
                           dict(spec.env), spec.limits, spec.time_control, spec.ro_paths, spec.bot_seed)
    folder = placing.folder
    root = shipped_root()
    if folder == root or root in folder.parents:
        where = f"shipped:{folder.relative_to(root)}"
    else:
        where = packages[folder]
    command = []
    for part in placing.argv:
        if part == sys.executable:
            command.append(PYTHON)
        elif part.startswith(str(folder) + os.sep):
            command.append(FOLDER + part[len(str(folder)):])
        else:
            command.append(part)
    return PortableBot(spec.name, command, where, dict(spec.env), spec.limits, spec.time_control, spec.ro_paths,
                       spec.bot_seed)


NO_FOLDER = "none:"
"""The `folder` of a bot whose command names no file: it runs in its scratch folder."""


def local_spec(bot: PortableBot, folder: Path | None) -> BotSpec:
    """The BotSpec that starts `bot` on this machine, its folder at `folder`."""
    command = [sys.executable if part == PYTHON else part.replace(FOLDER, str(folder), 1)
               if part.startswith(FOLDER) and folder is not None else part for part in bot.command]
    return BotSpec(bot.name, command, None if folder is None else str(folder), dict(bot.env), bot.limits,
                   bot.time_control, ro_paths=bot.ro_paths, bot_seed=bot.bot_seed)


def bot_folder(bot: PortableBot, cache: Path) -> Path | None:
    """Where `bot`'s folder is on this machine (a package must be unpacked first)."""
    if bot.folder == NO_FOLDER:
        return None
    kind, _, rest = bot.folder.partition(":")
    if kind == "shipped":
        return shipped_root() / rest
    return cache / "bots" / bot.folder.replace(":", "-")


def work_unit(key: str, job: Job, packages: dict[Path, str]) -> WorkUnit:
    """The job as it travels: everything a worker needs and nothing of this machine."""
    config = job.config
    plan = tuple(config.plan or ())
    return WorkUnit(key, config.game.id, dict(config.options), config.timing, config.limits,
                    config.event, config.chance_key, [portable_bot(s, packages) for s in job.specs], list(job.games),
                    plan, config.log_protocol, config.random_opening)


def match_config(unit: WorkUnit, log_dir: Path, hidden: tuple[Path, ...]) -> MatchConfig:
    """The unit's match on this machine (logs in `log_dir`; `hidden` masked from bots)."""
    from arena import games

    return MatchConfig(games.get(unit.game_id), unit.options, games=len(unit.plan),
                       event=unit.event, log_dir=log_dir, limits=unit.limits, timing=unit.timing, plan=unit.plan,
                       chance_key=unit.chance_key, hidden=hidden, log_protocol=unit.log_protocol,
                       random_opening=unit.random_opening)
