"""A league survives being killed: SIGKILL at random moments (a real subprocess,
several times) then a resume ends with exactly the scheduled games, each once; Ctrl-C
says how many games were abandoned and how to resume. No bot process is left."""

from __future__ import annotations

import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.records.files import read_record_file
from arena.records.replay import verify
from tests.helpers.processes import wait_no_processes

ROOT = Path(__file__).resolve().parent.parent

LEAGUE = """
name = "survivor"
game = "btt"
seed = 5
concurrency = 2
games_per_pairing = {games}
bots = [
  {{ name = "a", command = "random" }},
  {{ name = "b", command = "random" }},
  {{ name = "c", command = "greedy" }},
]
[time]
per_move = "2s"
"""


def start(path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "arena", "league", "run", str(path), "-q"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stored(db: Path) -> list[int]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            return [i for (i,) in conn.execute("SELECT idx FROM games ORDER BY idx")]
    except sqlite3.OperationalError:  # the schema is not written yet
        return []


def test_sigkill_at_random_moments_then_resume_plays_each_game_once(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.format(games=24))  # 3 pairings x 24 = 72 games
    db = tmp_path / "league" / "league.sqlite"
    rng = random.Random(7)
    counts = []
    for target in sorted(rng.sample(range(3, 66), 4)):
        process = start(path)
        while len(stored(db)) < target and process.poll() is None:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.03))  # anywhere in a game, or between two
        process.send_signal(signal.SIGKILL)
        process.wait()
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
        counts.append(len(stored(db)))
        assert wait_no_processes(tmp_path.resolve()) == [], "a bot outlived its killed referee"
    assert counts == sorted(counts) and counts[-1] < 72, counts  # killed mid-league, nothing lost
    final = subprocess.run([sys.executable, "-m", "arena", "league", "run", str(path), "-q"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    assert stored(db) == list(range(72))
    records = read_record_file(tmp_path / "league" / "league.pgn")
    assert sorted(r.tags["Round"] for r in records) == sorted({r.tags["Round"] for r in records})
    assert len(records) == 72
    assert all(verify(r) == [] for r in records)
    assert wait_no_processes(tmp_path.resolve()) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_ctrl_c_says_what_was_abandoned_and_how_to_resume(tmp_path: Path, signum: int) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.format(games=40))
    db = tmp_path / "league" / "league.sqlite"
    process = start(path)
    deadline = time.monotonic() + 30
    while len(stored(db)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signum)  # Ctrl-C, a closed terminal, a polite kill
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    message = " ".join(err.decode().split())
    abandoned = re.search(r"interrupted: (\d+) game\(s\) in flight were abandoned and will be replayed", message)
    assert abandoned is not None and int(abandoned.group(1)) <= 2  # at most one per table at once
    assert f"arena league run {path}" in message.replace("\n", "")
    done = len(stored(db))
    assert f"{done} of 120 games are stored" in message
    assert wait_no_processes(tmp_path.resolve()) == []
