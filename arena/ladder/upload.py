"""An entrant's upload unpacked into a folder of its own: bounded, and never written
outside that folder.

An upload comes from anyone holding a token, so nothing in it is trusted: a name may
climb out (`../x`, `/etc/x`, `C:\\x`), a link may point a later member outside, a device
or FIFO may wait for a reader, a small archive may hold gigabytes, a zip's header may lie
about a member's size. Every member is read and checked by what its archive declares
before anything is written (kind, name, count, total size); then each file is streamed
with a byte budget, so what the archive holds is bounded as well as what it declares.
Only files and folders are written, created afresh under folder descriptors that never
follow a link. arena.files.extract_data is not used: tarfile's "data" filter allows links
that stay inside, which no bot's source needs, and bounds nothing.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, cast

from arena.errors import ArenaError, excerpt


class UploadError(ArenaError):
    """An upload that is not unpacked: the message names the problem and the fix."""


@dataclass(frozen=True)
class UploadLimits:
    """How much one upload may be and hold."""

    max_bytes: int = 5 << 20
    """The upload itself, as sent."""
    max_entries: int = 1000
    """Members of an archive: files and folders."""
    max_unpacked_bytes: int = 50 << 20
    """All its files together, unpacked."""
    max_path_chars: int = 200
    """One member's path from the top of the folder."""


ARCHIVES = {".tar.gz": "tar", ".tgz": "tar", ".tar.xz": "tar", ".tar.bz2": "tar", ".tar": "tar", ".zip": "zip"}
"""The archives an upload may be, by the end of its name; any other name is one source file."""

ARCHIVE_NAMES = ", ".join(ARCHIVES)

SAFE_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9._+-]*")
"""A plain source file's name: letters, digits and `._+-`, no leading dot or dash."""

IGNORED_TOP = "__MACOSX"
"""The folder of resource forks macOS's Finder adds to every zip it makes: left out."""

CHUNK = 1 << 16
TAR_HEADER_ALLOWANCE = 4096
"""Bytes of headers (the member's, a long name's or pax header, padding) a tar may hold
per member beyond its files' bytes: what bounds a compressed tar's decompression."""
SPOOL_IN_MEMORY = 8 << 20
"""A decompressed tar larger than this is spooled to a temporary file."""

_DRIVE = re.compile(r"[A-Za-z]:")
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
"""Zip compressions read with a bound on each read; Python's bzip2 and lzma readers of
zip members decompress a whole chunk at once (a few compressed bytes, gigabytes out)."""
_ZIP_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma", 9: "deflate64"}
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError, OSError, ValueError,
                   zlib.error, lzma.LZMAError, NotImplementedError, RuntimeError)
"""What a damaged archive raises as it is read (from memory: an OSError is the archive's)."""


@dataclass(frozen=True)
class _Member:
    """One file or folder of an archive, checked: its path (relative, normalised), kind,
    declared size and executable bit, and the archive's own record to read it by."""

    path: str
    folder: bool
    size: int
    executable: bool
    record: tarfile.TarInfo | zipfile.ZipInfo


def unpack_upload(filename: str, data: bytes, into: Path, limits: UploadLimits = UploadLimits()) -> list[str]:
    """Unpack the upload `data`, sent as `filename`, into the new folder `into` (which
    must not exist or be empty): an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz,
    .tar.bz2) whose single top-level folder, if all lies in one, is left out; else one
    source file under its base name. Returns the relative paths of the files written,
    sorted. UploadError for anything refused, and then `into` is removed."""
    if len(data) > limits.max_bytes:
        raise UploadError(f"the upload is {len(data)} bytes, more than the {limits.max_bytes} allowed; leave out "
                          "build products, data and version control folders, and compress it")
    kind = _kind(filename)
    _new_folder(into)
    try:
        if kind == "zip":
            return _unpack_zip(data, into, limits)
        if kind == "tar":
            return _unpack_tar(data, into, limits)
        return _write_single(filename, data, into, limits)
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise


def _kind(filename: str) -> str:
    lowered = filename.lower()
    return next((kind for suffix, kind in ARCHIVES.items() if lowered.endswith(suffix)), "file")


