"""The referee keeps The Tree's secrets.

Seeded games are played through the real referee (arena.match.play_match) with a
recording bot (tests/recording_bot.py) at every seat; each bot writes down every line
it receives. Replaying each game's record omnisciently then says, before every ply,
which tiles each seat may know: its own hand (its deal and its own draws) and the tiles
on the tree. Every message is taken apart by the protocol's shape (an unknown field or
an event that is not a deal, draw, pass or placement fails the test), every tile it
names must be one the seat may know at that moment, and the events a seat received must
be exactly its redacted view of the record: `deal` with its own nine tiles, `draw <tile>`
for its own draws, `draw` for the others', every placement and pass.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import games
from arena.games import CHANCE
from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import HAND, parse_deal, parse_placement, tile_name, tile_of
from arena.process.spec import BotSpec, Limits
from arena.records.record import GameRecord
from arena.referee.match import PlannedGame
from arena.referee.seeds import rotated
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match

RECORDER = Path(__file__).resolve().parent / "recording_bot.py"
GAME = games.get("the-tree")
OBSERVATION_KEYS = {"seat", "seats", "to_move", "hand", "hand_sizes", "supply_size", "tiles", "finished", "passes"}
REQUEST_KEYS = {"type", "ply", "clock", "events", "legal", "observation"}
END_KEYS = {"type", "result", "termination", "events"}


@dataclass
class Truth:
    """The omniscient replay of one record: per ply, what each seat may know and
    the event each seat should have been sent."""

    allowed: list[list[set[str]]]
    """allowed[p][seat]: tiles the seat may know before ply p + 1 (p = 0 .. plies)."""
    events: list[list[tuple[int, int, str]]]
    """events[seat]: (ply, actor, action as the seat should see it) for every ply."""


def replay_truth(record: GameRecord, seats: int) -> Truth:
    state = GAME.new_state(seats)
    assert isinstance(state, TheTreeState)
    allowed: list[list[set[str]]] = [[set() for _ in range(seats)]]
    events: list[list[tuple[int, int, str]]] = [[] for _ in range(seats)]
    for number, ply in enumerate(record.plies, start=1):
        actor = state.current()
        for seat in range(seats):
            if actor == CHANCE:
                deal = parse_deal(ply.action)
                assert deal is not None
                seen = "deal " + ",".join(tile_name(t) for t in deal[seat * HAND:(seat + 1) * HAND])
            elif ply.action == "draw":
                seen = f"draw {tile_name(state.supply[0])}" if seat == actor else "draw"
            else:
                seen = ply.action
            events[seat].append((number, actor, seen))
        state.apply(ply.action)
        placed = {tile_name(tile_of(m[0], m[1])) for m in state.tiles}
        allowed.append([placed | {tile_name(t) for t in state.hands[seat]} for seat in range(seats)])
    assert state.is_terminal()
    return Truth(allowed, events)


def tiles_of_action(action: str) -> set[str]:
    """The tiles an action names; any other shape fails."""
    if action.startswith("deal "):
        names = action[5:].split(",")
        assert len(names) == HAND, f"a deal view with {len(names)} tiles"
        return set(names)
    if action.startswith("draw "):
        return {action[5:]}
    if action in ("draw", "pass"):
        return set()
    move = parse_placement(action)
    assert move is not None, f"unexpected action {action!r}"
    return {tile_name(tile_of(move[0], move[1]))}


def tiles_in_message(message: dict[str, Any]) -> tuple[set[str], list[tuple[int, int, str]]]:
    """Every tile a request or end message names, and its events; every field is
    accounted for, so nothing can slip past the check."""
    kind = message["type"]
    assert set(message) <= (REQUEST_KEYS if kind == "request" else END_KEYS), sorted(message)
    found: set[str] = set()
    events = []
    for event in message.get("events", []):
        assert set(event) == {"ply", "seat", "action"}
        found |= tiles_of_action(event["action"])
        events.append((event["ply"], event["seat"], event["action"]))
    for action in message.get("legal") or []:
        found |= tiles_of_action(action)
    observation = message.get("observation")
    if observation is not None:
        assert set(observation) == OBSERVATION_KEYS, sorted(observation)
        found |= set(observation["hand"])
        for placed in observation["tiles"]:
            found |= tiles_of_action(placed)
        for key in OBSERVATION_KEYS - {"hand", "tiles"}:
            value = observation[key]
            values = value if isinstance(value, list) else [value]
            assert all(v is None or isinstance(v, int) for v in values), (key, value)
    if kind == "request":
        assert isinstance(message["ply"], int) and all(isinstance(v, int) for v in message["clock"].values())
    else:
        assert all(isinstance(v, (int, float)) for part in message["result"].values() for v in part)
        assert message["termination"] in ("normal",)
    return found, events


def check_seat(lines: list[str], truth: Truth, seat: int, record_text: str) -> None:
    """One seat's messages of one game (from its start to its end) against the truth."""
    start = json.loads(lines[0])
    assert start["type"] == "start" and start["seat"] == seat
    assert not any(tile in json.dumps(start) for tile in ("deal",))
    received: list[tuple[int, int, str]] = []
    requests = 0
    for line in lines[1:]:
        assert record_text not in line, "the whole deal reached a seat"
        message = json.loads(line)
        found, events = tiles_in_message(message)
        if message["type"] == "request":
            allowed = truth.allowed[message["ply"] - 1][seat]
            requests += 1
        else:
            allowed = truth.allowed[-1][seat]
        leaked = found - allowed
        assert not leaked, f"seat {seat} was told {sorted(leaked)} it may not know: {line[:300]}"
        received += events
    assert received == truth.events[seat], "the events differ from the seat's view of the record"
    assert requests > 0 and json.loads(lines[-1])["type"] == "end"


