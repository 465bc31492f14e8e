"""Records that generic PGN tools accept: the Seven Tag Roster (Event, Site, Date,
Round, White, Black, Result) in every game, Result in PGN form for two seats, and the
game termination marker at the end of the move text; a generic reader (python-chess's)
lists every game with its headers; old records without them still read."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from arena import records
from arena.records.reader import read_text
from arena.records.record import RecordSyntaxError, pgn_result
from arena.records.replay import verify
from tests.helpers.cli import run_cli


def test_pgn_result_of_ranks() -> None:
    assert [pgn_result(r) for r in [(1, 2), (2, 1), (1, 1), (1, 2, 3), None]] == ["1-0", "0-1", "1/2-1/2", "*", "*"]


def test_a_generic_pgn_reader_lists_every_game_with_its_seven_tags(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    for args in (["roots", "random", "greedy", "--games", "2"], ["btt", "random", "random", "random"]):
        result = run_cli("play", *args, "--out", str(out), "--seed", "3", "-q")
        assert result.exit_code == 0, result.output
    headers = []
    with out.open() as handle:
        while (found := chess.pgn.read_headers(handle)) is not None:
            headers.append(dict(found))
    assert len(headers) == 3
    for tags in headers:
        assert all(tags[name] for name in ("Event", "Site", "Date", "Round", "White", "Black", "Result"))
    two = headers[:2]
    assert [(t["White"], t["Black"]) for t in two] == [("random", "greedy"), ("greedy", "random")]
    assert [t["Result"] for t in two] == [pgn_result((int(t["Ranks"][0]), int(t["Ranks"][2]))) for t in two]
    assert (headers[2]["White"], headers[2]["Black"], headers[2]["Result"]) == ("random", "random-2:random-3", "*")
    assert headers[2]["Places"].startswith("1st ")
    text = out.read_text()
    for game in text.split("\n\n[Event")[1:]:
        assert game.rstrip().split()[-1] in ("1-0", "0-1", "1/2-1/2", "*")


def test_the_marker_ends_the_move_text_and_must_match_the_result() -> None:
    base = '[Game "btt"]\n[Seats "2"]\n[Result "1-0"]\n\n1. Nd4 2. Re4 1-0\n'
    assert [p.action for p in read_text(base)[0].plies] == ["Nd4", "Re4"]
    with pytest.raises(RecordSyntaxError, match="Result tag says 1-0"):
        read_text(base.replace("Re4 1-0", "Re4 0-1"))
    with pytest.raises(RecordSyntaxError, match="text after the game's termination marker"):
        read_text(base.replace("Re4 1-0", "Re4 1-0 Nc3"))
    old = '[Game "btt"]\n[Seats "2"]\n\n1. Nd4 2. Re4\n'
    assert len(read_text(old)[0].plies) == 2  # records without the marker still read


def test_an_action_that_looks_like_a_marker_is_quoted() -> None:
    record = read_text('[Game "x"]\n[Seats "1"]\n[Result "*"]\n\n1. "1-0" "*" *\n')[0]
    assert [p.action for p in record.plies] == ["1-0", "*"]
    assert records.write(record).endswith('1. "1-0" "*" *\n')


def test_verify_checks_the_result_against_the_ranks(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    assert run_cli("play", "btt", "random", "random", "--out", str(out), "-q").exit_code == 0
    record = read_text(out.read_text())[0]
    assert verify(record) == []
    wrong = "0-1" if record.tags["Result"] == "1-0" else "1-0"
    text = out.read_text().replace(f'[Result "{record.tags["Result"]}"]', f'[Result "{wrong}"]')
    text = text.rstrip()[: -len(record.tags["Result"])] + wrong + "\n"
    problems = verify(read_text(io.StringIO(text).read())[0])
    assert any("Result tag" in p.message for p in problems)
