"""Seeded random self-play through the whole record path: every game ends after the
rules' number of actions, its record is written, read back and verified by `arena verify`."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import CHANCE, TERMINAL, get_game
from arena.records.files import append_record, read_record_file
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.records.writer import write_records
from arena.referee.outcome import GameSetup, game_tags
from arena.referee.timecontrol import TimeControl
from arena.termination import Termination


def random_game_record(game_id: str, seats: int, seed: int, options: dict[str, str]) -> GameRecord:
    """One game of uniformly random actions, recorded as the referee records it."""
    game = get_game(game_id)
    options = game.resolve_options(options)
    state = game.new_state(seats, options)
    rng = random.Random(seed)
    actors: list[int] = []
    actions: list[str] = []
    while (actor := state.current()) != TERMINAL:
        action = state.sample_chance(rng) if actor == CHANCE else rng.choice(state.legal_actions())
        state.apply(action)
        actors.append(actor)
        actions.append(action)
    result = state.result()
    plies = [Ply(turn, action, actor == CHANCE) for turn, action, actor in zip(turn_numbers(actors), actions, actors)]
    setup = GameSetup(game, options, TimeControl(), seed)
    names = [f"random-{s}" for s in range(seats)]
    tags = game_tags(setup, names, result.ranks, result.scores, Termination.NORMAL, "", len(plies))
    return GameRecord(tags=tags, plies=plies)


def self_play_and_verify(tmp_path: Path, games_per_setting: int, seed: int) -> None:
    path = tmp_path / "selfplay.pgn"
    records: list[GameRecord] = []
    for seats in range(2, 7):
        for board in ("wedge", "rect"):
            for _ in range(games_per_setting):
                record = random_game_record("btt", seats, seed * 100_000 + len(records), {"board": board})
                assert len(record.plies) == seats + 15 * seats
                records.append(record)
    count = len(records)
    text = write_records(records)
    path.write_text(text)
    games = read_record_file(path)
    assert len(games) == count
    assert write_records(games) == text  # byte-identical round trip
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{count} game(s) verified" in result.output


def test_random_btt_games_end_and_verify(tmp_path: Path) -> None:
    self_play_and_verify(tmp_path, games_per_setting=30, seed=1)


@pytest.mark.slow
def test_thousands_of_random_btt_games_end_and_verify(tmp_path: Path) -> None:
    self_play_and_verify(tmp_path, games_per_setting=1000, seed=2)  # 2000 per seat count


def test_appended_match_records_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "match.pgn"
    for seed in range(4):
        append_record(path, random_game_record("btt", 3, seed, {}))
    text = path.read_text()
    assert write_records(read_record_file(path)) == text
