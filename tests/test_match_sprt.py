"""`arena match --sprt`: stops as soon as the test decides and prints the estimates."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def test_sprt_match_stops_early_on_a_clear_difference() -> None:
    result = runner.invoke(app, ["match", "random", "greedy", "--game", "btt", "--games", "400", "--sprt",
                                 "elo0=0", "elo1=50", "alpha=0.05", "beta=0.05", "--time-per-move", "2", "-q"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "H1 accepted: greedy is stronger than random" in text
    games = int(text.split("Thorns: ")[1].split(" game")[0])
    assert games < 100 and games % 2 == 0
    assert "penta [" in text and "LOS" in text and "Elo +" in text


def test_a_match_without_sprt_plays_every_game_and_reports_pairs() -> None:
    result = runner.invoke(app, ["match", "random", "random", "--game", "btt", "--games", "4", "-q"])
    assert result.exit_code == 0, result.output
    assert "pairs 2" in result.output and "4 game(s)" in result.output


def test_match_arguments_are_checked() -> None:
    three = runner.invoke(app, ["match", "random", "random", "greedy", "--game", "btt"])
    assert three.exit_code == 2 and "exactly two bots" in three.output
    forgot = runner.invoke(app, ["match", "random", "greedy", "--game", "btt", "elo1=5"])
    assert forgot.exit_code == 2 and "add --sprt" in forgot.output
    bad = runner.invoke(app, ["match", "random", "greedy", "--game", "btt", "--sprt", "elo0=5", "elo1=1"])
    assert bad.exit_code == 2 and "below" in bad.output
