"""The ladder file (DIR/ladder.toml): its schema as written, and the checked Ladder the
runner and the pages use. Messages name the key, the problem and the fix, as the
league file's do; the [time] and [limits] tables mean what they mean there."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena import games
from arena.errors import ArenaError
from arena.files import read_toml_file
from arena.games import Game, GameError
from arena.league.config import default_concurrency, option_text, resolve_limits, resolve_time
from arena.league.file import LimitsSection, Scalar, TimeSection
from arena.process.build import BuildLimits
from arena.process.spec import Limits
from arena.referee.player import Timing
from arena.timecontrol import TimeControl

LADDER_FILE = "ladder.toml"
DATABASE = "ladder.sqlite"
MAX_FILE_BYTES = 1 << 20


class LadderFileError(ArenaError, ValueError):
    """A ladder file that cannot be used; the message names the key and the fix."""


class TableEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    game: str
    seats: int | None = None
    options: dict[str, Scalar] = {}
    name: str | None = None
    time: TimeSection | None = None


class LanguageEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    run: str
    build: str | None = None
    files: str = ""


class MatchmakingSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    min_games: int = 20
    max_playing: int = 1
    pause_after_faults: int = 5


class SubmissionSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    max_mb: float = 5.0
    max_entries: int = 1000
    max_unpacked_mb: float = 50.0
    per_hour: int = 6
    keep_versions: int = 20


class BuildSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    seconds: float = 120.0
    memory_mb: int = 2048


class LogsSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    public: bool = False
    keep_games: int = 50


class LadderFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    tables: list[TableEntry]
    languages: dict[str, LanguageEntry]
    concurrency: int | None = None
    seed: int = 1
    cluster: str | None = None
    time: TimeSection = TimeSection(per_move="1s")
    limits: LimitsSection = LimitsSection()
    matchmaking: MatchmakingSection = MatchmakingSection()
    submissions: SubmissionSection = SubmissionSection()
    build: BuildSection = BuildSection()
    logs: LogsSection = LogsSection()


@dataclass(frozen=True)
class LadderTable:
    """One table of the ladder: a game at a seat count with its options, rated apart."""

    key: str
    """Its name in addresses and the database ('btt-2')."""
    game: Game
    seats: int
    options: dict[str, str]
    time_control: TimeControl
    timing: Timing

    @property
    def label(self) -> str:
        variant = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game.name}, {self.seats} seats" + (f" ({variant})" if variant else "")


@dataclass(frozen=True)
class Language:
    name: str
    run: list[str]
    build: str | None
    files: str
    """What the entrant's upload must hold, for the submit form's hint ('bot.py')."""


@dataclass(frozen=True)
class Ladder:
    """A checked ladder, ready to run."""

    name: str
    folder: Path
    tables: tuple[LadderTable, ...]
    languages: dict[str, Language]
    concurrency: int
    seed: int
    cluster: str | None
    limits: Limits
    min_games: int
    max_playing: int
    pause_after_faults: int
    max_upload_bytes: int
    max_entries: int
    max_unpacked_bytes: int
    submissions_per_hour: int
    keep_versions: int
    build_limits: BuildLimits
    public_logs: bool
    keep_game_logs: int

    @property
    def database(self) -> Path:
        return self.folder / DATABASE

    @property
    def bots_folder(self) -> Path:
        return self.folder / "bots"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    def table(self, key: str) -> LadderTable | None:
        return next((t for t in self.tables if t.key == key), None)


def load_ladder(folder: Path) -> Ladder:
    """Read and check DIR/ladder.toml; LadderFileError names the problem and the fix."""
    path = folder / LADDER_FILE
    if not path.is_file():
        raise LadderFileError(f"{folder}: no {LADDER_FILE} here; make a ladder with `arena ladder init {folder} "
                              "--game btt`, or give the folder that holds one")
    raw = read_toml_file(path, LadderFile, "ladder file", LADDER_FILE, MAX_FILE_BYTES, LadderFileError, _explain)
    try:
        return resolve_ladder(raw, folder.resolve())
    except LadderFileError as exc:
        raise LadderFileError(f"{path}: {exc}") from None


def _explain(message: str) -> str:
    """msgspec's 'Expected `int`, got `str` - at `$.concurrency`' as 'concurrency: expected
    `int`, got `str`', with where every key is told."""
    text, _, where = message.partition(" - at `$")
    key = where.rstrip("`").lstrip(".")
    return f"{key + ': ' if key else ''}{text[0].lower() + text[1:]} (see docs/ladder.md for every key)"


def _range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise LadderFileError(f"{key}: {value if abs(value) < 10**12 else 'a huge number'} is out of range; "
                              f"give {low:g} to {high:g}")


_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def _table(index: int, entry: TableEntry, time: TimeSection) -> LadderTable:
    where = f"tables[{index}]"
    try:
        game = games.get(entry.game)
    except GameError as exc:
        raise LadderFileError(f"{where}.game: {exc}") from None
    seats = entry.seats if entry.seats is not None else max(2, game.min_seats)
    try:
        options = game.resolve_options({k: option_text(v) for k, v in entry.options.items()})
        game.check_seats(seats, options)
    except GameError as exc:
        raise LadderFileError(f"{where}: {exc}") from None
    key = entry.name if entry.name is not None else f"{game.id}-{seats}"
    if not _KEY.fullmatch(key):
        raise LadderFileError(f"{where}.name: {key[:50]!r} is not a table name; use 1 to 40 lower-case letters, "
                              "digits, '-' or '_' (it appears in addresses)")
    try:
        control, timing = resolve_time(entry.time or time)
    except ArenaError as exc:
        raise LadderFileError(f"{where}.{exc}") from None
    return LadderTable(key, game, seats, options, control, timing)


