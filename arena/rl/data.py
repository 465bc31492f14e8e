"""From what the arena writes to what RL code reads (docs/rl.md):

- `position_from_messages(start, request)`: a bot's `start` and `request` messages, as
  the bot receives them, to a bridge Position for its seat (to search, or to feed a
  policy the env's exact observation and mask);
- `records_to_arrays(source)`: game records (a PGN-like file, an open file, a league's
  folder or database) replayed through the bridge into numpy arrays: every decision's
  observation, action id, seat, and the seat's final return.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import numpy as np
import numpy.typing as npt

from arena import records
from arena.games import CHANCE, TERMINAL
from arena.league.store import LeagueStore
from arena.records import GameRecord
from arena.rl.bridge import Bridge, Position
from arena.rl.spec import RLError

LEAGUE_DATABASE = "league.sqlite"
"""A league folder's database (docs/leagues.md)."""
SQLITE_HEADER = b"SQLite format 3\x00"


# ---- a bot's messages to a position -------------------------------------------------------


class MessageTracker:
    """One bot's current game, followed from its messages: a perfect-information game
    is replayed from the events (each request carries only those since the bot's last
    message, so the tracker keeps what came before); The Tree is rebuilt from the
    seat's observation at every request, the tiles it cannot see dealt at random."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self._start: dict[str, Any] | None = None
        self._bridge: Bridge | None = None
        self._position: Position | None = None
        self._applied = 0
        self._ply = 0

    def position(self, start: Mapping[str, Any], request: Mapping[str, Any]) -> Position:
        """The position `request` asks the bot's seat to decide in: a copy the caller
        may change. RLError when the messages do not fit together."""
        self._follow(start, request)
        bridge, seat = self._bridge, int(start["seat"])
        assert bridge is not None
        if bridge.codec.hidden:
            observation = request.get("observation")
            if observation is None:
                raise RLError(f"{bridge.game.id} hides tiles: a position is rebuilt from the request's observation, "
                              "which this request lacks (do not ask for `observation: false` in `ready`)")
            position = bridge.wrap(bridge.codec.determinize(observation, self.rng))
        else:
            assert self._position is not None
            for event in request.get("events") or []:
                if int(event["ply"]) > self._applied:
                    self._apply(self._position, str(event["action"]), int(event["ply"]))
                    self._applied = int(event["ply"])
            position = self._position.clone()
        if position.current() != seat:
            who = {CHANCE: "chance", TERMINAL: "nobody (the game is over)"}.get(position.current(),
                                                                            f"seat {position.current()}")
            raise RLError(f"after the events so far {who} is to move, not the bot's seat {seat}: give every "
                          "request of the game in order (each carries only the events since the last one)")
        return position

    def _follow(self, start: Mapping[str, Any], request: Mapping[str, Any]) -> None:
        """Start afresh for a new game: another start message, or plies going back."""
        ply = int(request.get("ply") or 0)
        if self._start != dict(start) or ply <= self._ply:
            options = {str(k): str(v) for k, v in (start.get("options") or {}).items()}
            self._start = dict(start)
            self._bridge = Bridge(str(start["game"]), int(start["seats"]), options)
            self._position = self._bridge.new_position()
            self._applied = 0
        self._ply = ply

    @staticmethod
    def _apply(position: Position, action: str, ply: int) -> None:
        try:
            position.apply_action(action)
        except (RLError, ValueError) as exc:
            raise RLError(f"the event of ply {ply}, {action!r}, does not fit the game so far ({exc}): give every "
                          "request of the game in order, from its first") from None


_TRACKER = MessageTracker()


def position_from_messages(start: Mapping[str, Any], request: Mapping[str, Any],
                           tracker: MessageTracker | None = None) -> Position:
    """The bridge Position a bot's `request` asks its seat (start's `seat`) to decide
    in, from the game's `start` message and the request, as the bot receives them.

    A perfect-information game is followed from the requests' events: call it for
    every request of the game, in order (a module-wide MessageTracker remembers the
    events of earlier requests; pass one of your own to follow several games at
    once). The Tree is rebuilt from the request's observation alone, the tiles the
    seat cannot see (the others' hands, the supply's order) drawn at random by the
    tracker's generator: a position the seat cannot tell from the real one, not the
    real one, and without a history from the start (it does not pickle)."""
    return (tracker or _TRACKER).position(start, request)


# ---- records to arrays --------------------------------------------------------------------

Source = str | os.PathLike[str] | BinaryIO | TextIO | Iterable[GameRecord]


@dataclass(frozen=True)
class Decisions:
    """Every decision replayed from the records, one row each (D rows)."""

    observations: npt.NDArray[np.float32]
    """(D, size): the deciding seat's observation vector, as the environments give it."""
    actions: npt.NDArray[np.int64]
    """(D,): the id chosen (a longer action's ids are a row each)."""
    seats: npt.NDArray[np.int64]
    """(D,): the seat that chose."""
    returns: npt.NDArray[np.float32]
    """(D,): that seat's rank-based utility at the end of its game (docs/rl.md)."""
    games: npt.NDArray[np.int64]
    """(D,): the game's index among the records read (0, 1, ...)."""
    plies: npt.NDArray[np.int64]
    """(D,): the 1-based number of the record's ply the id belongs to."""
    dones: npt.NDArray[np.bool_]
    """(D,): whether the row is its game's last (among the rows kept)."""
    masks: npt.NDArray[np.int8] | None = None
    """(D, N): the legal ids at each decision, when asked for (`masks=True`)."""

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def as_dict(self) -> dict[str, np.ndarray]:
        """The arrays by name (for `np.savez(path, **decisions.as_dict())`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: value for name, value in out.items() if value is not None}


def records_to_arrays(source: Source, game: str | None = None, seat: int | None = None, *,
                      masks: bool = False, max_games: int | None = None) -> Decisions:
    """Replay the records of `source` through the bridge: a record file (path), a file
    open in text or binary mode, a league's output folder or its database
    (`league.sqlite`, read-only), or GameRecord objects. Keeps the games of `game`
    (default: the first record's game), which must share one seat count and option
    set (one numbering); `seat` keeps that seat's decisions only; `masks` adds the
    legal ids of each decision (N bytes a row); `max_games` stops after that many.
    A ply the referee played for a seat removed after a fault (`forced`) is replayed
    but gives no row: no one chose it.

    Memory: a row holds the observation vector (302 floats in btt, about 20,000 in
    Treeblox and Blox): read a large league in parts with `max_games` or a filtered
    file."""
    rows: dict[str, list[Any]] = {name: [] for name in ("observations", "actions", "seats", "returns", "games",
                                                         "plies", "dones", "masks")}
    setting: tuple[str, int, tuple[tuple[str, str], ...]] | None = None
    bridge: Bridge | None = None
    kept = 0
    for number, record in enumerate(_records(source), 1):
        if max_games is not None and kept >= max_games:
            break
        if game is not None and record.tags.get("Game") != game:
            continue
        key = (record.game_id, record.seats, tuple(sorted(record.options.items())))
        if setting is None:
            setting, bridge = key, Bridge(record.game_id, record.seats, record.options)
        elif key != setting:
            raise RLError(f"record {number} is {_describe(key)}, the first kept was {_describe(setting)}: one call "
                          "reads one numbering; pass game=, or split the records by seats and options")
        assert bridge is not None
        before = len(rows["actions"])
        _replay(bridge, record, number, kept, seat, masks, rows)
        if len(rows["actions"]) > before:
            rows["dones"][-1] = True
        kept += 1
    return _arrays(rows, bridge, masks)


def _records(source: Source) -> Iterator[GameRecord]:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            database = path / LEAGUE_DATABASE
            if not database.is_file():
                raise RLError(f"{path} is a folder without {LEAGUE_DATABASE}: give a league's output folder, its "
                              "database, or a record file")
            path = database
        if _is_sqlite(path):
            yield from _league_records(path)
        else:
            yield from records.read(path)
    elif hasattr(source, "read"):
        yield from records.read(source)  # type: ignore[arg-type]
    else:
        for item in source:
            if not isinstance(item, GameRecord):
                raise RLError(f"records_to_arrays reads a path, an open file or GameRecords, not {type(item).__name__}")
            yield item


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _league_records(path: Path) -> Iterator[GameRecord]:
    """A league's (or a resumable match's) finished games, in the order they finished;
    the database is opened read-only, so a league running beside is not disturbed."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        texts = LeagueStore(db, path).record_texts()
    finally:
        db.close()
    for text in texts:
        yield from records.read_text(text)


