"""Checks made before a sandboxed bot's first game, with the fix in each message: its
command names only files its sandbox shows, its folder holds none of the arena's output,
and its folder can be shown safely. They sit over the view and the sandbox they ask,
and under the referee and the sessions that call them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.errors import excerpt
from arena.process.backends import backend_for
from arena.process.botfolder import BotFolderError, copy_plan, file_arguments, hidden_in_folder, placed, safe_folder
from arena.process.spec import BotSpec, Limits
from arena.process.toolchain import is_system, within
from arena.process.view import arena_folders, toolchains


def shown_anyway(path: Path) -> bool:
    """Whether every sandbox shows `path` (the system, the arena's own packages)."""
    return is_system(path) or any(within(path, folder) for folder in arena_folders())


def outside_arguments(argv: Sequence[str], folder: Path | None, ro_paths: Iterable[str]) -> list[str]:
    """The arguments of a sandboxed bot's command that name a file it would not see:
    outside its folder, the system, the arena's packages, its program's installation
    and the read-only paths allowed to it."""
    base = folder or Path.cwd()
    allowed = [Path(os.path.realpath(p)) for p in ro_paths]
    if folder is not None and safe_folder(folder):
        allowed.append(folder)
    for chain in toolchains(list(argv), base):
        allowed.extend(Path(os.path.realpath(p)) for p in chain.folders)
    refused = []
    for arg, path in file_arguments(argv, base):
        real = Path(os.path.realpath(path))
        if shown_anyway(real) or any(within(real, a) for a in allowed):
            continue
        if folder is not None and not safe_folder(folder) and real.parent == folder and real.is_file():
            continue  # a bot in a shared folder is shown the files its command names there
        refused.append(arg)
    return refused


def check_arguments(name: str, argv: Sequence[str], folder: Path | None, ro_paths: Iterable[str]) -> None:
    """BotFolderError naming the fix for a sandboxed bot's argument it would not see."""
    refused = outside_arguments(argv, folder, ro_paths)
    if not refused:
        return
    shown = excerpt(refused[0], 200)
    where = f"outside its folder {folder}" if folder is not None else "and it has no folder of its own"
    raise BotFolderError(
        f"bot {name}: its command names {shown}, {where}; its sandbox would not show it. Move the file into the "
        f"bot's folder, or allow it read-only: --ro {refused[0]} (ro_paths in a league file or bots.toml)")


def check_outputs(name: str, folder: Path | None, outputs: Iterable[Path]) -> None:
    """BotFolderError when something the arena writes (records, logs, a league's folder)
    lies in a sandboxed bot's folder, where the bot could read what is written later."""
    if folder is None or not safe_folder(folder):
        return
    for output in outputs:
        real = Path(os.path.realpath(output))
        if within(real, folder):
            raise BotFolderError(
                f"{real} lies in the folder of bot {name} ({folder}), which the bot can read: a record, log or "
                f"league file written there could reach it. Write the arena's output outside the bot's folder "
                f"(e.g. {folder.parent / real.name}), or give the bot a folder of its own (cwd)")


def check_bots(specs: Iterable[BotSpec], limits: Limits, outputs: Iterable[Path]) -> None:
    """Before the first game: BotFolderError (with the fix) for a sandboxed bot whose
    command names a file it would not be shown, whose folder holds the arena's output,
    or whose folder cannot be shown safely."""
    written = [Path(p) for p in outputs]
    for spec in specs:
        if not spec.command or not backend_for(spec.limits or limits).sandboxed:
            continue
        where = placed(spec)
        check_arguments(spec.name, where.argv, where.folder, spec.ro_paths)
        check_outputs(spec.name, where.folder, written)
        check_uncopied(spec.name, where.folder)


def check_uncopied(name: str, folder: Path | None) -> None:
    """BotFolderError (naming the bot) when its folder is too large to copy and cannot
    be shown as it is either (see `hidden_in_folder`)."""
    if folder is None or not safe_folder(folder) or copy_plan(folder) is not None:
        return
    try:
        hidden_in_folder(folder)
    except BotFolderError as exc:
        raise BotFolderError(f"bot {name}: {exc}") from None