def resolve_ladder(raw: LadderFile, folder: Path) -> Ladder:
    """Check a parsed ladder file (a table's own [time] wins over the ladder's)."""
    if not raw.name.strip() or len(raw.name) > 100 or "\x00" in raw.name:
        raise LadderFileError("name: give the ladder a name of 1 to 100 characters")
    if not raw.tables:
        raise LadderFileError('tables: none; add one, e.g. [[tables]] game = "btt"')
    tables = tuple(_table(i, entry, raw.time) for i, entry in enumerate(raw.tables))
    keys = [t.key for t in tables]
    for i, key in enumerate(keys):
        if key in keys[:i]:
            raise LadderFileError(f"tables[{i}]: a second table named {key!r}; give each a `name` of its own")
    if not raw.languages:
        raise LadderFileError('languages: none; add one, e.g. [languages.python] run = "python3 bot.py"')
    languages = {}
    for name, entry in raw.languages.items():
        if not _KEY.fullmatch(name):
            raise LadderFileError(f"languages.{name[:40]}: use lower-case letters, digits, '-' or '_' in its name")
        run = entry.run.split()
        if not run:
            raise LadderFileError(f"languages.{name}.run: empty; give the command that starts a bot, "
                                  'e.g. "python3 bot.py"')
        languages[name] = Language(name, run, entry.build or None, entry.files)
    concurrency = raw.concurrency if raw.concurrency is not None else default_concurrency()
    _range("concurrency", concurrency, 1, 256)
    mm, sub, build, logs = raw.matchmaking, raw.submissions, raw.build, raw.logs
    _range("matchmaking.min_games", mm.min_games, 0, 100_000)
    _range("matchmaking.max_playing", mm.max_playing, 1, 64)
    _range("matchmaking.pause_after_faults", mm.pause_after_faults, 1, 10_000)
    _range("submissions.max_mb", sub.max_mb, 0.01, 1024)
    _range("submissions.max_entries", sub.max_entries, 1, 100_000)
    _range("submissions.max_unpacked_mb", sub.max_unpacked_mb, 0.01, 10_240)
    _range("submissions.per_hour", sub.per_hour, 1, 10_000)
    _range("submissions.keep_versions", sub.keep_versions, 1, 10_000)
    _range("build.seconds", build.seconds, 1, 3600)
    _range("build.memory_mb", build.memory_mb, 64, 65_536)
    _range("logs.keep_games", logs.keep_games, 0, 100_000)
    try:
        limits = resolve_limits("limits", raw.limits, Limits())
    except ArenaError as exc:
        raise LadderFileError(str(exc)) from None
    return Ladder(
        name=raw.name, folder=folder, tables=tables, languages=languages, concurrency=concurrency, seed=raw.seed,
        cluster=raw.cluster, limits=limits, min_games=mm.min_games, max_playing=mm.max_playing,
        pause_after_faults=mm.pause_after_faults, max_upload_bytes=int(sub.max_mb * (1 << 20)),
        max_entries=sub.max_entries, max_unpacked_bytes=int(sub.max_unpacked_mb * (1 << 20)),
        submissions_per_hour=sub.per_hour, keep_versions=sub.keep_versions,
        build_limits=BuildLimits(seconds=build.seconds, memory_mb=build.memory_mb), public_logs=logs.public,
        keep_game_logs=logs.keep_games)


def ladder_file_text(name: str, game_ids: list[str]) -> str:
    """A documented ladder file for `arena ladder init`: every key with its default."""
    tables = "\n".join(f'[[tables]]\ngame = "{gid}"            # {games.get(gid).name}\n'
                       f'seats = {max(2, games.get(gid).min_seats)}\n'
                       '# options = { }          # the game\'s variant options (`arena rules GAME`)\n'
                       '# name = "..."           # the table\'s name in addresses (default GAME-SEATS)\n'
                       for gid in game_ids)
    return f'''# A standing ladder (docs/ladder.md). `arena ladder run DIR` reads this file when it
# starts: change it, then stop and start the ladder again. Nothing stored is lost.
name = "{name}"
# concurrency = 2          # tables played at once (default: this machine's cores)
seed = {_fresh_seed()}             # with the ladder's secret, fixes every deal
# cluster = "local:2"      # a Dask cluster plays the games (docs/cluster.md)

# One table per game and seat count; each has its own ratings.
{tables}
[time]                      # every table's time control unless a table has its own [tables.time]
per_move = "1s"
basis = "wall"              # "wall" or "cpu"
startup = "10s"

[limits]                    # what every bot runs under (docs/leagues.md, Limits)
memory_mb = 512
max_processes = 64

[matchmaking]
min_games = 20              # a new version plays first until it has this many games
max_playing = 1             # units of one version under way at once
pause_after_faults = 5      # faulted games in a row before a bot is paused (its owner told why)

[submissions]
max_mb = 5                  # the upload itself
max_entries = 1000          # files in an archive
max_unpacked_mb = 50
per_hour = 6                # versions an entrant may submit per hour
keep_versions = 20          # versions kept per bot (the oldest not playing go first)

[build]                     # the language's build command runs sandboxed, without network
seconds = 120
memory_mb = 2048

[logs]
public = false              # true: everyone reads every bot's stderr and build logs
keep_games = 50             # stderr logs kept per bot (its newest games); older ones are removed

# How each language is built and started, in the folder of the entrant's upload.
[languages.python]
run = "python3 bot.py"
files = "bot.py"

[languages.c]
build = "cc -O2 -std=gnu11 -o bot *.c -lm"
run = "./bot"
files = "*.c"

[languages.javascript]
run = "node bot.js"
files = "bot.js"
'''


def _fresh_seed() -> int:
    import secrets

    return secrets.randbelow(1 << 31)
