"""What the ladder's pages read, as SQL over the ladder's database: each request opens
its own read-only connection (never the runner's, so a page can neither change nor lock
what the runner writes) and reads one snapshot.

No query reads all of a table's games. The leaderboard reads the running totals the
store writes with every game (arena.ladder.schema: games, wins and faults per version,
points per pair of versions), a few rows per bot; the rest reads a bounded list through
the schema's indexes (seats_by_bot, seats_by_version, games_by_table), or aggregates
one bot's games. Only the Elo fit costs more than a read (set by the pairs of versions
that met, not by the games), so the pages cache it (arena.ladder.web.elo_cache).

`synthetic_store` fills a ladder database with made-up bots and games, and their totals,
fast, for tests and the bench."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.ladder.ratings import PairTotal, Skill, elo_from_totals, initial_skill
from arena.ladder.store import Entrant, LadderStore, now
from arena.stats.ratings import Rating

RECENT_GAMES = 30
"""Games listed on a bot's page (the newest)."""
RECENT_FAULTS = 30
HISTORY_GAMES = 5000
"""Games of a bot's rating history read for its chart (the newest)."""

WIN_POINTS = "CASE WHEN a.rank < b.rank THEN 1.0 WHEN a.rank = b.rank THEN 0.5 ELSE 0.0 END"
"""SQL: the points seat `a` scored against seat `b` of one game (lower rank is better)."""


class QueryError(ArenaError):
    """The ladder's database cannot be read; the message names the fix."""


@contextlib.contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection holding one snapshot of the database until it closes."""
    if not path.is_file():
        raise QueryError(f"{path} does not exist; make the ladder with `arena ladder init`")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, isolation_level=None,
                             check_same_thread=False)
    except sqlite3.Error as exc:
        raise QueryError(f"cannot read {path} ({exc}); check the file and its folder") from None
    try:
        db.execute("BEGIN")
        yield db
    finally:
        db.close()


# ---- who is asking ------------------------------------------------------------------------


def entrant(db: sqlite3.Connection, entrant_id: int) -> Entrant | None:
    row = db.execute("SELECT id, name, token_hash, removed FROM entrants WHERE id = ?", (entrant_id,)).fetchone()
    return None if row is None else Entrant(int(row[0]), str(row[1]), str(row[2]), bool(row[3]))


# ---- the leaderboard ------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardBot:
    """A bot on a table's board: the version that plays (or played last) and its rating."""

    bot: int
    name: str
    owner: str
    status: str
    reason: str
    version: int
    number: int
    language: str
    skill: Skill
    rated: bool
    """False: the version has no game at this table yet (its skill is the prior)."""


def board_bots(db: sqlite3.Connection, table: str) -> list[BoardBot]:
    """Every bot with a version that plays (its chosen one, else its newest ready one):
    active bots always, the others only when that version has played at `table`."""
    rows = db.execute("""
        SELECT b.id, b.name, e.name, b.status, b.reason, v.id, v.number, v.language, r.mu, r.sigma
        FROM bots b JOIN entrants e ON e.id = b.entrant
        JOIN versions v ON v.id = COALESCE(b.chosen,
            (SELECT id FROM versions WHERE bot = b.id AND state = 'ready' ORDER BY number DESC LIMIT 1))
        LEFT JOIN ratings r ON r.tbl = ? AND r.version = v.id
        WHERE b.status = 'active' OR r.version IS NOT NULL
        ORDER BY b.id""", (table,)).fetchall()
    prior = initial_skill()
    return [BoardBot(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(r[5]), int(r[6]), str(r[7]),
                     Skill(float(r[8]), float(r[9])) if r[8] is not None else prior, r[8] is not None)
            for r in rows]


def last_game(db: sqlite3.Connection, table: str) -> int:
    """The number of the last game stored at `table` (0: none yet): games are only ever
    added, with rising numbers, so it changes with every game stored there and, unlike
    counting them, costs one step of the games_by_table index."""
    (last,) = db.execute("SELECT COALESCE(MAX(idx), 0) FROM games WHERE tbl = ?", (table,)).fetchone()
    return int(last)


