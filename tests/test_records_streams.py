"""records.read from a file already open (binary or text: sys.stdin, io.StringIO) as
from a path: the same games, in bounded memory, errors naming the stream, and the
stream left open."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena import records
from arena.records.reader import MAX_LINE_CHARS
from arena.records.record import RecordSyntaxError
from tests.helpers.games import random_game_record


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(records.write_all([random_game_record("btt", 2, seed, {}) for seed in (1, 2, 3)]))
    return path


def test_an_open_file_reads_as_its_path(tmp_path: Path) -> None:
    path = _file(tmp_path)
    from_path = [records.write(game) for game in records.read(path)]
    assert len(from_path) == 3
    with path.open("rb") as binary:
        assert [records.write(game) for game in records.read(binary)] == from_path
        assert not binary.closed
    with path.open(encoding="utf-8") as text:
        assert [records.write(game) for game in records.read(text)] == from_path
    stream = io.StringIO(path.read_text())
    assert [records.write(game) for game in records.read(stream)] == from_path
    assert not stream.closed


def test_an_error_in_a_stream_names_it(tmp_path: Path) -> None:
    with pytest.raises(RecordSyntaxError) as caught:
        list(records.read(io.StringIO('[Game "btt"]\n[Seats "2"]\n\n1. {unclosed comment\n')))
    assert "<stream>" in str(caught.value) and "line 4" in str(caught.value)
    path = tmp_path / "bad.pgn"
    path.write_bytes(b'[Game "btt"]\n\xff\xfe\n')
    with path.open("rb") as handle, pytest.raises(RecordSyntaxError) as named:
        list(records.read(handle))
    assert str(path) in str(named.value) and "not UTF-8" in str(named.value)


def test_a_text_stream_with_an_endless_line_is_refused_in_bounded_memory() -> None:
    with pytest.raises(RecordSyntaxError) as caught:
        list(records.read(io.StringIO("[" + "x" * (MAX_LINE_CHARS * 2))))
    assert "line longer than" in str(caught.value)
