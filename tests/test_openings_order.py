"""The order of the openings, as fastchess's `-openings order=random start=N`: the file's
order or a shuffle by the match's seed, begun at the Nth opening; each opening played by
both colours in a pair; part of a stored match's identity; and a resumed match that
drops `--openings shipped` is told to give `--openings shipped` again."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import games
from arena.league.config import LeagueFileError, load_league
from arena.records.files import read_record_file
from arena.referee.openings import Opening, OpeningError, arrange_openings, load_openings, shipped_openings
from tests.helpers.cli import run_cli

BOOK = tuple(Opening((f"a{k}",), f"a{k}") for k in range(1, 11))


def names(book: tuple[Opening, ...]) -> list[str]:
    return [opening.name for opening in book]


def test_sequential_order_starts_at_the_nth_opening_and_wraps() -> None:
    assert names(arrange_openings(BOOK, "sequential", 1, seed=7)) == names(BOOK)
    assert names(arrange_openings(BOOK, "sequential", 3, seed=7)) == [f"a{k}" for k in (*range(3, 11), 1, 2)]


def test_random_order_is_a_shuffle_fixed_by_the_seed() -> None:
    shuffled = names(arrange_openings(BOOK, "random", 1, seed=7))
    assert sorted(shuffled) == sorted(names(BOOK)) and shuffled != names(BOOK)
    assert names(arrange_openings(BOOK, "random", 1, seed=7)) == shuffled
    assert names(arrange_openings(BOOK, "random", 1, seed=8)) != shuffled
    assert names(arrange_openings(BOOK, "random", 4, seed=7)) == shuffled[3:] + shuffled[:3]  # start after the shuffle


def test_an_order_or_start_that_cannot_be_is_refused() -> None:
    with pytest.raises(OpeningError, match="has 10 opening"):
        arrange_openings(BOOK, "sequential", 11, seed=1)
    with pytest.raises(OpeningError, match="sequential .* or random"):
        arrange_openings(BOOK, "shuffled", 1, seed=1)


def shipped_btt() -> tuple[Opening, ...]:
    btt = games.get("btt")
    return tuple(load_openings(shipped_openings(btt), btt, 2, btt.resolve_options({})))


def test_a_match_takes_the_order_and_start_and_plays_each_opening_from_both_colours(tmp_path: Path) -> None:
    out = tmp_path / "m.pgn"
    base = ["match", "greedy", "random", "--game", "btt", "-n", "4", "--seed", "5", "--openings", "shipped",
            "--out", str(out), "-q"]
    result = run_cli(*base, "--openings-order", "random", "--openings-start", "3")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    wanted = names(arrange_openings(shipped_btt(), "random", 3, seed=5))[:2]
    assert [r.tags["Opening"] for r in records] == [wanted[0], wanted[0], wanted[1], wanted[1]]
    for first, second in (records[0:2], records[2:4]):  # a pair: one opening, each bot with each colour
        assert first.players == list(reversed(second.players))
    again = run_cli(*base, "--openings-start", "3")
    assert again.exit_code == 2
    said = " ".join(again.output.split())
    assert "played with --openings-order random; this one gives sequential" in said
    again = run_cli(*base, "--openings-order", "random", "--openings-start", "4")
    assert again.exit_code == 2 and "--openings-start 3" in " ".join(again.output.split())


def test_a_resumed_match_that_drops_shipped_openings_is_told_to_give_them(tmp_path: Path) -> None:
    out = tmp_path / "m.pgn"
    assert run_cli("match", "greedy", "random", "-g", "btt", "-n", "2", "--seed", "1", "--openings", "shipped",
                   "--out", str(out), "-q").exit_code == 0
    dropped = run_cli("match", "greedy", "random", "-g", "btt", "-n", "2", "--out", str(out), "-q")
    assert dropped.exit_code == 2
    said = " ".join(dropped.output.split())
    assert "played with --openings shipped; this one gives no --openings" in said
    assert shipped_btt()[0].name not in said  # not the expanded list


def test_order_and_start_need_an_openings_file(tmp_path: Path) -> None:
    result = run_cli("play", "btt", "random", "greedy", "--games", "2", "--openings-start", "2")
    assert result.exit_code == 2 and "give --openings FILE" in result.output
    result = run_cli("play", "btt", "random", "greedy", "--games", "2", "--openings", "shipped",
                     "--openings-start", "999")
    assert result.exit_code == 2 and "--openings-start: the book has" in " ".join(result.output.split())


def test_a_league_file_takes_openings_order_and_start(tmp_path: Path) -> None:
    book = shipped_btt()
    (tmp_path / "o.txt").write_text("".join(f"{opening.name}\n" for opening in book))
    head = 'name = "x"\ngame = "btt"\ngames_per_pairing = 2\nseed = 3\nopenings = "o.txt"\n'
    bots = '[[bots]]\nname = "a"\ncommand = "random"\n[[bots]]\nname = "b"\ncommand = "greedy"\n'
    (tmp_path / "l.toml").write_text(head + 'openings_order = "random"\nopenings_start = 2\n' + bots)
    assert names(load_league(tmp_path / "l.toml").openings) == names(arrange_openings(book, "random", 2, seed=3))
    (tmp_path / "l.toml").write_text(head + f"openings_start = {len(book) + 1}\n" + bots)
    with pytest.raises(LeagueFileError, match=f"openings_start: the book has {len(book)}"):
        load_league(tmp_path / "l.toml")
    (tmp_path / "l.toml").write_text(head.replace('openings = "o.txt"\n', "") + 'openings_order = "random"\n' + bots)
    with pytest.raises(LeagueFileError, match='add openings = "FILE"'):
        load_league(tmp_path / "l.toml")
