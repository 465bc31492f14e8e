"""Mistakes a newcomer makes on the command line get a message that names the fix
(#39): the game given as an option, a per-move limit without its unit, a game count
that leaves the seats unbalanced, and a demo for a slow machine."""

from __future__ import annotations

from pathlib import Path

from arena.league.demo import demo_leagues
from tests.helpers.cli import run_cli, run_cli_cleanly


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_game_given_as_an_option_says_it_is_the_first_argument() -> None:
    result = run_cli("play", "random", "greedy", "--game", "btt", prog_name="arena")
    assert result.exit_code == 2
    text = _one_line(result.output)
    assert "the game is `arena play`'s first argument" in text and "arena play btt random greedy" in text
    assert "Possible options" not in text


def test_a_game_option_of_a_command_that_has_one_is_left_alone() -> None:
    result = run_cli_cleanly("match", "random", "greedy", "--game", "nosuchgame")
    assert result.exit_code == 2
    assert "first argument" not in result.output


def test_a_bare_per_move_number_of_ten_or_more_asks_for_its_unit() -> None:
    for args in (("play", "btt", "random", "greedy"), ("check", "random", "--game", "btt")):
        result = run_cli_cleanly(*args, "--time-per-move", "100")
        assert result.exit_code == 2, result.output
        text = _one_line(result.output)
        assert "a number without a unit is seconds" in text and "100s" in text and "100ms" in text
    handicap = run_cli_cleanly("play", "btt", "random", "greedy", "--time-per-move", "1:250")
    assert handicap.exit_code == 2 and "250ms" in handicap.output


def test_a_small_bare_number_and_a_number_with_a_unit_are_taken_as_given() -> None:
    for limit in ("0.5", "100ms", "100s"):
        result = run_cli_cleanly("play", "btt", "random", "random", "--time-per-move", limit, "-q", "--no-sandbox")
        assert result.exit_code == 0, (limit, result.output)


def test_a_game_count_that_is_not_a_multiple_of_the_seats_warns() -> None:
    result = run_cli_cleanly("play", "btt", "random", "random", "--games", "3", "-q", "--no-sandbox")
    assert result.exit_code == 0, result.output
    text = _one_line(result.output)
    assert "--games 3 with 2 seats" in text and "--games 4" in text
    even = run_cli_cleanly("play", "btt", "random", "random", "--games", "2", "-q", "--no-sandbox")
    assert "seats rotate" not in even.output


def test_the_demo_takes_a_time_per_move_and_refuses_a_bad_one(tmp_path: Path) -> None:
    leagues = demo_leagues(tmp_path, 1, 2, "300ms")
    assert leagues and all(league.time_control.per_move_s == 0.3 for league in leagues)
    result = run_cli_cleanly("demo", "--out", str(tmp_path / "demo"), "--time-per-move", "abc")
    assert result.exit_code == 2 and "--time-per-move: 'abc' is not a time" in _one_line(result.output)
    assert not (tmp_path / "demo").exists()
