"""What a newcomer meets on the command line: a file that is not a record, a match
stopped before its games finished, a bot that prints its debugging to stdout."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.records.files import read_record_file
from tests.helpers.cli import run_cli

BOT = Path(__file__).parent / "newcomer_bot.py"


def test_replay_and_verify_of_a_file_that_is_not_a_record_exit_2(tmp_path: Path) -> None:
    program = tmp_path / "mybot.py"
    program.write_text("import sys\nprint('hello')\n")
    for command in ("replay", "verify"):
        result = run_cli(command, str(program))
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert text.startswith(f"error: {program} is not a record file") and "arena play --out" in text


def _interrupt(tmp_path: Path, games: int, sleep_from: int) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`arena play` of a bot that thinks a minute from game `sleep_from` on, stopped
    with SIGTERM once that game is under way."""
    out, logs = tmp_path / "games.pgn", tmp_path / "logs"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "btt", f"{sys.executable} {BOT} sleep-from {sleep_from}", "random",
         "--games", str(games), "--out", str(out), "--log-dir", str(logs), "--time-per-move", "90s",
         "--no-sandbox"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            started = any(logs.glob("*-sleep-from*.log")) or any(logs.glob("*newcomer_bot*.log"))
            if started and (sleep_from == 0 or (out.exists() and out.stat().st_size > 0)):
                break
            time.sleep(0.1)
        time.sleep(0.5)  # the bot is thinking in the game that will not finish
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), out


def test_interrupted_before_any_game_finished_leaves_no_empty_record_file(tmp_path: Path) -> None:
    done, out = _interrupt(tmp_path, 1, 0)
    assert done.returncode == 130, done.stderr
    text = " ".join(done.stderr.split())
    assert "no game had finished, so none was recorded" in text
    assert "finished games are in" not in text
    assert not out.exists()


def test_interrupted_after_a_game_says_how_many_are_in_the_file(tmp_path: Path) -> None:
    done, out = _interrupt(tmp_path, 3, 1)
    assert done.returncode == 130, done.stderr
    assert f"the 1 game(s) that finished are in {out}" in " ".join(done.stderr.split())
    assert len(read_record_file(out)) == 1


def test_debug_text_on_stdout_is_one_clear_fault(tmp_path: Path) -> None:
    result = run_cli("play", "btt", f"{sys.executable} {BOT} debug-stdout", "random", "--no-sandbox",
                     "--log-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "seat 0 malformed at ply 1:" in text
    detail = text.split("seat 0 malformed at ply 1:")[1]
    assert "'thinking about my move' is not JSON" in detail
    assert "stdout is for protocol lines only: write debugging output to stderr" in detail
    assert "malformed" not in detail.lower()  # the reason is said once, before the detail
