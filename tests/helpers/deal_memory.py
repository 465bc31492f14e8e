"""What a bot process of The Tree could remember of a deal when it starts a game.

Recording bots (tests/recording_bot.py, sandboxed: they write every line they receive
to stderr, kept in their logs) play; their logs are cut into processes (each marks its
lines with an id of its own) and games (start .. end). A game is matched to its record by the seat
and the hand the seat was dealt. For each game a process plays, the tiles hidden from
its seat at the deal (the other hands and the supply) are compared with every tile the
same process was told in its earlier games of the same deal: each one it was told is a
remembered tile. The rule under test: the count is 0 for every game, seat count and
schedule.

Across processes (`shared`; tests/recording_bot.py,
whose lines carry the time they arrived): a league's tables deal duplicate, so two
processes of one bot alive at once at two tables could pass a deal between them. For
each bot, over every table's log, it counts games of one deal under way at once,
processes alive at once that saw one deal, and the hidden tiles a process could have
been passed, while it played a deal, by another process of its bot that had been told
them. The rule under test: every count is 0.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from arena.games.the_tree_tiles import HAND, TILES, parse_deal, parse_placement, tile_name, tile_of
from arena.process.spec import BotSpec
from arena.records.record import GameRecord

RECORDER = Path(__file__).resolve().parent.parent / "recording_bot.py"
PREFIX = "RECORDED "
ALL_TILES = frozenset(tile_name(t) for t in TILES)


def timed_league(folder: Path, seats: int, bots: int, games: int, concurrency: int, extra: str = "") -> Path:
    """A league file `timed.toml` in `folder`: The Tree between `bots` timed recording
    bots (its output goes to `folder/timed`), which live in a folder of their own."""
    home = folder / "recorder"
    home.mkdir(parents=True)
    shutil.copy(RECORDER, home / RECORDER.name)
    entries = "".join(f'[[bots]]\nname = "rec{k}"\ncommand = ["{sys.executable}", "{RECORDER.name}"]\n'
                      f'cwd = "{home}"\n' for k in range(bots))
    path = folder / "timed.toml"
    path.write_text(f'name = "timed"\ngame = "the-tree"\nseats = {seats}\ngames_per_pairing = {games}\n'
                    f'concurrency = {concurrency}\n{extra}\n[time]\nper_move = "5s"\nstartup = "20s"\n{entries}')
    return path


def recorder(name: str, seed: int, folder: Path) -> BotSpec:
    """A sandboxable recording bot (its lines go to its stderr log) whose script is in `folder`."""
    return BotSpec(name, [sys.executable, str(folder / RECORDER.name)], str(folder), bot_seed=seed)


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
    """One game as one process saw it (with the timed recorder: when it began and
    ended, and when each tile was first told)."""

    seat: int
    hand: frozenset[str]
    told: set[str] = field(default_factory=set)
    began: float = 0.0
    ended: float = 0.0
    told_at: dict[str, float] = field(default_factory=dict)


@dataclass
class Process:
    """One process of a recording bot: its id, the times of its first and last lines
    (0 without the timed recorder) and the games it played."""

    name: str
    first: float = 0.0
    last: float = 0.0
    games: list[Played] = field(default_factory=list)


def process_lives(log: Path) -> list[Process]:
    """A recording bot's log cut into processes (by the id each writes before its
    lines, `id@time` from the timed recorder)."""
    found: dict[str, Process] = {}
    current: dict[str, Played] = {}
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith(PREFIX):
            continue
        stamp, _, text = line[len(PREFIX):].partition(" ")
        name, _, at = stamp.partition("@")
        when = float(at) if at else 0.0
        message = json.loads(text)
        kind = message.get("type")
        process = found.setdefault(name, Process(name, first=when))
        process.last = when
        game = current.get(name)
        if kind == "start":
            current[name] = game = Played(int(message["seat"]), frozenset(), began=when)
            process.games.append(game)
        elif game is not None and kind in ("request", "end"):
            if not game.hand:
                deal = next((e["action"] for e in message.get("events", []) if e["seat"] == -1), None)
                if deal is not None:
                    game.hand = frozenset(deal[5:].split(","))
            tiles = tiles_named(message)
            game.told |= tiles
            game.ended = when
            for tile in tiles:
                game.told_at.setdefault(tile, when)
    return list(found.values())


def processes(log: Path) -> list[list[Played]]:
    """A recording bot's log cut into processes, each a list of the games it played."""
    return [process.games for process in process_lives(log)]


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