def _new_folder(into: Path) -> None:
    """Create `into` (mode 755), or accept it empty; never a link or a folder with files."""
    if into.is_symlink() or (into.exists() and not into.is_dir()):
        raise UploadError(f"{into} exists and is not a folder; unpack into a new folder")
    if into.is_dir() and any(into.iterdir()):
        raise UploadError(f"{into} already holds files; unpack into a new or empty folder")
    into.mkdir(mode=0o755, parents=True, exist_ok=True)
    os.chmod(into, 0o755)


# ---- names -------------------------------------------------------------------------


def _checked_path(name: str, limits: UploadLimits) -> str | None:
    """A member's name as a relative path ('./a//b/' is 'a/b'), or None for the top
    folder itself ('./'); UploadError for a name that could lead outside the folder or
    that a file system should not hold."""
    shown = excerpt(name)
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):
        raise UploadError(f"the archive's member {shown} has a control character in its name; rename it")
    if "\\" in name:
        raise UploadError(f"the archive's member {shown} has a backslash in its name (a Windows path?); make the "
                          "archive with a tool that writes '/' between folders, or rename the file")
    if _DRIVE.match(name):
        raise UploadError(f"the archive's member {shown} starts with a drive letter; archive the folder's contents "
                          "with paths relative to it")
    if name.startswith("/"):
        raise UploadError(f"the archive's member {shown} has an absolute path; archive the folder's contents with "
                          "paths relative to it")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise UploadError(f"the archive's member {shown} has a name that is not UTF-8; rename it") from None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadError(f"the archive's member {shown} has '..' in its path, which would leave the bot's folder; "
                          "archive the folder's contents with paths relative to it")
    if not parts:
        return None
    path = "/".join(parts)
    if len(path) > limits.max_path_chars or any(len(part.encode()) > 255 for part in parts):
        raise UploadError(f"the archive's member {shown} has a path of {len(path)} characters, more than the "
                          f"{limits.max_path_chars} allowed; shorten its folders' or its own name")
    return path


def _refuse_kind(shown: str, what: str) -> UploadError:
    return UploadError(f"the archive's member {shown} is {what}; an upload may hold only files and folders: put "
                       "a copy of the file itself in its place")


# ---- reading archives ----------------------------------------------------------------


def _too_many(limits: UploadLimits) -> UploadError:
    return UploadError(f"the archive holds more than {limits.max_entries} files and folders; leave out what the "
                       "bot does not need to build and run (build products, data, version control folders)")


def _damaged(what: str, exc: BaseException) -> UploadError:
    return UploadError(f"the {what} is damaged or not one ({type(exc).__name__}: {exc}); make it again, or send "
                       "another kind of archive")


def _zip_members(archive: zipfile.ZipFile, limits: UploadLimits) -> list[_Member]:
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        raise _too_many(limits)
    members = []
    for info in infos:
        shown = excerpt(info.orig_filename)
        path = _checked_path(info.orig_filename, limits)  # before zipfile cut it at a NUL
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if kind == stat.S_IFLNK:
            raise _refuse_kind(shown, "a symbolic link")
        if kind in (stat.S_IFCHR, stat.S_IFBLK):
            raise _refuse_kind(shown, "a device")
        if kind == stat.S_IFIFO:
            raise _refuse_kind(shown, "a FIFO")
        if kind == stat.S_IFSOCK:
            raise _refuse_kind(shown, "a socket")
        folder = info.is_dir() or kind == stat.S_IFDIR
        if info.flag_bits & 0x1:
            raise UploadError(f"the archive's member {shown} is encrypted; make the zip without a password")
        if not folder and info.compress_type not in _ZIP_METHODS:
            method = _ZIP_METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
            raise UploadError(f"the archive's member {shown} is compressed with {method}; make the zip with the "
                              "usual compression (deflate), or send a .tar.gz or .tar.xz")
        if path is None:
            if folder:
                continue
            raise UploadError(f"the archive's member {shown} is a file without a name; rename it")
        members.append(_Member(path, folder, 0 if folder else info.file_size, bool(mode & 0o111), info))
    return members


