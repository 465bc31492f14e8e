"""docs/library.md is true: every example on it runs as a doctest (in an empty folder,
where its record file is written), and shows what the library gives."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "library.md"


def test_every_example_of_the_library_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    failures, tried = doctest.testfile(str(DOC), module_relative=False, report=True, verbose=False,
                                       optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried >= 40, "the page lost its examples"
    assert failures == 0, "an example of docs/library.md fails (its output is above)"
    assert (tmp_path / "games.pgn").is_file()
