"""--event (arena play, arena match, the library's event=) fills every record's Event
tag; without it the tag names the command. (A league's `event` key:
tests/test_league_growth.py.)"""

from __future__ import annotations

from pathlib import Path

import arena
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli


def events(path: Path) -> list[str]:
    return [r.tags["Event"] for r in read_record_file(path)]


def test_play_and_match_take_an_event(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    played = run_cli("play", "btt", "random", "greedy", "--games", "2", "--event", "Friday cup", "-q",
                     "--out", str(out), "--time-per-move", "2")
    assert played.exit_code == 0, played.output
    matched = run_cli("match", "random", "greedy", "--game", "btt", "--games", "2", "--event",
                      "Club night 3", "-q", "--out", str(out), "--time-per-move", "2")
    assert matched.exit_code == 0, matched.output
    assert events(out) == ["Friday cup"] * 2 + ["Club night 3"] * 2


def test_the_event_defaults_to_the_command_and_is_checked(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    assert run_cli("play", "btt", "random", "random", "-q", "--out", str(out)).exit_code == 0
    assert events(out) == ["arena play"]
    empty = run_cli("play", "btt", "random", "random", "--event", " ")
    assert empty.exit_code == 2 and "Event tag as printable text" in empty.output


def test_the_library_takes_an_event(tmp_path: Path) -> None:
    out = tmp_path / "lib.pgn"
    arena.play("btt", ["random", "random"], games=1, out=out, event="from code", time=2.0)
    assert events(out) == ["from code"]
