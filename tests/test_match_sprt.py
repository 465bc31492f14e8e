"""`arena match --sprt`: stops as soon as the test decides and prints the estimates."""

from __future__ import annotations

from pathlib import Path

from arena.records.files import read_record_file
from tests.helpers.cli import run_cli


def test_sprt_match_stops_early_on_a_clear_difference(tmp_path: Path) -> None:
    out = tmp_path / "match.pgn"
    result = run_cli("match", "random", "greedy", "--game", "btt", "--games", "400", "--sprt",
                     "elo0=0", "elo1=50", "alpha=0.05", "beta=0.05", "--time-per-move", "2", "-q",
                     "--out", str(out))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "H1 accepted: greedy is stronger than random" in text
    records = read_record_file(out)
    assert len(records) < 100 and len(records) % 2 == 0
    pairs = [records[i:i + 2] for i in range(0, len(records), 2)]
    assert all(a.tags["Seed"] == b.tags["Seed"] and a.players == b.players[::-1] for a, b in pairs)
    assert f"pairs {len(pairs)} " in text
    assert "(pentanomial " in text and "LOS" in text and "greedy vs random: greedy's Elo " in text


def test_a_match_without_sprt_plays_every_game_and_reports_pairs() -> None:
    result = run_cli("match", "random", "random", "--game", "btt", "--games", "4", "-q")
    assert result.exit_code == 0, result.output
    assert "pairs 2" in result.output and "4 game(s)" in result.output


def test_match_arguments_are_checked() -> None:
    three = run_cli("match", "random", "random", "greedy", "--game", "btt")
    assert three.exit_code == 2 and "exactly two bots" in three.output
    forgot = run_cli("match", "random", "greedy", "--game", "btt", "elo1=5")
    assert forgot.exit_code == 2 and "add --sprt" in forgot.output
    bad = run_cli("match", "random", "greedy", "--game", "btt", "--sprt", "elo0=5", "elo1=1")
    assert bad.exit_code == 2 and "below" in bad.output
