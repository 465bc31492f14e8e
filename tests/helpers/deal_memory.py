"""What a bot process of The Tree could remember of a deal when it starts a game.

Recording bots (tests/recording_bot.py, sandboxed: they write every line they receive
to stderr, kept in their logs) play; their logs are cut into processes (each marks its
lines with an id of its own) and games (start .. end). A game is matched to its record by the seat
and the hand the seat was dealt. For each game a process plays, the tiles hidden from
its seat at the deal (the other hands and the supply) are compared with every tile the
same process was told in its earlier games of the same deal: each one it was told is a
remembered tile. The rule under test: the count is 0 for every game, seat count and
schedule.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games.the_tree_tiles import HAND, TILES, parse_deal, parse_placement, tile_name, tile_of
from arena.records.record import GameRecord
from arena.referee.spec import BotSpec

RECORDER = Path(__file__).resolve().parent.parent / "recording_bot.py"
PREFIX = "RECORDED "
ALL_TILES = frozenset(tile_name(t) for t in TILES)


def recorder(name: str, seed: int, folder: Path) -> BotSpec:
    """A sandboxable recording bot (its lines go to its stderr log) whose script is in `folder`."""
    return BotSpec(name, [sys.executable, str(folder / RECORDER.name)], str(folder), {"ARENA_BOT_SEED": str(seed)})


def tiles_named(message: dict[str, Any]) -> set[str]:
    """Every tile a message names (hand, placements, deal and draw events, legal moves)."""
    found: set[str] = set()
    actions: list[str] = [str(e["action"]) for e in message.get("events") or []]
    actions += [str(a) for a in message.get("legal") or []]
    observation = message.get("observation") or {}
    found |= set(observation.get("hand", []))
    actions += [str(t) for t in observation.get("tiles", [])]
    for action in actions:
        if action.startswith("deal "):
            found |= set(action[5:].split(","))
        elif action.startswith("draw "):
            found.add(action[5:])
        elif (move := parse_placement(action)) is not None:
            found.add(tile_name(tile_of(move[0], move[1])))
    return found & ALL_TILES


@dataclass
class Played:
    """One game as one process saw it."""

    seat: int
    hand: frozenset[str]
    told: set[str] = field(default_factory=set)


def processes(log: Path) -> list[list[Played]]:
    """A recording bot's log cut into processes (by the id each writes before its
    lines), each a list of the games it played."""
    found: dict[str, list[Played]] = {}
    current: dict[str, Played] = {}
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith(PREFIX):
            continue
        process, _, text = line[len(PREFIX):].partition(" ")
        message = json.loads(text)
        kind = message.get("type")
        games = found.setdefault(process, [])
        game = current.get(process)
        if kind == "start":
            current[process] = game = Played(int(message["seat"]), frozenset())
            games.append(game)
        elif game is not None and kind in ("request", "end"):
            if not game.hand:
                deal = next((e["action"] for e in message.get("events", []) if e["seat"] == -1), None)
                if deal is not None:
                    game.hand = frozenset(deal[5:].split(","))
            game.told |= tiles_named(message)
    return list(found.values())


@dataclass
class Memory:
    """The count over a run: games recorded, games checked (one per seat), games started
    by a process that knew hidden tiles, and the tiles it knew."""

    records: int = 0
    games: int = 0
    remembering: int = 0
    tiles: int = 0

    def __str__(self) -> str:
        return (f"{self.records} games ({self.games} seats' games), {self.remembering} started by a process knowing "
                f"hidden tiles, {self.tiles} remembered tiles")


def deals_by_hand(records: list[GameRecord]) -> dict[tuple[int, frozenset[str]], str]:
    """(seat, dealt hand) -> the whole deal, for every record."""
    deals = {}
    for record in records:
        deal = parse_deal(record.plies[0].action)
        assert deal is not None, "a game of The Tree begins with its deal"
        for seat in range(int(record.tags["Seats"])):
            hand = frozenset(tile_name(t) for t in deal[seat * HAND:(seat + 1) * HAND])
            deals[(seat, hand)] = record.plies[0].action
    return deals


def remembered(logs: list[Path], records: list[GameRecord]) -> Memory:
    """The count for the recording bots' logs of a run and its records."""
    deals = deals_by_hand(records)
    memory = Memory(records=len(records))
    for log in logs:
        for process in processes(log):
            told: dict[str, set[str]] = {}
            for game in process:
                if not game.hand:
                    continue  # a game the process never got to play
                deal = deals[(game.seat, game.hand)]
                memory.games += 1
                known = told.get(deal, set()) & (ALL_TILES - game.hand)
                if known:
                    memory.remembering += 1
                    memory.tiles += len(known)
                told.setdefault(deal, set()).update(game.told)
    return memory
