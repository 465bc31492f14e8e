"""Scriptable output: `arena play --json` and `arena match --json` print one strict JSON
document on stdout and nothing else; `arena match --concurrency N` plays pairs on N
tables at once, the same pairs as on one table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.records.files import read_record_file


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def test_play_json_is_one_document_with_games_faults_and_totals(tmp_path: Path) -> None:
    done = arena("play", "btt", "random", "zoo/crash", "--games", "2", "--seed", "4", "--json",
                 "--out", str(tmp_path / "g.pgn"))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # the whole of stdout
    assert [g["game"] for g in document["games"]] == [1, 2]
    crashes = [f for g in document["games"] for f in g["faults"]]
    assert crashes and all(f["bot"] == "zoo/crash" and f["reason"] == "crash" for f in crashes)
    assert {b["bot"] for b in document["bots"]} == {"random", "zoo/crash"}
    assert document["records"] == str(tmp_path / "g.pgn")
    assert "Branches and Twigs and Thorns" in done.stderr  # the table for people went to stderr


def test_match_json_gives_elo_and_sprt_and_concurrency_gives_the_same_games(tmp_path: Path) -> None:
    one = arena("match", "random", "greedy", "--game", "btt", "--games", "8", "--seed", "5", "--bot-seed", "1",
                "--json", "--out", str(tmp_path / "one.pgn"))
    two = arena("match", "random", "greedy", "--game", "btt", "--games", "8", "--seed", "5", "--bot-seed", "1",
                "--json", "--concurrency", "2", "--sprt", "--out", str(tmp_path / "two.pgn"))
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    first, second = json.loads(one.stdout), json.loads(two.stdout)
    assert first["elo"]["candidate"] == "greedy" and first["elo"]["pairs"] == 4
    assert first["elo"]["elo"] is None or isinstance(first["elo"]["elo"], float)  # strict JSON: no Infinity
    assert "sprt" not in first and second["sprt"]["elo1"] == 10 and "llr" in second["sprt"]
    by_round = {r.tags["Round"]: [p.action for p in r.plies] for r in read_record_file(tmp_path / "one.pgn")}
    again = {r.tags["Round"]: [p.action for p in r.plies] for r in read_record_file(tmp_path / "two.pgn")}
    assert by_round.keys() == again.keys() and len(by_round) == 8
    # Two tables play the same pairs (seeds, seats swapped) as one.
    assert sorted(g["seed"] for g in first["games"]) == sorted(g["seed"] for g in second["games"])