@dataclass
class VersionStats:
    games: int = 0
    wins: int = 0
    """Games it ranked first in (alone or tied)."""
    faults: dict[str, int] = field(default_factory=dict)
    """Faulted games by the fault's reason."""


@dataclass(frozen=True)
class TableStats:
    """A table's totals up to its game `last`."""

    last: int
    versions: dict[int, VersionStats]


def table_stats(db: sqlite3.Connection, table: str) -> TableStats:
    """Games, wins and faults by reason of every version that played at `table`, from
    the totals the store keeps beside the ratings: a row per version and per fault
    reason, whatever the number of games."""
    versions = {int(version): VersionStats(int(games), int(wins)) for version, games, wins
                in db.execute("SELECT version, games, wins FROM ratings WHERE tbl = ?", (table,))}
    for version, reason, count in db.execute("SELECT version, reason, count FROM fault_totals WHERE tbl = ?",
                                             (table,)):
        versions.setdefault(int(version), VersionStats()).faults[str(reason)] = int(count)
    return TableStats(last_game(db, table), versions)


def table_pairs(db: sqlite3.Connection, table: str) -> dict[tuple[int, int], tuple[float, int]]:
    """(version a, version b) -> (points of a against b, games) for every pair of versions
    that met in a 2-seat game at `table` (a < b): what the Elo fit reads."""
    return {(int(a), int(b)): (float(points), int(games)) for a, b, points, games
            in db.execute("SELECT a, b, points, games FROM pair_totals WHERE tbl = ?", (table,))}


def elo_of(versions: list[int], pairs: dict[tuple[int, int], tuple[float, int]]) -> dict[int, Rating]:
    """Elo with 95% errors of `versions` from their games against one another, given as
    pair totals in either order (arena.ladder.ratings.elo_from_totals: its cost is set by
    the pairs, not the games)."""
    if not versions:
        return {}
    number = {version: k for k, version in enumerate(versions)}
    totals = [PairTotal(number[a], number[b], points, games) for (a, b), (points, games) in pairs.items()
              if a in number and b in number and a != b]
    ratings = elo_from_totals(len(versions), totals)
    return dict(zip(versions, ratings, strict=True))


@dataclass(frozen=True)
class BoardRow:
    """One line of a table's leaderboard."""

    rank: int | None
    """Its place among the active bots (None for a paused, retired or disqualified one)."""
    bot: BoardBot
    stats: VersionStats
    elo: Rating | None


def board_rows(bots: list[BoardBot], stats: TableStats, elo: dict[int, Rating]) -> list[BoardRow]:
    """The board in order: active bots by ordinal (mu - 3 sigma), then the others."""
    def order(bot: BoardBot) -> tuple[bool, float, str]:
        return bot.status != "active", -bot.skill.ordinal(), bot.name

    rows = []
    rank = 0
    for bot in sorted(bots, key=order):
        place = None
        if bot.status == "active":
            rank += 1
            place = rank
        rows.append(BoardRow(place, bot, stats.versions.get(bot.version, VersionStats()), elo.get(bot.version)))
    return rows


# ---- a bot's page ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BotInfo:
    id: int
    name: str
    owner_id: int
    owner: str
    status: str
    reason: str
    chosen: int | None
    created: str


def bot_info(db: sqlite3.Connection, name: str) -> BotInfo | None:
    row = db.execute("SELECT b.id, b.name, b.entrant, e.name, b.status, b.reason, b.chosen, b.created "
                     "FROM bots b JOIN entrants e ON e.id = b.entrant WHERE b.name = ?", (name,)).fetchone()
    return None if row is None else BotInfo(int(row[0]), str(row[1]), int(row[2]), str(row[3]), str(row[4]),
                                            str(row[5]), None if row[6] is None else int(row[6]), str(row[7]))


@dataclass(frozen=True)
class VersionRow:
    id: int
    number: int
    language: str
    state: str
    submitted: str
    has_log: bool
    playing: bool
    """The version that plays for the bot (its chosen one, else its newest ready one)."""


