"""Small file-system checks shared by the commands and the league, so every one of them
refuses a folder it cannot use with the same words, before anything is played."""

from __future__ import annotations

import os
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import msgspec

from arena.errors import ArenaError

T = TypeVar("T")


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


def extract_data(archive: tarfile.TarFile, target: Path) -> None:
    """Unpack an archive of plain files, folders and links that stay inside `target`:
    tarfile's "data" filter where this Python has it (3.11.4 and later; Debian's 3.11.2
    lacks it), else the same refusals made here, member by member (no '..' in a name at
    all: a link extracted earlier could turn one that looks inside outward)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(target, filter="data")
        return
    root = os.path.realpath(target)
    members = archive.getmembers()
    for member in members:
        where = os.path.realpath(os.path.join(root, member.name))
        if os.path.isabs(member.name) or ".." in Path(member.name).parts or os.path.commonpath([root, where]) != root:
            raise FolderError(f"{member.name}: outside the folder it unpacks into")
        if not (member.isreg() or member.isdir() or member.issym()):
            raise FolderError(f"{member.name}: not a file, folder or link")
        if member.issym():
            linked = os.path.realpath(os.path.join(os.path.dirname(where), member.linkname))
            if os.path.isabs(member.linkname) or os.path.commonpath([root, linked]) != root:
                raise FolderError(f"{member.name}: a link that leads outside the folder it unpacks into")
        member.mode &= 0o755
    archive.extractall(target, members=members)  # noqa: S202 - every member checked above


def read_toml_file(path: Path, schema: type[T], what: str, example: str, max_bytes: int,
                   error: Callable[[str], ArenaError], explain: Callable[[str], str]) -> T:
    """A TOML file a person wrote (a league, a ladder, a bot registry), read and
    type-checked against `schema`: `error(message)` for a file that is missing,
    unreadable, larger than `max_bytes`, not UTF-8 or not valid TOML, and for keys of
    the wrong type, whose msgspec message `explain` turns into the file's own words."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(unreadable(path, exc, what, example)) from None
    if len(data) > max_bytes:
        raise error(f"{path}: {len(data)} bytes is too large for a {what} (at most {max_bytes})")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{path}: not UTF-8 text (line {line}); save the file as UTF-8") from None
    try:
        return msgspec.toml.decode(data, type=schema)
    except msgspec.ValidationError as exc:
        raise error(f"{path}: {explain(str(exc))}") from None
    except msgspec.DecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise error(f"{path}: not valid TOML: {type(exc).__name__}") from None
