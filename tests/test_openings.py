"""Openings: an opening file (filters, quoting, checks), each opening played once per
seat rotation, random openings drawn with the seed, all recorded and verified; league
keys; the shipped files; the slow check that a 200-game Treeblox match with a 4-ply
random opening gives at least 100 distinct games."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import games
from arena.league.config import LeagueFileError, load_league
from arena.records.files import read_record_file
from arena.referee.openings import OpeningError, parse_openings, shipped_openings
from tests.helpers.cli import run_cli


def test_the_file_format_filters_and_checks() -> None:
    text = '''# a comment

game=btt seats=2 Nd4 Re4
game=btt seats=3 Na01 Rb02 Rc03
game=treeblox L1,1,0
Na1 Rh4
'''
    btt = games.get("btt")
    two = parse_openings(text, btt, 2, btt.resolve_options({}), "o.txt")
    assert [o.actions for o in two] == [("Nd4", "Re4"), ("Na1", "Rh4")]
    roots = games.get("roots")
    quoted = parse_openings('"plant 3" "plant 30"\n', roots, 2, roots.resolve_options({}), "o.txt")
    assert quoted[0].actions == ("plant 3", "plant 30") and quoted[0].name == '"plant 3" "plant 30"'
    with pytest.raises(OpeningError, match="o.txt line 3: ply 2: illegal action 'Zz9'"):
        parse_openings("# x\n\ngame=btt Nd4 Zz9\n", btt, 2, btt.resolve_options({}), "o.txt")
    with pytest.raises(OpeningError, match="no opening for btt with 4 seats"):
        parse_openings("game=btt seats=2 Nd4\n", btt, 4, btt.resolve_options({}), "o.txt")


def test_each_opening_is_played_from_every_seat_and_recorded(tmp_path: Path) -> None:
    book = tmp_path / "o.txt"
    book.write_text("game=btt Nd4 Re4\ngame=btt Na1 Rh4 1h3>h4\n")
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "random", "greedy", "--games", "6", "--openings", str(book),
                     "--out", str(out), "-q", "--seed", "2")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    assert [r.tags["Opening"] for r in records] == ["Nd4 Re4"] * 2 + ["Na1 Rh4 1h3>h4"] * 2 + ["Nd4 Re4"] * 2
    assert [r.players[0] for r in records[:2]] == ["random", "greedy"]  # the seats swapped within a rotation
    for record in records:
        opening = record.tags["Opening"].split()
        assert [p.action for p in record.plies[:len(opening)]] == opening
        assert all(p.comment == "opening" for p in record.plies[:len(opening)])
        assert record.plies[len(opening)].comment != "opening"
    assert run_cli("verify", str(out)).exit_code == 0


def test_a_random_opening_is_drawn_with_the_seed(tmp_path: Path) -> None:
    records = []
    for k, seed in enumerate(("3", "3", "4")):  # three matches (one --out is one resumable match)
        out = tmp_path / f"g{k}.pgn"
        result = run_cli("match", "greedy", "greedy", "--game", "treeblox", "--games", "2",
                         "--random-opening", "4", "--seed", seed, "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
        records += read_record_file(out)
    openings = [[p.action for p in r.plies[:4]] for r in records]
    assert all(r.tags["Opening"] == "random 4" for r in records)
    assert openings[0] == openings[1] == openings[2] == openings[3]  # seed 3, twice, both seats
    assert openings[4] != openings[0]  # seed 4 draws another


def test_openings_and_random_openings_are_exclusive_and_bad_files_are_messages(tmp_path: Path) -> None:
    book = tmp_path / "o.txt"
    book.write_text("game=btt Nd4 Re4\n")
    both = run_cli("play", "btt", "random", "random", "--openings", str(book), "--random-opening", "2")
    assert both.exit_code == 2 and "not both" in both.output
    missing = run_cli("play", "btt", "random", "random", "--openings", str(tmp_path / "none.txt"))
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    none = run_cli("play", "roots", "random", "random", "--openings", "shipped")
    assert none.exit_code == 2 and "ships no openings for roots" in none.output


def test_a_league_takes_openings_or_random_openings(tmp_path: Path) -> None:
    (tmp_path / "o.txt").write_text("game=btt Nd4 Re4\n")
    head = 'name = "x"\ngame = "btt"\ngames_per_pairing = 4\n'
    bots = '[[bots]]\nname = "a"\ncommand = "random"\n[[bots]]\nname = "b"\ncommand = "greedy"\n'
    (tmp_path / "l.toml").write_text(head + 'openings = "o.txt"\n' + bots)
    league = load_league(tmp_path / "l.toml")
    assert [o.actions for o in league.openings] == [("Nd4", "Re4")]
    result = run_cli("league", "run", str(tmp_path / "l.toml"), "-q")
    assert result.exit_code == 0, result.output
    assert {r.tags["Opening"] for r in read_record_file(tmp_path / "l" / "league.pgn")} == {"Nd4 Re4"}
    (tmp_path / "l.toml").write_text(head + 'openings = "o.txt"\nrandom_opening = 2\n' + bots)
    with pytest.raises(LeagueFileError, match="not both"):
        load_league(tmp_path / "l.toml")


@pytest.mark.parametrize("game_id", ["btt", "treeblox", "blox"])
def test_the_shipped_openings_are_playable(game_id: str) -> None:
    game = games.get(game_id)
    text = shipped_openings(game).read_text()
    assert "scripts/make_openings.py" in text
    assert len(parse_openings(text, game, 2, game.resolve_options({}), game_id)) >= 8


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_a_random_opening_makes_a_treeblox_match_of_two_deterministic_bots_varied(tmp_path: Path) -> None:
    out = tmp_path / "match.pgn"
    result = run_cli("match", "greedy", "search", "--game", "treeblox", "--games", "200",
                     "--random-opening", "4", "--time-per-move", "200ms", "--time-basis", "cpu",
                     "--concurrency", "2", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    distinct = {tuple(p.action for p in r.plies) for r in records}
    print(f"{len(records)} games, {len(distinct)} distinct")
    assert len(records) == 200 and len(distinct) >= 100
    assert run_cli("verify", str(out)).exit_code == 0