def version_rows(db: sqlite3.Connection, bot: BotInfo) -> list[VersionRow]:
    rows = db.execute("SELECT id, number, language, state, submitted, log != '' FROM versions WHERE bot = ? "
                      "ORDER BY number DESC", (bot.id,)).fetchall()
    ready = [int(r[0]) for r in rows if r[3] == "ready"]
    playing = bot.chosen if bot.chosen is not None else (ready[0] if ready else None)
    return [VersionRow(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5]), int(r[0]) == playing)
            for r in rows]


@dataclass(frozen=True)
class HistoryPoint:
    game: int
    number: int
    """The bot's version that played it."""
    mu: float
    sigma: float


def rating_history(db: sqlite3.Connection, bot: int, limit: int = HISTORY_GAMES) -> dict[str, list[HistoryPoint]]:
    """The bot's rating after each of its newest `limit` games, per table, oldest first."""
    rows = db.execute("""
        SELECT g.tbl, s.game, v.number, s.mu, s.sigma
        FROM seats s JOIN games g ON g.idx = s.game JOIN versions v ON v.id = s.version
        WHERE s.bot = ? ORDER BY s.game DESC LIMIT ?""", (bot, limit)).fetchall()
    history: dict[str, list[HistoryPoint]] = {}
    for table, game, number, mu, sigma in reversed(rows):
        history.setdefault(str(table), []).append(HistoryPoint(int(game), int(number), float(mu), float(sigma)))
    return history


@dataclass(frozen=True)
class Opponent:
    name: str
    number: int
    rank: int


@dataclass(frozen=True)
class RecentGame:
    game: int
    table: str
    unit: int
    number: int
    rank: int
    seats: int
    score: float | None
    fault: str | None
    termination: str
    finished: str
    others: list[Opponent]


def recent_games(db: sqlite3.Connection, bot: int, limit: int = RECENT_GAMES) -> list[RecentGame]:
    rows = db.execute("""
        SELECT s.game, g.tbl, g.unit, v.number, s.rank, s.score, s.fault, g.termination, g.finished, s.seat
        FROM seats s JOIN games g ON g.idx = s.game JOIN versions v ON v.id = s.version
        WHERE s.bot = ? ORDER BY s.game DESC LIMIT ?""", (bot, limit)).fetchall()
    if not rows:
        return []
    marks = ",".join("?" * len(rows))
    seated: dict[int, list[tuple[int, Opponent]]] = {}
    for game, seat, name, number, rank in db.execute(f"""
            SELECT s.game, s.seat, b.name, v.number, s.rank FROM seats s
            JOIN versions v ON v.id = s.version JOIN bots b ON b.id = s.bot
            WHERE s.game IN ({marks}) ORDER BY s.game, s.seat""", [r[0] for r in rows]):
        seated.setdefault(int(game), []).append((int(seat), Opponent(str(name), int(number), int(rank))))
    games = []
    for game, table, unit, number, rank, score, fault, termination, finished, seat in rows:
        everyone = seated.get(int(game), [])
        games.append(RecentGame(int(game), str(table), int(unit), int(number), int(rank), len(everyone),
                                None if score is None else float(score), None if fault is None else str(fault),
                                str(termination), str(finished), [o for s, o in everyone if s != seat]))
    return games


@dataclass(frozen=True)
class HeadToHead:
    opponent: str
    games: int
    points: float
    """The bot's points against this opponent (a win 1, a tie 0.5), counted per pair of
    seats in games of more than two."""


def head_to_head(db: sqlite3.Connection, bot: int) -> list[HeadToHead]:
    rows = db.execute(f"""
        SELECT o.name, COUNT(*), SUM({WIN_POINTS})
        FROM seats a JOIN seats b ON b.game = a.game AND b.seat != a.seat JOIN bots o ON o.id = b.bot
        WHERE a.bot = ? AND b.bot != a.bot GROUP BY b.bot ORDER BY COUNT(*) DESC, o.name""", (bot,)).fetchall()
    return [HeadToHead(str(name), int(games), float(points)) for name, games, points in rows]