def split_games(path: Path) -> dict[int, list[str]]:
    """A recording bot's log cut into games by match index (start .. end)."""
    games: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text().splitlines():
        message = json.loads(line)
        if message["type"] == "start":
            current = games.setdefault(message.get("match_game", 0), [])
        if current is not None and message["type"] in ("start", "request", "end"):
            current.append(line)
        if message["type"] == "end":
            current = None
    return games


def play_and_check(seats: int, games: int, seed: int, folder: Path) -> list[GameRecord]:
    """A match of `games` seeded games (a fresh deal each, seats rotating) between
    recording bots, every message checked; the records."""
    folder.mkdir(parents=True, exist_ok=True)
    logs = [folder / f"bot{b}.jsonl" for b in range(seats)]
    specs = [BotSpec(f"rec{b}", [sys.executable, str(RECORDER)],
                     env={"RECORDING_BOT_FILE": str(logs[b])}, bot_seed=seed * 10 + b)
             for b in range(seats)]
    plan = tuple(PlannedGame(rotated(range(seats), g % seats), seed * 1000 + g, str(g + 1)) for g in range(games))
    # The recording bots write their logs outside any scratch folder: these tests are
    # about what the messages say, so they run without the sandbox.
    result = run_match(GAME, specs, TimeControl(per_move_s=5), seed=seed, games=games, plan=plan,
                       limits=Limits(sandbox=False))
    per_bot = [split_games(log) for log in logs]
    records = []
    for index, (outcome, sitting) in enumerate(zip(result.outcomes, result.seatings, strict=True)):
        assert outcome.termination == "normal", outcome.record.tags.get("TerminationDetail")
        truth = replay_truth(outcome.record, seats)
        for seat, bot in enumerate(sitting):
            check_seat(per_bot[bot][index], truth, seat, outcome.record.plies[0].action)
        records.append(outcome.record)
    return records


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_no_seat_learns_a_tile_it_may_not_know(seats: int, tmp_path: Path) -> None:
    records = play_and_check(seats, 8, seed=seats, folder=tmp_path)
    assert len({r.plies[0].action for r in records}) == 8  # eight different deals
    if seats < 4:
        assert any(p.action == "draw" for r in records for p in r.plies)  # draws were tested


def test_the_check_catches_a_leak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same check fails when the game shows other seats' draws (a planted leak)."""
    honest = TheTreeState.visible_action

    def leaky(self: TheTreeState, action: str, actor: int, seat: int) -> str | None:
        if action == "draw" and self.supply:
            return f"draw {tile_name(self.supply[0])}"
        return honest(self, action, actor, seat)

    monkeypatch.setattr(TheTreeState, "visible_action", leaky)
    with pytest.raises(AssertionError, match="may not know"):
        play_and_check(2, 4, seed=9, folder=tmp_path)


@pytest.mark.slow
def test_no_seat_learns_a_tile_it_may_not_know_in_many_games(tmp_path: Path) -> None:
    for seats in (1, 2, 3, 4):
        play_and_check(seats, 150, seed=100 + seats, folder=tmp_path / str(seats))