def _tar_members(archive: tarfile.TarFile, limits: UploadLimits) -> list[_Member]:
    members: list[_Member] = []
    count = declared = 0
    for info in archive:  # one header at a time: a long archive is refused at its limit
        count += 1
        if count > limits.max_entries:
            raise _too_many(limits)
        shown = excerpt(info.name)
        if info.issym():
            raise _refuse_kind(shown, "a symbolic link")
        if info.islnk():
            raise _refuse_kind(shown, "a hard link")
        if info.ischr() or info.isblk():
            raise _refuse_kind(shown, "a device")
        if info.isfifo():
            raise _refuse_kind(shown, "a FIFO")
        if not (info.isreg() or info.isdir()):
            raise _refuse_kind(shown, f"of tar type {info.type!r}")
        path = _checked_path(info.name, limits)
        if path is None:
            if info.isdir():
                continue
            raise UploadError(f"the archive's member {shown} is a file without a name; rename it")
        size = 0 if info.isdir() else info.size
        declared += size
        if declared > limits.max_unpacked_bytes:
            raise _too_large(limits)
        members.append(_Member(path, info.isdir(), size, bool(info.mode & 0o111), info))
    return members


def _too_large(limits: UploadLimits) -> UploadError:
    return UploadError(f"the archive unpacks to more than {limits.max_unpacked_bytes} bytes; leave out data and "
                       "build products the bot does not need")


def _decompressed(data: bytes) -> Iterator[bytes]:
    """The tar in `data`, in chunks: decompressed by what its first bytes say it is
    (gzip, xz, bzip2; not by its name), else as it is."""
    raw = io.BytesIO(data)
    stream: io.BufferedIOBase
    if data.startswith(b"\x1f\x8b"):
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
    elif data.startswith(b"\xfd7zXZ\x00"):
        stream = lzma.LZMAFile(raw, "rb")
    elif data.startswith(b"BZh"):
        stream = bz2.BZ2File(raw, "rb")
    else:
        yield data
        return
    with stream:
        while chunk := stream.read(CHUNK):
            yield chunk


def _tar_stream(data: bytes, limits: UploadLimits) -> IO[bytes]:
    """The tar in `data`, decompressed into a temporary file of at most the bytes its
    files and headers may take: a bomb is refused before its headers are read (a pax
    header of a gigabyte would be read whole into memory)."""
    cap = limits.max_unpacked_bytes + (limits.max_entries + 4) * TAR_HEADER_ALLOWANCE
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
    try:
        total = 0
        for chunk in _decompressed(data):
            total += len(chunk)
            if total > cap:
                raise _too_large(limits)
            spool.write(chunk)
        spool.seek(0)
    except UploadError:
        spool.close()
        raise
    except _ARCHIVE_ERRORS as exc:
        spool.close()
        raise _damaged("compressed tar", exc) from None
    return cast(IO[bytes], spool)


