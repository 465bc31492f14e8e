"""What a bot reports in its actions' `info`, averaged per ply over its recent games:
the numbers behind the info charts of a bot's page (cgarena's charts).

A stored record keeps each of the bot's plies' info as the move's comment
(`score=0.25 depth=4 nodes=12000 pv=a,b text`, arena.records.record.info_text), so
every `NAME=NUMBER` word of a comment is a field, whatever its name: score, depth,
nodes, or a number the bot wrote in its info's comment. Whose ply it was is told by
the turn numbers in a game of two seats without chance, and found by replaying the
rules otherwise (up to tens of milliseconds a game), so what each game's seats
reported is read once and kept (a stored game never changes).

The work is bounded: the playing version's newest INFO_GAMES games, their first
MAX_PLIES plies, MAX_NAMES names a seat, MAX_FIELDS fields charted, GAMES_KEPT games
kept."""

from __future__ import annotations

import math
import sqlite3
import threading
from array import array
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.ladder.web import queries
from arena.records.reader import read_text
from arena.records.record import GameRecord, Ply
from arena.records.replay import initial_state

INFO_GAMES = 30
"""The playing version's newest games the means are taken over."""
MAX_PLIES = 400
"""Plies of a game read at most (a longer game's later plies are left out)."""
MAX_FIELDS = 8
"""Fields charted at most (those reported at the most plies)."""
MAX_NAMES = 32
"""Names of fields followed at most, per seat of a game and per chart (the first seen)."""
MAX_NAME_CHARS = 40
"""A longer `NAME=` is no field name (it is text)."""
MIN_PLIES = 2
"""A field is charted when it was reported at this many ply numbers at least."""
GAMES_KEPT = 1024
"""Games whose reported numbers are kept (those asked for last)."""


@dataclass(frozen=True)
class PlyMean:
    """A field's mean at one ply number, over the games in which the bot moved there
    and reported it."""

    ply: int
    mean: float
    games: int


@dataclass(frozen=True)
class FieldMeans:
    name: str
    points: tuple[PlyMean, ...]
    """By ply number, rising."""


@dataclass(frozen=True)
class InfoMeans:
    games: int
    """The games read."""
    fields: tuple[FieldMeans, ...]

    def field(self, name: str) -> FieldMeans | None:
        return next((f for f in self.fields if f.name == name), None)


NO_MEANS = InfoMeans(0, ())

SeatNumbers = dict[int, dict[str, tuple["array[int]", "array[float]"]]]
"""What each seat of one game reported: seat -> field -> (ply numbers, values), compact."""


def _number(text: str) -> float | None:
    """A finite number, or None (float() also reads 'nan', 'inf' and '1_0')."""
    if not text or len(text) > 40:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def reported_numbers(ply: Ply) -> dict[str, float]:
    """The numbers a ply's info holds, by name: its Info's score, depth and nodes, and
    every `NAME=NUMBER` word of the info's comment and of the ply's (a record read back
    gives the bot's info as an Info, its own words in `info.comment`)."""
    found: dict[str, float] = {}
    if ply.info is not None:
        for name in ("score", "depth", "nodes"):
            value = getattr(ply.info, name)
            if value is not None and math.isfinite(float(value)):
                found[name] = float(value)
    texts = (ply.info.comment if ply.info is not None else None, ply.comment)
    for word in " ".join(text for text in texts if text).split():
        name, equals, text = word.partition("=")
        if equals and name and len(name) <= MAX_NAME_CHARS and (value := _number(text)) is not None:
            found.setdefault(name, value)
    return found


def replayed_actors(record: GameRecord, max_plies: int = MAX_PLIES) -> list[int]:
    """Who decided each of the first `max_plies` plies (a seat, or CHANCE), by replaying
    the rules; a record they cannot follow is told up to where they stop."""
    try:
        state = initial_state(record)
    except ArenaError:
        return []
    actors = []
    for ply in record.plies[:max_plies]:
        actor = state.current()
        try:
            state.apply(ply.action)
        except Exception:  # noqa: BLE001 - a record the rules reject, or a rules bug: the chart goes on
            break
        actors.append(actor)
    return actors