@dataclass(frozen=True)
class FaultRow:
    game: int
    number: int
    reason: str
    detail: str


def fault_counts(db: sqlite3.Connection, bot: int) -> dict[str, int]:
    """The bot's faulted games by reason, over its versions and tables (from the totals)."""
    rows = db.execute("SELECT f.reason, SUM(f.count) FROM fault_totals f JOIN versions v ON v.id = f.version "
                      "WHERE v.bot = ? GROUP BY f.reason ORDER BY SUM(f.count) DESC, f.reason", (bot,)).fetchall()
    return {str(reason): int(count) for reason, count in rows}


def recent_faults(db: sqlite3.Connection, bot: int, limit: int = RECENT_FAULTS) -> list[FaultRow]:
    rows = db.execute("""
        SELECT s.game, v.number, s.fault, COALESCE(s.fault_detail, '') FROM seats s
        JOIN versions v ON v.id = s.version
        WHERE s.bot = ? AND s.fault IS NOT NULL ORDER BY s.game DESC LIMIT ?""", (bot, limit)).fetchall()
    return [FaultRow(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def played_unit(db: sqlite3.Connection, bot: int, unit: int) -> bool:
    """Whether the bot played a stored game of unit `unit`."""
    row = db.execute("SELECT 1 FROM seats s JOIN games g ON g.idx = s.game WHERE s.bot = ? AND g.unit = ? LIMIT 1",
                     (bot, unit)).fetchone()
    return row is not None


# ---- versions and games ---------------------------------------------------------------------


@dataclass(frozen=True)
class VersionInfo:
    id: int
    bot: str
    owner_id: int
    number: int
    language: str
    state: str
    log: str
    submitted: str


def version_info(db: sqlite3.Connection, version: int) -> VersionInfo | None:
    row = db.execute("SELECT v.id, b.name, b.entrant, v.number, v.language, v.state, v.log, v.submitted "
                     "FROM versions v JOIN bots b ON b.id = v.bot WHERE v.id = ?", (version,)).fetchone()
    return None if row is None else VersionInfo(int(row[0]), str(row[1]), int(row[2]), int(row[3]), str(row[4]),
                                                str(row[5]), str(row[6]), str(row[7]))


def record_text(db: sqlite3.Connection, game: int) -> str | None:
    row = db.execute("SELECT record FROM games WHERE idx = ?", (game,)).fetchone()
    return None if row is None else str(row[0])


def version_games(db: sqlite3.Connection, version: int, limit: int) -> list[tuple[int, frozenset[int]]]:
    """The version's newest `limit` games, newest first, each with the seats it held
    (through the seats_by_version index)."""
    rows = db.execute("SELECT game, group_concat(seat) FROM seats WHERE version = ? GROUP BY game "
                      "ORDER BY game DESC LIMIT ?", (version, limit)).fetchall()
    return [(int(game), frozenset(int(s) for s in str(seats).split(","))) for game, seats in rows]


def record_texts(db: sqlite3.Connection, games: list[int]) -> dict[int, str]:
    """The records of `games` (an empty text: no record kept)."""
    if not games:
        return {}
    marks = ",".join("?" * len(games))
    return {int(game): str(record) for game, record
            in db.execute(f"SELECT idx, record FROM games WHERE idx IN ({marks})", games)}


# ---- a made-up ladder -----------------------------------------------------------------------

FAULTS = ("timeout", "illegal action", "crash")


def synthetic_store(path: Path, bots: int, games: int, seed: int, table: str = "btt-2") -> None:
    """A ladder database at `path` (made if missing) holding `bots` bots (two ready
    versions each, four bots per entrant, a few paused or retired) and `games` 2-seat
    games at `table` between random pairs, with a rating after every game, each
    version's final rating and the totals the store keeps (counted here as the games are
    made up): what the pages read, made in seconds with executemany.
    The records are empty (a replay of these games is not available)."""
    LadderStore.open(path, "synthetic").close()
    rng = random.Random(seed)
    stamp = now()
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        entrants = (bots + 3) // 4
        db.executemany("INSERT INTO entrants (id, name, token_hash, created) VALUES (?, ?, '!', ?)",
                       [(e + 1, f"entrant{e + 1:03}", stamp) for e in range(entrants)])
        statuses = ["active"] * bots
        for k in range(0, bots, 17):
            statuses[k] = "paused" if k % 2 else "retired"
        db.executemany("INSERT INTO bots (id, entrant, name, status, created) VALUES (?, ?, ?, ?, ?)",
                       [(b + 1, b // 4 + 1, f"bot{b + 1:03}", statuses[b], stamp) for b in range(bots)])
        db.executemany("INSERT INTO versions (id, bot, number, language, state, log, submitted) "
                       "VALUES (?, ?, ?, 'python', 'ready', 'built and checked', ?)",
                       [(2 * b + n, b + 1, n, stamp) for b in range(bots) for n in (1, 2)])
        strength = [rng.gauss(0, 1) for _ in range(bots)]
        skill = {2 * b + n: [25.0, 25.0 / 3] for b in range(bots) for n in (1, 2)}
        played = dict.fromkeys(skill, 0)
        wins = dict.fromkeys(skill, 0)
        faults: dict[tuple[int, str], int] = {}
        pairs: dict[tuple[int, int], list[float]] = {}
        game_rows, seat_rows = [], []
        for idx in range(1, games + 1):
            first, second = rng.sample(range(bots), 2)
            number = 1 if idx < games // 3 else 2
            versions = (2 * first + number, 2 * second + number)
            edge = strength[first] - strength[second]
            draw = rng.random() < 0.1
            won = rng.random() < 1 / (1 + 10 ** (-edge / 2))
            ranks = (1, 1) if draw else (1, 2) if won else (2, 1)
            game_rows.append((idx, table, (idx + 1) // 2, idx, "normal", 20, "", stamp))
            for seat, (version, rank) in enumerate(zip(versions, ranks, strict=True)):
                mu, sigma = skill[version]
                mu += (0.5 if rank == 1 else -0.5) * sigma / 4 + rng.gauss(0, 0.05)
                sigma = max(0.8, sigma * 0.985)
                skill[version] = [mu, sigma]
                played[version] += 1
                wins[version] += rank == 1
                fault = rng.choice(FAULTS) if rng.random() < 0.02 else None
                if fault is not None:
                    faults[version, fault] = faults.get((version, fault), 0) + 1
                seat_rows.append((idx, seat, version, (first, second)[seat] + 1, rank, None, fault,
                                  None if fault is None else f"made up: {fault}", mu, sigma))
            (a, a_rank), (b, b_rank) = sorted(zip(versions, ranks, strict=True))
            pair = pairs.setdefault((a, b), [0.0, 0])
            pair[0] += 1.0 if a_rank < b_rank else 0.5 if a_rank == b_rank else 0.0
            pair[1] += 1
        db.executemany("INSERT INTO games (idx, tbl, unit, seed, termination, plies, record, finished) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
        db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
        db.executemany("INSERT INTO ratings (tbl, version, mu, sigma, games, wins) VALUES (?, ?, ?, ?, ?, ?)",
                       [(table, version, mu, sigma, played[version], wins[version])
                        for version, (mu, sigma) in skill.items() if played[version]])
        db.executemany("INSERT INTO fault_totals (tbl, version, reason, count) VALUES (?, ?, ?, ?)",
                       [(table, version, reason, count) for (version, reason), count in faults.items()])
        db.executemany("INSERT INTO pair_totals (tbl, a, b, points, games) VALUES (?, ?, ?, ?, ?)",
                       [(table, a, b, points, int(count)) for (a, b), (points, count) in pairs.items()])
        db.execute("UPDATE meta SET value = ? WHERE key = 'units'", (str((games + 1) // 2),))
        db.execute("COMMIT")
    finally:
        db.close()