@dataclass
class Sharing:
    """The count across the processes of each bot: games of one deal (by one bot, at
    any tables) under way at once, pairs of its processes alive at once that both saw
    one deal, and the hidden tiles of a deal a process could have been passed, while
    it played that deal, by another process of its bot that had been told them."""

    processes: int = 0
    games: int = 0
    overlapping_games: int = 0
    overlapping_processes: int = 0
    tiles: int = 0

    def __str__(self) -> str:
        return (f"{self.processes} processes, {self.games} games: {self.overlapping_games} pairs of games of one "
                f"deal under way at once, {self.overlapping_processes} pairs of processes alive at once that saw one "
                f"deal, {self.tiles} tiles a process could have been passed")


def bot_of(log: Path) -> str:
    """The bot a log belongs to: `<seat index>-<name>.log` in any table's folder."""
    return log.stem.split("-", 1)[1]


def _apart(first: tuple[float, float], second: tuple[float, float]) -> bool:
    return first[1] <= second[0] or second[1] <= first[0]


Dealt = tuple[Process, Played, str]
"""A game as a process played it, with its whole deal."""


def _passable(game: Dealt, games: list[Dealt]) -> set[str]:
    """The tiles another process of the bot was told about the game's deal and could
    have passed on while both lived, before the game ended."""
    process, played, deal = game
    found = set()
    for other, theirs, their_deal in games:
        if other is process or their_deal != deal:
            continue
        for tile, when in theirs.told_at.items():
            if max(when, process.first, other.first) < min(other.last, process.last, played.ended):
                found.add(tile)
    return found


def _count_bot(lives: list[Process], deals: dict[tuple[int, frozenset[str]], str], sharing: Sharing) -> None:
    games = [(p, g, deals[(g.seat, g.hand)]) for p in lives for g in p.games if g.hand]
    sharing.processes += len(lives)
    sharing.games += len(games)
    for (_, g, deal), (_, h, other) in combinations(games, 2):
        if deal == other and not _apart((g.began, g.ended), (h.began, h.ended)):
            sharing.overlapping_games += 1
    seen = {id(p): {deal for q, _, deal in games if q is p} for p in lives}
    for p, q in combinations(lives, 2):
        if seen[id(p)] & seen[id(q)] and not _apart((p.first, p.last), (q.first, q.last)):
            sharing.overlapping_processes += 1
    for game in games:
        sharing.tiles += len(_passable(game, games) & (ALL_TILES - game[1].hand))


def shared(logs: list[Path], records: list[GameRecord]) -> Sharing:
    """The count across processes for the timed recording bots' logs of a run (every
    table's) and its records."""
    deals = deals_by_hand(records)
    by_bot: dict[str, list[Process]] = {}
    for log in logs:
        lives = process_lives(log)
        assert all(p.first > 0 for p in lives), f"{log}: not the timed recorder's log"
        by_bot.setdefault(bot_of(log), []).extend(lives)
    sharing = Sharing()
    for lives in by_bot.values():
        _count_bot(lives, deals, sharing)
    return sharing


def stored_games(database: Path) -> int:
    """Games a league's database holds now, read while the league may be writing it (0
    before it exists)."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            return int(db.execute("select count(*) from games").fetchone()[0])
    except sqlite3.Error:
        return 0
