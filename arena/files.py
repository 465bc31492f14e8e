"""Small file-system checks shared by the commands and the league, so every one of them
refuses a folder it cannot use with the same words, before anything is played."""

from __future__ import annotations

import os
from pathlib import Path

from arena.errors import ArenaError


class FolderError(ArenaError):
    """A folder the arena must write into cannot be used; the text says why."""


def writable_folder(path: Path) -> Path:
    """Create `path` with its parents if needed; FolderError if it is a file, cannot be
    created, or is not writable."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FolderError("is a file, not a folder") from None
    except OSError as exc:
        raise FolderError(f"cannot be created ({exc.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise FolderError("is not writable")
    return path


def unreadable(path: Path, exc: OSError, what: str, example: str) -> str:
    """The message for a file the user named that cannot be read: missing, a folder,
    or refused by the system; `example` is a file name to suggest for a folder."""
    if isinstance(exc, FileNotFoundError):
        return f"no such {what}: {path}"
    if isinstance(exc, IsADirectoryError):
        return f"{path} is a folder; give a {what}, e.g. {path / example}"
    return f"cannot read {path} ({exc.strerror or exc})"
