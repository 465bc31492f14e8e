"""One run at a time of a league or a resumable match (#39): a second run of the same
league file or the same `arena match --out` is refused at once, exit 2, naming the
running one's pid and host; a lock left by a run killed with SIGKILL never blocks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league.config import load_league
from arena.league.run_lock import AlreadyRunning, RunLock, lock_path
from arena.league.runner import open_league_plan
from tests.helpers.cli import run_cli_cleanly

LEAGUE = """
name = "nightly"
game = "btt"
seed = 5
games_per_pairing = 2
bots = [
  { name = "a", command = "random" },
  { name = "b", command = "random" },
]
[time]
per_move = "1s"
"""


def test_a_second_lock_is_refused_naming_the_first_until_it_is_released(tmp_path: Path) -> None:
    database = tmp_path / "league.sqlite"
    first = RunLock.take(database, "league 'x'")
    with pytest.raises(AlreadyRunning) as refused:
        RunLock.take(database, "league 'x'")
    text = str(refused.value)
    assert f"league 'x' is already running (pid {os.getpid()} on {socket.gethostname()} since " in text
    assert "two runs would play the same games twice" in text
    first.release()
    RunLock.take(database, "league 'x'").release()


def test_a_lock_of_a_run_killed_with_sigkill_does_not_block(tmp_path: Path) -> None:
    database = tmp_path / "league.sqlite"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from arena.league.run_lock import RunLock; from pathlib import Path;"
         f"RunLock.take(Path({str(database)!r}), 'x'); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(AlreadyRunning, match=f"pid {holder.pid} "):
            RunLock.take(database, "x")
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert lock_path(database).exists()  # the note stays; the lock went with its process
        RunLock.take(database, "x").release()
    finally:
        holder.kill()
        holder.wait()


def test_a_second_run_of_a_running_league_exits_2_naming_the_first(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE)
    league = load_league(path)
    store, _ = open_league_plan(league, grow=True)  # this run holds the league
    try:
        result = run_cli_cleanly("league", "run", str(path), "-q", env={"COLUMNS": "300"})
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert f"league 'nightly' is already running (pid {os.getpid()} on {socket.gethostname()}" in text
        table = run_cli_cleanly("league", "table", str(path))  # reading it stays allowed
        assert table.exit_code == 0, table.output
    finally:
        store.close()
    done = run_cli_cleanly("league", "run", str(path), "-q")
    assert done.exit_code == 0, done.output


def test_a_second_match_with_the_same_out_exits_2(tmp_path: Path) -> None:
    from arena.session.store import MatchStore

    out = tmp_path / "m.pgn"
    held = MatchStore.create(out, {"game": "btt"}, ["random", "greedy"])
    try:
        result = run_cli_cleanly("match", "random", "greedy", "-g", "btt", "--games", "2", "--out", str(out),
                                 "--no-sandbox", env={"COLUMNS": "300"})
        assert result.exit_code == 2, result.output
        assert f"is already running (pid {os.getpid()} on " in " ".join(result.output.split())
    finally:
        held.close()
