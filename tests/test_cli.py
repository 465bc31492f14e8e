"""The command line as a user meets it: outputs, exit codes and error messages."""

from __future__ import annotations

from pathlib import Path

from arena.records.files import read_record_file
from arena.records.writer import write_all
from tests.helpers.cli import exit_and_output as invoke
from tests.helpers.exclusive import apart_from_stalls


def test_games_lists_btt_with_seats_and_options() -> None:
    code, out = invoke("games")
    assert code == 0
    assert "btt" in out and "2-6" in out
    rows = [line.split("│")[1:-1] for line in out.splitlines() if line.startswith("│ blox ")]
    assert ["blox", "variant", "standard", "standard, bridge"] in [[cell.strip() for cell in row[:4]] for row in rows]


def test_legal_lists_actions_in_ascii_order() -> None:
    code, out = invoke("legal", "btt", "--players", "2")
    assert code == 0
    lines = out.split()
    assert len(lines) == 32 and lines == sorted(lines) and lines[0] == "Na1"
    code, out = invoke("legal", "btt", "--players", "2", "Nc3", "Rd2")
    assert code == 0
    assert out.split() == sorted(f"{size}{sq}>d2" for size in "123" for sq in ("c2", "d1", "d3", "e2"))


def test_legal_names_an_illegal_action_and_its_index() -> None:
    code, out = invoke("legal", "btt", "--players", "2", "Nc3", "Nd2")
    assert code == 1
    assert "action 2 'Nd2'" in out


def test_perft_prints_depth_and_count() -> None:
    code, out = invoke("perft", "btt", "3", "--players", "2")
    assert code == 0
    assert out.splitlines() == ["1 32", "2 992", "3 9360"]


def test_bad_input_gets_a_clear_error() -> None:
    code, out = invoke("legal", "nope")
    assert code == 2 and "unknown game 'nope'" in out
    code, out = invoke("legal", "btt", "--option", "board=hex")
    assert code == 2 and "board" in out
    code, out = invoke("legal", "btt", "--players", "9")
    assert code == 2 and "2 to 6" in out
    code, out = invoke("play", "blox", "random", "random", "random", "--option", "variant=bridge")
    assert code == 2 and "bridge variant of blox is played by 2 seats, not 3" in " ".join(out.split())
    code, out = invoke("legal", "blox", "--players", "4", "--option", "variant=bridge")
    assert code == 2 and "2 seats" in out
    code, out = invoke("play", "btt", "random", "no-such-bot-xyz")
    assert code == 2 and "no-such-bot-xyz" in out
    code, out = invoke("play", "btt", "random", "random", "--clock", "abc")
    assert code == 2 and "--clock" in out


def test_play_writes_a_record_that_verifies_and_replays(tmp_path: Path) -> None:
    record = tmp_path / "game.pgn"
    code, out = invoke("play", "btt", "random", "random", "--seed", "7", "--games", "2", "--out", str(record))
    assert code == 0, out
    games = read_record_file(record)
    assert len(games) == 2
    assert write_all(games) == record.read_text()  # the match file round-trips byte for byte
    assert [g.tags["Player0"] for g in games] == ["random", "random-2"]
    assert [g.tags["Player1"] for g in games] == ["random-2", "random"]
    code, out = invoke("verify", str(record))
    assert code == 0 and "2 game(s) verified" in out
    code, out = invoke("replay", str(record), "--game", "2", "--ply", "6")
    assert code == 0
    code, out = invoke("replay", str(record))
    assert code == 0 and "termination normal" in out


def test_verify_rejects_a_tampered_record(tmp_path: Path) -> None:
    record = tmp_path / "game.pgn"
    assert invoke("play", "btt", "random", "random", "--out", str(record))[0] == 0
    games = read_record_file(record)
    games[0].tags["Ranks"] = "2,1" if games[0].tags["Ranks"] == "1,2" else "1,2"
    record.write_text(write_all(games))
    code, out = invoke("verify", str(record))
    assert code == 1 and "failed verification" in out


