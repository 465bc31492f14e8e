"""PGN's Seven Tag Roster for any number of seats (docs/records.md, "The Seven Tag
Roster for N seats"): White is seat 0, Black the other seats joined by ':', Result `*`
beyond two seats with a Places tag saying who came where; records written before the
rule still read, verify and write back byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

import arena
from arena import games
from arena.records import read_text, verify, write
from arena.records.record import GameRecord, format_places, ordinal, pgn_sides
from arena.referee.outcome import GameSetup, game_tags, void_outcome
from arena.termination import Termination
from arena.timecontrol import TimeControl
from tests.helpers.games import random_game_record


def _played(tmp_path: Path, game: str, bots: list[str]) -> tuple[GameRecord, str]:
    out = tmp_path / f"{game}.pgn"
    result = arena.play(game, bots, seed=3, bot_seed=1, time="2s", sandbox=False, out=out)
    assert len(result.outcomes) == 1 and not result.outcomes[0].faults
    return result.outcomes[0].record, out.read_text()


def test_a_three_seat_game_names_every_player_and_its_place(tmp_path: Path) -> None:
    record, text = _played(tmp_path, "btt", ["random", "greedy", "random"])
    tags = record.tags
    assert (tags["White"], tags["Black"], tags["Result"]) == ("random", "greedy:random-2", "*")
    ranks = record.ranks
    assert ranks is not None
    assert tags["Places"] == format_places(["random", "greedy", "random-2"], ranks)
    first = [name for name, rank in zip(record.players, ranks, strict=True) if rank == 1]
    assert tags["Places"].startswith(f"1st {first[0]}")
    assert list(tags).index("Places") == list(tags).index("Ranks") + 1
    [read] = read_text(text)
    assert verify(read) == [] and write(read) == text and read.places == tags["Places"]
    assert text.rstrip().endswith(" *")


def test_a_four_seat_game_is_listed_by_a_generic_pgn_reader(tmp_path: Path) -> None:
    chess_pgn = pytest.importorskip("chess.pgn")
    record, text = _played(tmp_path, "blox", ["random", "random", "random", "random"])
    out = tmp_path / "blox.pgn"
    with out.open() as handle:
        headers = chess_pgn.read_headers(handle)
    assert headers is not None
    assert (headers["White"], headers["Black"]) == ("random", "random-2:random-3:random-4")
    assert headers["Result"] == "*" and headers["Places"] == record.tags["Places"]
    assert headers["Black"].split(":") == record.players[1:]
    assert verify(read_text(text)[0]) == []


def test_ties_share_the_better_place_in_seat_order() -> None:
    names = ["a", "b", "c", "d"]
    assert format_places(names, (2, 1, 2, 2)) == "1st b, 2nd a, 2nd c, 2nd d"
    assert format_places(names, (1, 3, 1, 4)) == "1st a, 1st c, 3rd b, 4th d"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th"]


def test_the_sides_for_every_seat_count() -> None:
    assert pgn_sides(["solo"]) == ("solo", "?")
    assert pgn_sides(["a", "b"]) == ("a", "b")
    assert pgn_sides(["a", "b", "c", "d"]) == ("a", "b:c:d")


def test_a_hand_made_four_seat_record_with_ties_verifies_and_round_trips() -> None:
    for seed in range(40):
        record = random_game_record("blox", 4, seed, {})
        if record.ranks is not None and len(set(record.ranks)) < 4:
            break
    else:
        pytest.fail("no tied 4-seat blox game in 40 seeds")
    tags = record.tags
    assert tags["Black"] == "random-1:random-2:random-3" and tags["Result"] == "*"
    assert tags["Places"] == record.places
    text = write(record)
    [read] = read_text(text)
    assert write(read) == text and verify(read) == [] and read.tags == tags


def test_two_seats_keep_their_pgn_result_and_no_places() -> None:
    record = random_game_record("btt", 2, 1, {})
    assert (record.tags["White"], record.tags["Black"]) == ("random-0", "random-1")
    assert record.tags["Result"] in ("1-0", "0-1", "1/2-1/2") and "Places" not in record.tags
    assert record.places is not None and record.places.startswith("1st ")  # made from Ranks for pages


def test_a_void_game_has_no_places() -> None:
    game = games.get("btt")
    setup = GameSetup(game, game.resolve_options({}), (TimeControl(),) * 3, 5)
    outcome = void_outcome(setup, ["a", "b", "c"], [], RuntimeError("disk on fire"))
    tags = outcome.record.tags
    assert tags["Result"] == "*" and "Places" not in tags and outcome.record.places is None
    assert (tags["White"], tags["Black"]) == ("a", "b:c")
    normal = game_tags(setup, ["a", "b", "c"], (3, 1, 2), None, Termination.NORMAL, "", 0)
    assert normal["Places"] == "1st b, 2nd c, 3rd a"


def test_an_old_record_reads_verifies_and_writes_back_byte_for_byte() -> None:
    text = write(random_game_record("btt", 3, 7, {}))
    places = next(line for line in text.splitlines() if line.startswith("[Places "))
    old = text.replace('[White "random-0"]', '[White "?"]').replace('[Black "random-1:random-2"]', '[Black "?"]')
    old = old.replace(places + "\n", "")
    assert old != text and "Places" not in old
    [record] = read_text(old)
    assert write(record) == old and verify(record) == []
    assert record.places == places[len('[Places "'):-len('"]')]  # pages still show who came where


def test_verify_reports_places_that_disagree_with_the_ranks() -> None:
    record = random_game_record("btt", 3, 2, {})
    right = record.tags["Places"]
    record.tags["Places"] = "1st nobody"
    problems = [p.message for p in verify(read_text(write(record))[0])]
    assert problems == [f"Places tag '1st nobody' does not match the Player and Ranks tags (it would be {right!r})"]