def _replay(bridge: Bridge, record: GameRecord, number: int, index: int, seat: int | None, masks: bool,
            rows: dict[str, list[Any]]) -> None:
    """Append the rows of one record's decisions (of `seat`, or every seat's)."""
    position = bridge.new_position()
    start = len(rows["actions"])
    for ply_number, ply in enumerate(record.plies, 1):
        try:
            if ply.chance:
                position.apply_action(ply.action)
                continue
            actor = position.current()
            for index_ in bridge.codec.path(ply.action):
                if (seat is None or seat == actor) and not ply.forced:
                    rows["observations"].append(position.tensor(actor))
                    rows["actions"].append(index_)
                    rows["seats"].append(actor)
                    rows["games"].append(index)
                    rows["plies"].append(ply_number)
                    rows["dones"].append(False)
                    if masks:
                        rows["masks"].append(position.mask(actor))
                position.apply(index_)
        except (RLError, ValueError) as exc:
            raise RLError(f"record {number}, ply {ply_number} ({ply.action!r}): the rules do not follow it ({exc})") \
                from None
    utilities = _returns(record, position, number)
    rows["returns"].extend(utilities[s] for s in rows["seats"][start:])


def _returns(record: GameRecord, position: Position, number: int) -> list[float]:
    """Each seat's rank-based utility: from the record's Ranks (a forfeit's too), else
    from the final position."""
    ranks = record.ranks
    if ranks is None:
        if not position.is_terminal():
            raise RLError(f"record {number} has no Ranks tag and its game is not over: no returns to give")
        return position.utilities()
    n = len(ranks)
    if n == 1:
        return [1.0 if ranks[0] == 1 else -1.0]
    return [sum((r < o) - (r > o) for o in ranks) / (n - 1) for r in ranks]


def _arrays(rows: dict[str, list[Any]], bridge: Bridge | None, masks: bool) -> Decisions:
    size = bridge.codec.pieces.size if bridge is not None else 0
    actions = bridge.codec.num_actions if bridge is not None else 0
    observations = np.stack(rows["observations"]) if rows["observations"] else np.zeros((0, size), np.float32)
    mask_array = None
    if masks:
        mask_array = np.stack(rows["masks"]) if rows["masks"] else np.zeros((0, actions), np.int8)
    return Decisions(
        observations=observations.astype(np.float32, copy=False),
        actions=np.asarray(rows["actions"], np.int64),
        seats=np.asarray(rows["seats"], np.int64),
        returns=np.asarray(rows["returns"], np.float32),
        games=np.asarray(rows["games"], np.int64),
        plies=np.asarray(rows["plies"], np.int64),
        dones=np.asarray(rows["dones"], np.bool_),
        masks=mask_array,
    )


def _describe(key: tuple[str, int, tuple[tuple[str, str], ...]]) -> str:
    game, seats, options = key
    text = ",".join(f"{k}={v}" for k, v in options)
    return f"{game} at {seats} seats" + (f" with {text}" if text else "")
