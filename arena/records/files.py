"""Record files: reading them one game at a time in bounded memory, and appending a
game so that a crash can at worst tear the game being written."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO, cast

from arena.records import writer
from arena.records.reader import MAX_LINE_CHARS, iter_records
from arena.records.record import GameRecord, RecordSyntaxError


def read_record_file(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every game in a record file; errors name the file. OSError (FileNotFoundError,
    IsADirectoryError...) passes through."""
    return list(read(path))


def read(source: str | os.PathLike[str] | BinaryIO | TextIO) -> Iterator[GameRecord]:
    """The games of a record file one at a time, read in bounded memory: lines longer
    than MAX_LINE_CHARS, text that is not UTF-8 and games beyond MAX_PLIES are
    RecordSyntaxErrors naming the file, line and column. `source` is a path, or a file
    already open in binary or text mode (sys.stdin, a socket's file, io.StringIO),
    which is read from where it stands and left open."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            yield from _named(_decoded_lines(handle), str(source))
        return
    name = str(getattr(source, "name", "<stream>"))
    probe = source.read(0)
    if isinstance(probe, bytes):
        yield from _named(_decoded_lines(cast(BinaryIO, source)), name)
    else:
        yield from _named(_text_lines(cast(TextIO, source)), name)


def _named(lines: Iterator[str], name: str) -> Iterator[GameRecord]:
    """The games in `lines`; a syntax error names where they came from."""
    try:
        yield from iter_records(lines)
    except RecordSyntaxError as exc:
        raise RecordSyntaxError(exc.line, exc.column, exc.message, name) from None


def _text_lines(handle: TextIO) -> Iterator[str]:
    """Lines of a text file, bounded as _decoded_lines bounds a binary file's."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE_CHARS + 2)
        if not line:
            return
        number += 1
        if not line.endswith("\n") and len(line) > MAX_LINE_CHARS:
            raise RecordSyntaxError(number, 1, f"line longer than {MAX_LINE_CHARS} characters: this is not "
                                               "a record file")
        yield line


def _decoded_lines(handle: BinaryIO) -> Iterator[str]:
    """Lines of a binary file as text; a line too long to be a record's, or bytes that
    are not UTF-8, stop the reading with the line and column."""
    number = 0
    while True:
        data = handle.readline(4 * MAX_LINE_CHARS + 2)
        if not data:
            return
        number += 1
        if not data.endswith(b"\n") and len(data) > 4 * MAX_LINE_CHARS:
            raise RecordSyntaxError(number, 1, f"line longer than {MAX_LINE_CHARS} characters: this is not "
                                               "a record file")
        try:
            yield data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordSyntaxError(number, exc.start + 1, "not UTF-8 text") from None


def holds_records(path: str | os.PathLike[str]) -> bool:
    """Whether a file looks like a record file: empty, or its first text is a tag line
    (`[`). A program, a league file or a log does not: reading it as records would only
    report its first line as a syntax error. OSError passes through."""
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return not head or head.startswith(b"[")


def append(path: str | os.PathLike[str], game: GameRecord) -> None:
    """Append one game to a record file (created if missing) with a single write, then
    fsync, so a crash can at worst tear the game being written, never an earlier one.
    A torn last line left by an earlier crash is ended first, so the new game still
    starts on a line of its own."""
    text = writer.write(game).encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _lock(fd)
        size = os.fstat(fd).st_size
        if size:
            last = os.pread(fd, 1, size - 1)
            text = (b"\n" if last == b"\n" else b"\n\n") + text
        view = memoryview(text)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    if size == 0:
        _fsync_directory(Path(path).parent)


def _lock(fd: int) -> None:
    """Serialise appenders from several processes, where the platform can."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd closes


def _fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (a no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