def ply_actors(record: GameRecord, max_plies: int = MAX_PLIES) -> list[int]:
    """Who decided each of the first `max_plies` plies. In a game of two seats without
    chance, turns alternate between the seats (a turn is a maximal run of one actor's
    plies), so the turn numbers and who starts tell it at no cost; otherwise the rules
    are replayed, which checks every action (up to tens of milliseconds a game)."""
    plies = record.plies[:max_plies]
    try:
        seats = record.seats
    except (KeyError, ValueError):
        return []
    if seats != 2 or any(ply.chance for ply in plies):
        return replayed_actors(record, max_plies)
    try:
        first = initial_state(record).current()
    except ArenaError:
        return []
    if first not in (0, 1):
        return replayed_actors(record, max_plies)
    return [first if ply.turn % 2 else 1 - first for ply in plies]


def seat_numbers(record: GameRecord, max_plies: int = MAX_PLIES) -> SeatNumbers:
    """What each seat reported at its plies among the first `max_plies` (a record read
    from text does not say who acted: `ply_actors` tells)."""
    found: SeatNumbers = {}
    for number, (ply, actor) in enumerate(zip(record.plies, ply_actors(record, max_plies)), 1):
        reported = reported_numbers(ply) if not ply.chance else {}
        fields = found.setdefault(actor, {}) if reported else {}
        for name, value in reported.items():
            series = fields.get(name)
            if series is None:
                if len(fields) >= MAX_NAMES:
                    continue
                series = fields[name] = (array("i"), array("d"))
            series[0].append(number)
            series[1].append(value)
    return found


def info_means(games: Iterable[tuple[Collection[int], SeatNumbers]], max_fields: int = MAX_FIELDS) -> InfoMeans:
    """Each field's mean per ply number over `games` (the seats the bot held, what the
    game's seats reported): at most `max_fields` fields, those reported at the most
    plies, in the order they were first seen, each at MIN_PLIES ply numbers at least."""
    sums: dict[str, dict[int, list[float]]] = {}
    """name -> ply -> [sum, games]"""
    count = 0
    for seats, numbers in games:
        count += 1
        for seat in seats:
            for name, (plies, values) in numbers.get(seat, {}).items():
                per_ply = sums.get(name)
                if per_ply is None:
                    if len(sums) >= MAX_NAMES:
                        continue
                    per_ply = sums[name] = {}
                for ply, value in zip(plies, values, strict=True):
                    total = per_ply.setdefault(ply, [0.0, 0.0])
                    total[0] += value
                    total[1] += 1
    charted = [name for name, per_ply in sums.items() if len(per_ply) >= MIN_PLIES]
    most = set(sorted(charted, key=lambda name: -sum(t[1] for t in sums[name].values()))[:max_fields])
    fields = tuple(FieldMeans(name, tuple(PlyMean(ply, total[0] / total[1], int(total[1]))
                                          for ply, total in sorted(sums[name].items())))
                   for name in charted if name in most)
    return InfoMeans(count, fields)


def _read(text: str) -> SeatNumbers | None:
    """What a stored record's seats reported (None: no record, or none that reads)."""
    if not text:
        return None
    try:
        return seat_numbers(read_text(text)[0])
    except (ArenaError, IndexError):
        return None


class InfoMeansCache:
    """Reads a version's means, keeping what each game's seats reported: a page that
    comes after a new game replays that game alone. Called in worker threads."""

    def __init__(self) -> None:
        self._games: dict[int, SeatNumbers | None] = {}
        """By game, the games asked for last at the end (None: the game has no record)."""
        self._lock = threading.Lock()

    def means(self, db: sqlite3.Connection, version: int, limit: int = INFO_GAMES) -> InfoMeans:
        """The means of `version` over its newest `limit` games (those with a record), read from `db`."""
        games = queries.version_games(db, version, limit)
        with self._lock:
            kept = {game: self._games.pop(game) for game, _ in games if game in self._games}
            self._games.update(kept)
        for game, text in queries.record_texts(db, [game for game, _ in games if game not in kept]).items():
            kept[game] = numbers = _read(text)
            with self._lock:
                self._games[game] = numbers
                while len(self._games) > GAMES_KEPT:
                    self._games.pop(next(iter(self._games)))
        return info_means((seats, numbers) for game, seats in games if (numbers := kept.get(game)) is not None)