def _unpack_zip(data: bytes, into: Path, limits: UploadLimits) -> list[str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = _zip_members(archive, limits)
            return _write_members(members, into, limits, lambda m: _zip_file(archive, m))
    except UploadError:
        raise
    except _ARCHIVE_ERRORS as exc:
        raise _damaged("zip archive", exc) from None


def _zip_file(archive: zipfile.ZipFile, member: _Member) -> IO[bytes]:
    assert isinstance(member.record, zipfile.ZipInfo)
    return archive.open(member.record)


def _unpack_tar(data: bytes, into: Path, limits: UploadLimits) -> list[str]:
    with _tar_stream(data, limits) as stream:
        try:
            with tarfile.open(fileobj=stream, mode="r:") as archive:
                members = _tar_members(archive, limits)
                return _write_members(members, into, limits, lambda m: _tar_file(archive, m))
        except UploadError:
            raise
        except _ARCHIVE_ERRORS as exc:
            raise _damaged("tar archive", exc) from None


def _tar_file(archive: tarfile.TarFile, member: _Member) -> IO[bytes]:
    assert isinstance(member.record, tarfile.TarInfo)
    opened = archive.extractfile(member.record)
    if opened is None:
        raise UploadError(f"the archive's member {excerpt(member.path)} cannot be read as a file; make the archive "
                          "again")
    return opened


# ---- the layout --------------------------------------------------------------------


def _laid_out(members: list[_Member], limits: UploadLimits) -> list[_Member]:
    """The members without macOS's resource forks and without the one top-level folder
    all lie in (people archive a folder); UploadError for duplicates, a file where a
    folder must be, an archive without files, or more bytes declared than allowed."""
    members = [m for m in members if m.path.split("/")[0] != IGNORED_TOP]
    kinds: dict[str, bool] = {}
    for member in members:
        if member.path in kinds:
            raise UploadError(f"the archive holds {excerpt(member.path)} twice; make it again with each file once")
        kinds[member.path] = member.folder
    for member in members:
        parts = member.path.split("/")
        for depth in range(1, len(parts)):
            above = "/".join(parts[:depth])
            if kinds.get(above) is False:
                raise UploadError(f"the archive holds {excerpt(above)} as a file and as the folder of "
                                  f"{excerpt(member.path)}; rename one of them")
    if not any(not m.folder for m in members):
        raise UploadError("the archive holds no files; archive the bot's source files")
    if sum(m.size for m in members) > limits.max_unpacked_bytes:
        raise _too_large(limits)
    tops = {m.path.split("/")[0] for m in members}
    if len(tops) == 1:
        top = tops.pop()
        if kinds.get(top, True) and any("/" in m.path for m in members):
            members = [replace(m, path=m.path[len(top) + 1:]) for m in members if m.path != top]
    return members


# ---- writing -----------------------------------------------------------------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@contextlib.contextmanager
def _folder(root: int, parts: list[str]) -> Iterator[int]:
    """A descriptor of the folder `parts` below `root`, each step made (mode 755) where
    missing and opened without following a link."""
    fd = os.dup(root)
    try:
        for part in parts:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            below = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = below
            os.fchmod(fd, 0o755)
        yield fd
    finally:
        os.close(fd)


def _write_members(members: list[_Member], into: Path, limits: UploadLimits,
                   open_member: Callable[[_Member], IO[bytes]]) -> list[str]:
    members = _laid_out(members, limits)
    budget = limits.max_unpacked_bytes
    written: list[str] = []
    root = os.open(into, _DIR_FLAGS)
    try:
        for member in members:
            parts = member.path.split("/")
            if member.folder:
                with _folder(root, parts):
                    continue
            with _folder(root, parts[:-1]) as parent, open_member(member) as source:
                budget -= _stream(source, parent, parts[-1], member, budget, limits)
            written.append(member.path)
    finally:
        os.close(root)
    return sorted(written)


def _stream(source: IO[bytes], parent: int, name: str, member: _Member, budget: int, limits: UploadLimits) -> int:
    """Copy one member into a new file `name` of `parent`: never more bytes than its
    header declared nor than the budget left; the count written."""
    fd = os.open(name, _FILE_FLAGS, 0o600, dir_fd=parent)
    with os.fdopen(fd, "wb") as target:
        left = member.size
        while chunk := source.read(min(CHUNK, left + 1)):
            if len(chunk) > left:
                raise UploadError(f"the archive's member {excerpt(member.path)} holds more bytes than its header "
                                  "declares; make the archive again with an ordinary tool")
            if member.size - left + len(chunk) > budget:
                raise _too_large(limits)
            target.write(chunk)
            left -= len(chunk)
        if left:
            raise UploadError(f"the archive's member {excerpt(member.path)} holds fewer bytes than its header "
                              "declares (the archive is cut short?); make it again")
        os.fchmod(target.fileno(), 0o755 if member.executable else 0o644)
    return member.size


def _write_single(filename: str, data: bytes, into: Path, limits: UploadLimits) -> list[str]:
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if not SAFE_NAME.fullmatch(name) or len(name) > min(limits.max_path_chars, 255):
        raise UploadError(f"the file's name {excerpt(name)} is not one the arena writes: use letters, digits and "
                          f"'._+-' (not first '.' or '-'), e.g. bot.py; or send an archive ({ARCHIVE_NAMES})")
    if len(data) > limits.max_unpacked_bytes:
        raise _too_large(limits)
    root = os.open(into, _DIR_FLAGS)
    try:
        fd = os.open(name, _FILE_FLAGS, 0o600, dir_fd=root)
        with os.fdopen(fd, "wb") as target:
            target.write(data)
            os.fchmod(target.fileno(), 0o644)
    finally:
        os.close(root)
    return [name]
