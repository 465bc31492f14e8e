"""The live page shows the boards of a cluster league's games under way: each worker
sends the plies of the game it plays, a few times a second, and the league's process
hands them on in order (a batch that does not follow what was seen is dropped)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cluster.executor import LiveGames
from arena.league.schedule import ScheduledGame
from arena.records.files import read_record_file
from arena.records.record import Ply
from tests.helpers.scripts import first_legal_bot

PAUSED = first_legal_bot("paused", "time.sleep(0.1)", imports="time")


@dataclass
class Sink:
    started: list[int] = field(default_factory=list)
    plies: dict[int, list[str]] = field(default_factory=dict)

    def starting(self, game: ScheduledGame) -> None:
        self.started.append(game.index)
        self.plies[game.index] = []

    def ply(self, game: ScheduledGame, ply: Ply) -> None:
        self.plies[game.index].append(ply.action)


@dataclass
class Item:
    left: dict[int, ScheduledGame]


def test_plies_are_handed_on_in_order_and_strays_dropped() -> None:
    game = ScheduledGame(7, 0, (0, 1), 1000, "1.1")
    sink = Sink()
    live = LiveGames(sink)  # type: ignore[arg-type]
    where: dict[int, Any] = {7: Item({7: game})}
    live.take({"plies": 7, "from": 1, "actions": ["a"], "chance": [False]}, where)  # before its begin: dropped
    live.take({"begin": 7}, where)
    live.take({"plies": 7, "from": 1, "actions": ["a", "b"], "chance": [False, True]}, where)
    live.take({"plies": 7, "from": 5, "actions": ["x"], "chance": [False]}, where)  # a gap: dropped
    live.take({"plies": 7, "from": 3, "actions": ["c"], "chance": [False]}, where)
    live.take({"begin": 8}, where)  # not a game of this run
    assert sink.started == [7] and sink.plies == {7: ["a", "b", "c"]}
    live.take({"begin": 7}, where)  # the game started again on another worker
    live.take({"plies": 7, "from": 1, "actions": ["a"], "chance": [False]}, where)
    assert sink.plies == {7: ["a"]}


def test_a_cluster_league_shows_its_games_under_way(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "paused.py").write_text(PAUSED)
    league = tmp_path / "night.toml"
    league.write_text('name = "night"\ngame = "btt"\ngames_per_pairing = 2\nconcurrency = 1\nseed = 1\n'
                      '[time]\nper_move = "5s"\n[[bots]]\nname = "a"\ncommand = ["paused.py"]\ncwd = "bots"\n'
                      '[[bots]]\nname = "b"\ncommand = ["paused.py"]\ncwd = "bots"\n')
    process = subprocess.Popen([sys.executable, "-m", "arena", "league", "run", str(league), "-q", "--cluster",
                                "local:1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen: dict[str, list[str]] = {}
    try:
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            try:
                live = json.loads((tmp_path / "night" / "live.json").read_text())
            except (OSError, ValueError):
                live = {"games": []}
            for game in live["games"]:
                if len(game["actions"]) > len(seen.get(game["round"], [])):
                    seen[game["round"]] = game["actions"]
            time.sleep(0.1)
        output, _ = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 0, output
    records = {r.tags["Round"]: [p.action for p in r.plies] for r in read_record_file(tmp_path / "night" /
                                                                                     "league.pgn")}
    assert seen, "no ply of a game under way reached the live file"
    for round_label, actions in seen.items():
        assert len(actions) >= 3
        assert records[round_label][:len(actions)] == actions  # the plies, in order, as the game was played
