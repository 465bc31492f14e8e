"""A record says how to play its game again, and `arena rerun` does: the seed as given
and the rotation cycle in the Seed and Cycle tags, each seat's ARENA_BOT_SEED, the
chance key (the installation's, $ARENA_SECRET, or a league's own), and a plain word
when the key is not the record's."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.records.files import read_record_file
from arena.records.replay import verify
from arena.records.writer import write_all
from arena.referee.seeds import cycle_seed
from arena.session.rerun import chance_mismatch, game_seed
from tests.helpers.cli import run_cli

SEEDED = f"{sys.executable} {Path(__file__).parent / 'newcomer_bot.py'} seeded"
KEY = {"ARENA_SECRET": "a1" * 16}
OTHER_KEY = {"ARENA_SECRET": "b2" * 16}


def play(out: Path, *more: str, env: dict[str, str] = KEY) -> None:
    result = run_cli("play", "roots", SEEDED, SEEDED, "--seed", "7", "--out", str(out), "-q",
                     "--no-sandbox", "--time-per-move", "2s", "-o", "radius=3", *more, env=env)
    assert result.exit_code == 0, result.output


def rerun(out: Path, *args: str, env: dict[str, str] = KEY) -> str:
    result = run_cli("rerun", str(out), *args, "--no-sandbox", env=env)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_seed_tag_holds_the_seed_as_given_and_the_cycle_its_rotation(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    play(out, "--games", "4")
    records = read_record_file(out)
    assert [(r.tags["Seed"], r.tags["Cycle"]) for r in records] == [("7", "0"), ("7", "0"), ("7", "1"), ("7", "1")]
    assert [game_seed(r)[0] for r in records] == [7000, 7000, 7001, 7001]


def test_a_game_of_seeded_bots_is_played_again_move_for_move(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    play(out, "--games", "3")
    text = rerun(out, "--game", "3", SEEDED, SEEDED)
    assert "Seed 7, Cycle 1" in text and "chance key: $ARENA_SECRET" in text
    assert "the game went as recorded: all" in text and "warning" not in text
    again = tmp_path / "again.pgn"
    rerun(out, "--game", "3", SEEDED, SEEDED, "--out", str(again))
    original, replayed = read_record_file(out)[2], read_record_file(again)[0]
    assert [p.action for p in replayed.plies] == [p.action for p in original.plies]
    assert replayed.tags["BotSeeds"] == original.tags["BotSeeds"]


def test_another_key_is_said_before_playing_and_the_chance_differs(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    play(out)
    record = read_record_file(out)[0]
    assert chance_mismatch(record, bytes.fromhex(KEY["ARENA_SECRET"])) is None
    miss = chance_mismatch(record, bytes.fromhex(OTHER_KEY["ARENA_SECRET"]))
    assert miss is not None and miss.recorded != miss.drawn and record.plies[miss.ply - 1].chance
    text = rerun(out, SEEDED, SEEDED, env=OTHER_KEY)
    assert f"warning: the dice and deals will differ from the record's: at ply {miss.ply}" in text
    assert "another chance key" in text and "ARENA_SECRET" in text
    assert "the game departs from the record at ply" in text and "(the chance differs" in text


def test_a_record_made_before_the_cycle_tag_is_still_read_verified_and_played_again(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    play(out, "--games", "3")
    old = read_record_file(out)[2]
    del old.tags["Cycle"]
    old.tags["Seed"] = str(cycle_seed(7, 1))  # how the arena wrote it before: the game's own seed
    legacy = tmp_path / "legacy.pgn"
    legacy.write_text(write_all([old]))
    assert verify(read_record_file(legacy)[0], 0) == []
    assert game_seed(read_record_file(legacy)[0]) == (7001, None)
    text = rerun(legacy, SEEDED, SEEDED)
    assert "Seed 7001 (the game's own seed)" in text and "the game went as recorded" in text


def test_a_league_game_is_played_again_with_the_league_key_and_its_bots(tmp_path: Path) -> None:
    bot = f'["{sys.executable}", "{Path(__file__).parent / "newcomer_bot.py"}", "seeded"]'
    league = tmp_path / "l.toml"
    league.write_text(f'name = "r"\ngame = "roots"\noptions = {{ radius = "3" }}\ngames_per_pairing = 4\n'
                      f'concurrency = 1\nseed = 5\nsandbox = false\n[time]\nper_move = "2s"\n'
                      f'[[bots]]\nname = "alpha"\ncommand = {bot}\n[[bots]]\nname = "beta"\ncommand = {bot}\n')
    result = run_cli("league", "run", str(league), "-q", env=OTHER_KEY)
    assert result.exit_code == 0, result.output
    records = tmp_path / "l" / "league.pgn"
    text = rerun(records, "--game", "4", "--league", str(league))  # this installation's key is not the league's
    assert "chance key: the league's own key" in text and "the game went as recorded" in text
    text = rerun(records, "--game", "2", SEEDED, SEEDED)  # the key from the league.sqlite beside the records
    assert "chance key: the league's own key" in text and "the game went as recorded" in text
    result = run_cli("rerun", str(records))
    assert result.exit_code == 2
    assert "--league FILE.toml" in " ".join(result.output.split())


def test_any_game_of_a_match_of_shipped_bots_is_played_again_move_for_move(tmp_path: Path) -> None:
    """The shipped bots seed their generator afresh at each start (ARENA_BOT_SEED and
    match_game), so a later game of a match replays as well as a process's first."""
    out = tmp_path / "games.pgn"
    result = run_cli("play", "treeblox", "random", "greedy", "--seed", "7", "--bot-seed", "11",
                     "--games", "3", "--out", str(out), "-q", "--no-sandbox", env=KEY)
    assert result.exit_code == 0, result.output
    for game in ("2", "3"):  # the same two processes played all three
        again = tmp_path / f"again-{game}.pgn"
        text = rerun(out, "--game", game, "--out", str(again))
        assert "the game went as recorded: all" in text, text
        original, replayed = read_record_file(out)[int(game) - 1], read_record_file(again)[0]
        assert [p.action for p in replayed.plies] == [p.action for p in original.plies]
