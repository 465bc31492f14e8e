"""`arena match --out FILE` is resumable the way leagues are: its games are stored in
FILE.sqlite as they end, so a match killed mid-run (kill -9, Ctrl-C) loses at most the
games in flight, and the same command resumes it and says so: with --concurrency, with
an SPRT whose stored pairs count (a decided test is not continued), and with its
records file kept exactly in line with the store."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arena
from arena import records
from arena.records.files import read_record_file
from arena.records.replay import verify
from tests.helpers.cli import run_cli
from tests.helpers.processes import wait_no_processes

ROOT = Path(__file__).resolve().parent.parent


def command(out: Path, games: int, *more: str) -> list[str]:
    return [sys.executable, "-m", "arena", "match", "random", "greedy", "--game", "btt", "--games", str(games),
            "--time-per-move", "2", "-q", "--out", str(out), *more]


def stored(out: Path) -> list[int]:
    db = Path(f"{out}.sqlite")
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            return [i for (i,) in conn.execute("SELECT idx FROM games ORDER BY idx")]
    except sqlite3.OperationalError:  # not made yet
        return []


def kill_when(out: Path, process: subprocess.Popen[bytes], at_least: int, signum: int = signal.SIGKILL) -> None:
    deadline = time.monotonic() + 60
    while len(stored(out)) < at_least and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signum)


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_killed_match_resumes_with_concurrency_and_plays_each_game_once(tmp_path: Path) -> None:
    out = tmp_path / "match.pgn"
    args = command(out, 120, "--concurrency", "2", "--json")
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(out, process, 15)
    process.wait()
    kept = stored(out)
    assert 15 <= len(kept) < 120, kept
    assert wait_no_processes(tmp_path.resolve()) == []
    final = run(args)
    assert final.returncode == 0, final.stderr
    assert f"resuming: {len(kept)} of 120 games stored" in final.stderr
    assert stored(out) == list(range(120))
    records = read_record_file(out)
    assert sorted(int(r.tags["Round"]) for r in records) == list(range(1, 121))  # each game once
    assert all(verify(r) == [] for r in records)
    by_round = {int(r.tags["Round"]): r for r in records}
    for pair in range(60):  # pairs: the same seed, seats swapped, whichever run played them
        first, second = by_round[2 * pair + 1], by_round[2 * pair + 2]
        assert first.tags["Seed"] == second.tags["Seed"] and first.players == second.players[::-1]
    data = json.loads(final.stdout)
    assert len(data["games"]) == 120 and data["elo"]["pairs"] == 60  # the stored games are in the result
    assert data["resumed"] == len(kept) and data["store"] == f"{out}.sqlite"
    with sqlite3.connect(Path(f"{out}.sqlite")) as db:
        texts = [t for (t,) in db.execute("SELECT record FROM games ORDER BY finished, idx")]
    assert out.read_text() == "\n".join(texts)  # the records file is exactly the store's games


def test_stored_pairs_count_toward_the_sprt_and_a_decided_test_is_not_continued(tmp_path: Path) -> None:
    out = tmp_path / "sprt.pgn"
    args = command(out, 2000, "--sprt", "elo0=0", "elo1=30", "--json")
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(out, process, 8)
    process.wait()
    kept = set(stored(out))
    pairs_before = sum(1 for k in range(1000) if {2 * k, 2 * k + 1} <= kept)
    assert pairs_before >= 3
    resumed = run(args)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["sprt"]["decision"] == "H1"
    now = set(stored(out))
    pairs = sum(1 for k in range(1000) if {2 * k, 2 * k + 1} <= now)
    assert data["elo"]["pairs"] == pairs and pairs > (len(now) - len(kept)) // 2  # earlier pairs counted too
    again = run(args)
    assert again.returncode == 0, again.stderr
    assert "the SPRT decided on the stored pairs (H1): no game is played" in again.stderr
    assert set(stored(out)) == now
    assert json.loads(again.stdout)["sprt"]["decision"] == "H1"
    assert len(read_record_file(out)) == len(now)


def test_ctrl_c_says_how_many_games_are_stored_and_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "stop.pgn"
    process = subprocess.Popen(command(out, 400), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kill_when(out, process, 4, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    message = " ".join(err.decode().split())
    assert f"{len(stored(out))} of 400 games are stored in {out}.sqlite" in message
    assert "run the same command again to resume" in message
    assert len(read_record_file(out)) == len(stored(out))


def test_the_records_file_is_rebuilt_after_what_it_held_before_the_match(tmp_path: Path) -> None:
    out = tmp_path / "shared.pgn"
    assert run_cli("play", "btt", "random", "random", "--out", str(out), "-q").exit_code == 0
    before = out.read_bytes()
    first = run_cli("match", "random", "greedy", "-g", "btt", "-n", "4", "--out", str(out), "-q")
    assert first.exit_code == 0, first.output
    whole = out.read_bytes()
    assert whole.startswith(before) and len(read_record_file(out)) == 5
    out.write_bytes(whole[: len(whole) - 200])  # a crash tore the last game
    again = run_cli("match", "random", "greedy", "-g", "btt", "-n", "6", "--out", str(out), "-q")
    assert again.exit_code == 0, again.output
    assert "resuming: 4 of 6 games stored" in again.output
    read_back = read_record_file(out)
    assert out.read_bytes().startswith(whole) and len(read_back) == 7
    assert records.write(read_back[0]).encode() == before


def test_another_match_on_the_same_file_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    out = tmp_path / "one.pgn"
    assert run_cli("match", "random", "greedy", "-g", "btt", "-n", "2", "--out", str(out)).exit_code == 0
    before = out.read_bytes(), Path(f"{out}.sqlite").read_bytes()
    other = run_cli("match", "random", "random", "-g", "btt", "-n", "2", "--out", str(out))
    assert other.exit_code == 2
    said = " ".join(other.output.split())
    assert f"{out} holds the games of another match (stored in one.pgn.sqlite), played with bots" in said
    assert "another --out for a new match" in said
    assert (out.read_bytes(), Path(f"{out}.sqlite").read_bytes()) == before


def test_a_match_without_out_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("match", "random", "greedy", "-g", "btt", "-n", "2", "-q")
    assert result.exit_code == 0
    assert list(tmp_path.iterdir()) == []
    shown = run_cli("match", "--help", env={"COLUMNS": "200"}).output
    help_text = " ".join(shown.replace("│", " ").split())
    assert "store the match in FILE.sqlite" in help_text and "without --out nothing is kept" in help_text


def test_the_library_resumes_a_match_with_out(tmp_path: Path) -> None:
    out = tmp_path / "lib.pgn"
    first = arena.match("btt", "random", "greedy", games=4, out=out, time=2.0)
    seen: list[object] = []
    second = arena.match("btt", "random", "greedy", games=4, out=out, time=2.0, on_game=seen.append)
    assert seen == [] and second.stats.counts == first.stats.counts and len(second.result.outcomes) == 4
    assert [o.record.tags["Round"] for o in second.result.outcomes] == ["1", "2", "3", "4"]
    assert os.path.exists(f"{out}.sqlite")


def test_a_match_store_of_a_newer_arena_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    out = tmp_path / "new.pgn"
    assert run_cli("match", "random", "greedy", "-g", "btt", "-n", "2", "--out", str(out)).exit_code == 0
    db = Path(f"{out}.sqlite")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 9")
    before = db.read_bytes(), out.read_bytes()
    result = run_cli("match", "random", "greedy", "-g", "btt", "-n", "4", "--out", str(out))
    assert result.exit_code == 2
    assert "was made by a newer arena (schema 9; this arena reads up to 2)" in " ".join(result.output.split())
    assert (db.read_bytes(), out.read_bytes()) == before