def test_demo_runs_a_league_per_game_and_plays_afresh(tmp_path: Path) -> None:
    """A smoke test at 2 games per pairing (the README's demo plays 6). The demo plays on
    the CPU basis, so a loaded machine decides none of its games; it still keeps apart
    from the browser tests, whose stalls of the whole machine are the worst there is."""
    out_dir = tmp_path / "demo"
    with apart_from_stalls():
        code, out = invoke("demo", "--out", str(out_dir), "--games", "2")
    assert code == 0, out
    from arena.cli.demo import clear_demo_output, demo_leagues
    from arena.league.schedule import build_schedule

    leagues = demo_leagues(out_dir, 1, 2)
    assert {league.game.id for league in leagues} >= {"btt", "treeblox"}
    assert {league.seats for league in leagues} == {2, 3}
    for league in leagues:
        records = read_record_file(league.records)
        assert len(records) == len(build_schedule(league))
        faults = [(r.tags["Round"], r.tags.get("TerminationDetail")) for r in records if r.termination != "normal"]
        assert faults == [], league.name  # sandboxed, no fault
        assert all("basis=cpu" in r.tags["TimeControl"] for r in records), league.name
        assert invoke("verify", str(league.records))[0] == 0
    clear_demo_output(leagues[0])  # what a second demo does first: its own folder starts empty
    assert [p.name for p in leagues[0].output.iterdir()] == [".arena-demo"]
    mine = tmp_path / "mine" / leagues[0].output.name
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("keep me")
    code, out = invoke("demo", "--out", str(tmp_path / "mine"), "--games", "2")
    assert code == 2 and "holds files the demo did not make" in " ".join(out.split())
    assert (mine / "notes.txt").read_text() == "keep me"


def test_help_explains_every_command() -> None:
    code, out = invoke("--help")
    assert code == 0
    for command in ("games", "play", "match", "league", "legal", "perft", "replay", "verify", "demo", "bench"):
        assert command in out
        sub_code, sub_out = invoke(command, "--help")
        assert sub_code == 0 and "Usage" in sub_out


def test_replay_of_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    code, out = invoke("replay", str(tmp_path / "none.pgn"))
    assert code == 2 and "no such record file" in out


def test_watch_draws_the_board_after_every_turn() -> None:
    code, out = invoke("play", "btt", "random", "random", "--watch", "--seed", "2")
    assert code == 0, out
    assert out.count("a   b   c   d   e   f   g   h") == 32  # 2 setup turns + 30 pyramids


def test_bench_engine_and_league_parts_report_every_game() -> None:
    import arena.bench.games as bench_games
    from arena.games import GAMES

    figures = bench_games.engine_figures(GAMES["btt"], budget_s=0.05)
    assert figures.games_per_s > 0 and figures.legal_count > 0 and figures.legal_median_ms > 0
    assert 0 < figures.clone_median_us < 1000
    code, out = invoke("bench", "--only", "league", "--league-games", "4")
    assert code == 0, out
    assert "League of random bots" in out and "referee share" in out
    assert invoke("bench", "--only", "nothing")[0] == 2


def test_replay_draws_one_level_of_a_blox_game_and_refuses_levels_elsewhere(tmp_path: Path) -> None:
    record = tmp_path / "blox.pgn"
    code, out = invoke("play", "blox", "random", "random", "-o", "width=8", "-o", "height=8", "--out", str(record))
    assert code == 0, out
    code, out = invoke("replay", str(record), "--ply", "0", "--level", "0")
    assert code == 0 and "level 0:" in out and "0a" not in out  # nothing placed yet
    code, out = invoke("replay", str(record), "--ply", "1", "--level", "0")
    assert code == 0 and "0a" in out and "1a" not in out
    code, out = invoke("replay", str(record), "--ply", "1", "--level", "1")
    assert code == 0 and "0a" not in out and "0b" not in out
    btt = tmp_path / "btt.pgn"
    assert invoke("play", "btt", "random", "random", "--out", str(btt))[0] == 0
    code, out = invoke("replay", str(btt), "--level", "1")
    assert code == 2 and "has no levels" in out


def test_bench_referee_run_counts_the_decisions_of_its_games() -> None:
    from arena.bench.referee import referee_run
    from arena.process.botnames import resolve_bot
    from arena.process.spec import Limits

    bot = resolve_bot("random", "btt")
    run = referee_run([bot, bot], 2, 2, Limits(sandbox=False))
    assert len(run.records) == 4 and run.decisions == sum(len(r.plies) for r in run.records)
    assert run.wall_s > 0 and run.cpu_s > 0  # from the gate to the end of the last game
