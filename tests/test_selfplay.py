"""Random games through the record path as a user meets it: games of every game in
one file and a match's records appended one by one read back byte for byte, and
`arena verify` replays every game of the file. (Thousands of random games of every
game run in the game contract, tests/test_game_contract.py.)"""

from __future__ import annotations

from pathlib import Path

from arena.games import GAMES
from arena.records.files import append, read_record_file
from arena.records.writer import write_all
from tests.helpers.cli import run_cli
from tests.helpers.games import random_game_record


def test_a_file_of_every_games_random_games_reads_back_and_verifies(tmp_path: Path) -> None:
    path = tmp_path / "selfplay.pgn"
    records = []
    for game_id in GAMES:
        game = GAMES[game_id]
        options = {"width": "8", "height": "8"} if game_id == "blox" else {}
        for seats in range(game.min_seats, game.max_seats + 1):
            records += [random_game_record(game_id, seats, 100 * seats + seed, options) for seed in range(2)]
    text = write_all(records)
    path.write_text(text)
    games = read_record_file(path)
    assert len(games) == len(records) == 2 * (1 + 4 + 1 + 3 + 5)
    assert write_all(games) == text  # byte-identical round trip
    result = run_cli("verify", str(path))
    assert result.exit_code == 0, result.output
    assert f"{len(records)} game(s) verified" in result.output


def test_appended_match_records_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "match.pgn"
    for seed in range(4):
        append(path, random_game_record("btt", 3, seed, {}))
    text = path.read_text()
    assert write_all(read_record_file(path)) == text
