"""What a newcomer writes wrong in a league file gets one message that names the
file, the key and the fix, in the file's own words (never a command-line flag or a
type name of the decoder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

LEAGUE = """name = "night"
game = "btt"
{top}
bots = [
  {{ name = "a", command = "random"{entry} }},
  {{ name = "b", command = "random" }},
]
{tail}
"""


@pytest.mark.parametrize(("top", "entry", "tail", "expected", "unwanted"), [
    ("", "", '[time]\nper_move = "fast"',
     "time.per_move: 'fast' is not a time (write e.g. 0.5, 2s or 500ms)", "--time-per-move"),
    ("", "", '[time]\nclock = "soon+1"', "time.clock base: 'soon' is not a time", "--clock"),
    ("", ', time_per_move = "slow"', "", "bots[0].time_per_move: 'slow' is not a time", "--time-per-move"),
    ("games_per_pairing = 3", "", "", "games_per_pairing: 3 is not a positive even number; seats rotate so every "
     "bot plays every seat equally often (try 2)", "out of range"),
    ("games_per_pairing = 0", "", "", "games_per_pairing: 0 is not a positive even number", "give 1 to"),
    ('concurrency = "two"', "", "", "concurrency: expected a whole number, got text in quotes", "`int"),
    ("seats = true", "", "", "seats: expected a whole number, got true or false", "null"),
])
def test_a_league_file_mistake_names_the_file_the_key_and_the_fix(
        tmp_path: Path, top: str, entry: str, tail: str, expected: str, unwanted: str) -> None:
    path = tmp_path / "night.toml"
    path.write_text(LEAGUE.format(top=top, entry=entry, tail=tail))
    result = run_cli("league", "run", str(path))
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert f"error: {path}: {expected}" in text
    assert unwanted not in text and "Traceback" not in text
    assert not (tmp_path / "night").exists()  # nothing made before the file is right
