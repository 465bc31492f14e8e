"""The referee keeps The Tree's secrets: games played through the real referee with a
recording bot at every seat; every tile a seat was told about must be one it may know
at that moment (its own deal, its own draws, tiles already placed on the tree)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

from arena.games import get_game
from arena.games.the_tree import parse_deal, parse_placement, tile_name
from arena.match import MatchConfig, play_match
from arena.process import BotSpec
from arena.record import GameRecord
from arena.timecontrol import TimeControl

RECORDER = Path(__file__).resolve().parent / "recording_bot.py"
OBSERVATION_KEYS = {"seat", "to_move", "hand", "hand_sizes", "supply_size", "tiles", "finished", "passes"}


def normal(name: str) -> str:
    return "".join(sorted(name))


def tiles_in_message(message: dict[str, object]) -> set[str]:
    """Every tile a message names, wherever it names one (unknown shapes fail the test)."""
    found: set[str] = set()
    for event in message.get("events") or []:  # type: ignore[attr-defined]
        action = str(event["action"])
        assert len(action.split(",")) < 36, "a full deal reached a seat"
        if action.startswith("deal "):
            found.update(action[5:].split(","))
        elif action.startswith("draw "):
            found.add(action[5:])
        elif action not in ("draw", "pass"):
            parsed = parse_placement(action)
            assert parsed is not None, f"unexpected event {action!r}"
            found.add(normal(action[:2]))
    observation = message.get("observation")
    if isinstance(observation, dict):
        assert set(observation) == OBSERVATION_KEYS, f"unexpected observation fields {sorted(observation)}"
        found.update(observation["hand"])
        found.update(normal(t[0]) for t in observation["tiles"])
    return found


def knowledge(record: GameRecord, seat: int, seats: int) -> list[set[str]]:
    """What `seat` may know before each ply: allowed[p] for p = 0 .. plies."""
    deal = parse_deal(record.plies[0].action)
    assert deal is not None
    own = {tile_name(t) for t in deal[seat * 9:(seat + 1) * 9]}
    supply = [tile_name(t) for t in deal[seats * 9:]]
    public: set[str] = set()
    allowed = [set(), set(own)]  # before the deal: nothing; before ply 2: the own hand
    actors = _actors(record, seats, deal)
    for ply, actor in zip(record.plies[1:], actors):
        if ply.action == "draw":
            tile = supply.pop(0)
            if actor == seat:
                own.add(tile)
        elif ply.action != "pass":
            public.add(normal(ply.action[:2]))
        allowed.append(own | public)
    return allowed


def _actors(record: GameRecord, seats: int, deal: list[tuple[int, int]]) -> list[int]:
    """Who played each ply after the deal, by replaying the record."""
    state = get_game("the-tree").new_state(seats)
    state.apply(record.plies[0].action)
    actors = []
    for ply in record.plies[1:]:
        actors.append(state.current())
        state.apply(ply.action)
    return actors


async def _play(seats: int, seed: int, folder: Path) -> GameRecord:
    specs = [BotSpec(f"rec{s}", [sys.executable, str(RECORDER)],
                     env={"RECORD_FILE": str(folder / f"seat{s}.jsonl"), "ARENA_BOT_SEED": str(seed * 10 + s)})
             for s in range(seats)]
    config = MatchConfig(get_game("the-tree"), {}, TimeControl(per_move_s=5), seed=seed, games=1)
    result = await play_match(config, specs)
    assert result.outcomes[0].termination == "normal"
    return result.outcomes[0].record


def check_secrets(seats: int, seed: int, folder: Path) -> None:
    folder.mkdir()
    record = trio.run(_play, seats, seed, folder)
    for seat in range(seats):
        allowed = knowledge(record, seat, seats)
        lines = (folder / f"seat{seat}.jsonl").read_text().splitlines()
        assert record.plies[0].action not in "".join(lines)
        for line in lines:
            message = json.loads(line)
            if message["type"] == "request":
                limit = allowed[message["ply"] - 1]
            elif message["type"] == "end":
                limit = allowed[-1]
            else:
                continue  # hello and start name no tile
            leaked = tiles_in_message(message) - limit
            assert not leaked, f"seat {seat} was told {sorted(leaked)} in {line[:200]}"


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_no_seat_learns_a_tile_it_may_not_know(tmp_path: Path, seats: int) -> None:
    for seed in range(6):
        check_secrets(seats, seed, tmp_path / f"s{seed}")


@pytest.mark.slow
def test_no_seat_learns_a_tile_it_may_not_know_in_many_games(tmp_path: Path) -> None:
    for seats in (1, 2, 3, 4):
        for seed in range(100, 150):
            check_secrets(seats, seed, tmp_path / f"{seats}-{seed}")
