"""The league file (TOML): its schema, and checks with messages that name the key, the
problem and the fix, which turn it into the resolved League the runner uses
(arena.league.model, whose names this module also offers)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Literal

import msgspec

from arena.errors import ArenaError, excerpt
from arena.files import unreadable
from arena.games import Game, GameError, get_game
from arena.league.model import Anchor, League
from arena.league.registry import Registry, RegistryError, find_registry
from arena.referee.botnames import BotNameError, resolve_bot
from arena.referee.openings import Opening, OpeningError, load_openings
from arena.referee.player import Timing
from arena.referee.seeds import MAX_SEED
from arena.referee.spec import BotSpec, LimitError, Limits, with_limits
from arena.referee.timecontrol import TimeControl, TimeControlError, own_time_control, parse_seconds

Scalar = str | int | float | bool

MAX_NAME_CHARS = 64
"""Longest bot name: names label records, tables and log files."""


class LeagueFileError(ArenaError, ValueError):
    """A league file that cannot be used; the message names the key and the fix."""


# ---- the file's schema (what TOML may contain) ----------------------------------------


class BotEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    command: str | list[str]
    cwd: str | None = None
    env: dict[str, str] = {}
    memory_mb: int | None = None
    max_processes: int | None = None
    cpus: float | None = None
    scratch_mb: int | None = None
    time_per_move: str | float | None = None
    clock: str | None = None
    ro_paths: list[str] = []


class TimeSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    per_move: str | float | None = None
    clock: str | None = None
    grace: str | float = "20ms"
    startup: str | float = "10s"


class LimitsSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    memory_mb: int | None = None
    max_processes: int | None = None
    cpus: float | None = None
    scratch_mb: int | None = None


class AnchorEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    bot: str
    elo: float = 0.0


class ClusterSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    address: str | None = None
    max_folder_mb: int = 200


class LeagueFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    game: str
    bots: list[BotEntry]
    seats: int | None = None
    options: dict[str, Scalar] = {}
    games_per_pairing: int | None = None
    schedule: Literal["round-robin", "gauntlet"] = "round-robin"
    gauntlet: str | None = None
    concurrency: int | None = None
    seed: int = 1
    output: str | None = None
    infrastructure_retries: int = 2
    time: TimeSection = TimeSection()
    limits: LimitsSection = LimitsSection()
    sandbox: bool = True
    cluster: ClusterSection = ClusterSection()
    registry: str | None = None
    log_protocol: bool = False
    openings: str | None = None
    random_opening: int = 0
    event: str | None = None
    anchor: str | AnchorEntry | None = None


SCHEDULES = ("round-robin", "gauntlet")

MAX_GAMES = 10_000_000
"""Most games a league may schedule (a typo in games_per_pairing is not a league)."""

MAX_CONCURRENCY = 1024


# ---- the resolved league (arena.league.model) ----------------------------------------------

__all__ = ["Anchor", "League", "LeagueFile", "LeagueFileError", "load_league", "resolve_league"]


def default_concurrency() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def load_league(path: Path) -> League:
    """Read and check a league file; LeagueFileError names the problem and the fix."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LeagueFileError(unreadable(path, exc, "league file", "night.toml")) from None
    if len(data) > MAX_FILE_BYTES:
        raise LeagueFileError(f"{path}: {len(data)} bytes is too large for a league file (at most {MAX_FILE_BYTES})")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LeagueFileError(f"{path}: not UTF-8 text (line {line}); save the file as UTF-8") from None
    try:
        raw = msgspec.toml.decode(data, type=LeagueFile)
    except msgspec.ValidationError as exc:
        raise LeagueFileError(f"{path}: {_explain(str(exc))}") from None
    except msgspec.DecodeError as exc:
        raise LeagueFileError(f"{path}: not valid TOML: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise LeagueFileError(f"{path}: not valid TOML: {type(exc).__name__}") from None
    try:
        return resolve_league(raw, path.parent, source=path)
    except LeagueFileError as exc:
        raise LeagueFileError(f"{path}: {exc}") from None


MAX_FILE_BYTES = 1 << 20
"""Largest league file read (a real one is a few KB)."""


TYPE_WORDS = {"int": "a whole number", "float": "a number", "str": "text in quotes", "bool": "true or false",
              "array": "a list in [ ]", "object": "a table", "null": ""}
"""msgspec's type names as a league file's author knows them."""


def _type_words(names: str) -> str:
    """'int | null' as 'a whole number'; 'str | float | null' as 'text in quotes or a number'."""
    words = [TYPE_WORDS.get(name.strip(), name.strip()) for name in names.split("|")]
    return " or ".join(w for w in words if w)


def _explain(message: str) -> str:
    """msgspec's 'Expected `int | null`, got `str` - at `$.concurrency`' as
    'concurrency: expected a whole number, got text in quotes'."""
    text, _, where = message.partition(" - at `$")
    key = where.rstrip("`").lstrip(".")
    text = text.replace("Object contains unknown field", "unknown key").replace(
        "Object missing required field", "missing required key")
    if (found := re.fullmatch(r"Expected `([^`]*)`, got `([^`]*)`", text)) is not None:
        text = f"expected {_type_words(found[1])}, got {_type_words(found[2])}"
    if key == "schedule" and text.startswith("Invalid enum value"):
        value = text.removeprefix("Invalid enum value").strip()
        return f"schedule: {value[:40]} is not a schedule; write " + " or ".join(f'"{s}"' for s in SCHEDULES)
    text = text[0].lower() + text[1:]
    hint = " (see docs/leagues.md for every key)"
    return f"{key}: {text}{hint}" if key else f"{text}{hint}"


def _check_text(key: str, value: str) -> None:
    """Names, paths and commands reach file systems and process tables: no NUL there."""
    if "\x00" in value:
        raise LeagueFileError(f"{key}: contains a NUL character; remove it")


def _check_range(key: str, value: float, low: float, high: float, why: str = "") -> None:
    if not low <= value <= high:
        raise LeagueFileError(f"{key}: {value if abs(value) < 10**12 else 'a huge number'} is out of range; "
                              f"give {low} to {high}{why}")


def resolve_league(raw: LeagueFile, base: Path, source: Path | None = None) -> League:
    """Check a parsed league file against the games, bots and time rules."""
    _check_text("name", raw.name)
    if not raw.name.strip():
        raise LeagueFileError("name: empty; give the league a name")
    _check_range("seed", raw.seed, 0, MAX_SEED)
    _check_range("infrastructure_retries", raw.infrastructure_retries, 0, 100)
    _check_range("cluster.max_folder_mb", raw.cluster.max_folder_mb, 1, 100_000, " (MB)")
    if raw.output is not None:
        _check_text("output", raw.output)
    if raw.schedule == "gauntlet" and raw.gauntlet is None:
        raise LeagueFileError('gauntlet: missing; with schedule = "gauntlet" name the bot that faces the field, '
                              'e.g. gauntlet = "candidate"')
    try:
        game = get_game(raw.game)
    except GameError as exc:
        raise LeagueFileError(f"game: {exc}") from None
    seats = raw.seats if raw.seats is not None else max(2, game.min_seats)
    try:
        options = game.resolve_options({k: _option_text(v) for k, v in raw.options.items()})
    except GameError as exc:
        raise LeagueFileError(f"options: {exc}") from None
    try:
        game.check_seats(seats, options)
    except GameError as exc:
        raise LeagueFileError(f"seats: {exc}") from None
    league_limits = _limits("limits", raw.limits, Limits(sandbox=raw.sandbox))
    registry = _registry(raw.registry, base)
    bots = [_resolve_bot_entry(i, entry, game, base, league_limits, registry) for i, entry in enumerate(raw.bots)]
    names = [b.name for b in bots]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise LeagueFileError(f"bots[{i}].name: {excerpt(name)} is used twice; give every bot its own name")
    if len(bots) < seats and raw.schedule == "round-robin":
        raise LeagueFileError(f"bots: a {seats}-seat league needs at least {seats} bots, the file has {len(bots)}")
    gauntlet = 0
    if raw.gauntlet is not None:
        if raw.schedule != "gauntlet":
            raise LeagueFileError('gauntlet: only used with schedule = "gauntlet"; remove it or set the schedule')
        if raw.gauntlet not in names:
            raise LeagueFileError(f"gauntlet: {excerpt(raw.gauntlet)} is not a bot of this league "
                                  f"({', '.join(names)})")
        gauntlet = names.index(raw.gauntlet)
    if raw.schedule == "gauntlet" and len(bots) < seats:
        raise LeagueFileError(f"bots: a {seats}-seat gauntlet needs at least {seats} bots")
    per_pairing = raw.games_per_pairing if raw.games_per_pairing is not None else seats
    if per_pairing < seats or per_pairing % seats:
        kind = "a positive even number" if seats == 2 else f"a positive multiple of {seats}"
        shown = per_pairing if abs(per_pairing) < 10**12 else "a huge number"
        raise LeagueFileError(
            f"games_per_pairing: {shown} is not {kind}; seats rotate so every bot "
            f"plays every seat equally often (try {max(seats, per_pairing - per_pairing % seats)})")
    _check_range("games_per_pairing", per_pairing, seats, MAX_GAMES)
    table_count = _table_count(len(bots), seats, raw.schedule)
    if table_count * per_pairing > MAX_GAMES:
        raise LeagueFileError(
            f"games_per_pairing: {table_count} tables of {per_pairing} games would be more than {MAX_GAMES} "
            "games; lower games_per_pairing or the number of bots")
    concurrency = raw.concurrency if raw.concurrency is not None else default_concurrency()
    _check_range("concurrency", concurrency, 1, MAX_CONCURRENCY)
    time_control, timing = _time(raw.time)
    limits = league_limits
    output = base / (raw.output if raw.output is not None else (source.stem if source else raw.name))
    league = League(
        name=raw.name, game=game, seats=seats, options=options, bots=bots, games_per_pairing=per_pairing,
        schedule=raw.schedule, gauntlet=gauntlet, concurrency=concurrency, seed=raw.seed, output=output,
        infrastructure_retries=raw.infrastructure_retries,
        time_control=time_control, timing=timing, limits=limits, source=source,
        cluster=_cluster_address(raw.cluster.address, base), max_folder_mb=raw.cluster.max_folder_mb,
        log_protocol=raw.log_protocol, openings=_openings(raw, base, game, seats, options),
        random_opening=raw.random_opening, event=_event(raw), anchor=_anchor(raw.anchor, names),
    )
    cores = default_concurrency()
    if concurrency > cores:
        league.warnings.append(
            f"concurrency {concurrency} runs more games at once than there are cores ({cores}): bots under "
            f"a time limit will compete for cores and may lose on time; set concurrency = {cores} or less")
    return league


def _event(raw: LeagueFile) -> str:
    """The records' Event tag: the `event` key, else the league's name."""
    if raw.event is None:
        return raw.name
    _check_text("event", raw.event)
    if not raw.event.strip() or len(raw.event) > 200:
        raise LeagueFileError("event: give the records' Event tag as text of 1 to 200 characters")
    return raw.event


def _anchor(given: str | AnchorEntry | None, names: list[str]) -> Anchor | None:
    """`anchor = "BOT"` or `anchor = { bot = "BOT", elo = 1500 }`, checked."""
    if given is None:
        return None
    entry = AnchorEntry(given) if isinstance(given, str) else given
    if entry.bot not in names:
        raise LeagueFileError(f"anchor: {excerpt(entry.bot)} is not a bot of this league ({', '.join(names)}); "
                              "name the bot whose rating is pinned")
    if not math.isfinite(entry.elo) or abs(entry.elo) > 100_000:
        raise LeagueFileError("anchor.elo: give the pinned rating as a number between -100000 and 100000")
    return Anchor(entry.bot, entry.elo)


def _limits(key: str, given: LimitsSection | BotEntry, base: Limits) -> Limits:
    """`base` with the limits a league file gives, in its [limits] table or a bot's
    entry (checked)."""
    try:
        return with_limits(base, given)
    except LimitError as exc:
        raise LeagueFileError(f"{key}.{exc}") from None


def _openings(raw: LeagueFile, base: Path, game: Game, seats: int, options: dict[str, str]) -> tuple[Opening, ...]:
    """The league's openings file, checked against its game and seat count."""
    _check_range("random_opening", raw.random_opening, 0, 1000)
    if raw.openings is None:
        return ()
    if raw.random_opening:
        raise LeagueFileError("openings and random_opening: give one of them, not both")
    _check_text("openings", raw.openings)
    try:
        return tuple(load_openings(base / raw.openings, game, seats, options))
    except OpeningError as exc:
        raise LeagueFileError(f"openings: {exc}") from None


def _cluster_address(address: str | None, base: Path) -> str | None:
    """The [cluster] address, a scheduler file taken relative to the league file."""
    if address is None:
        return None
    _check_text("cluster.address", address)
    if address.startswith("local:") or "://" in address:
        return address
    return str((base / address).resolve())


def _table_count(bots: int, seats: int, schedule: str) -> int:
    """How many tables the schedule forms (without building it)."""
    if schedule == "gauntlet":
        return math.comb(max(bots - 1, 0), seats - 1)
    return math.comb(bots, seats)


def _option_text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _time(section: TimeSection) -> tuple[TimeControl, Timing]:
    def text(value: str | float | None) -> str | None:
        return None if value is None else str(value)

    try:
        tc = TimeControl.parse(text(section.per_move), section.clock, ("time.per_move", "time.clock"))
        timing = Timing(startup_s=parse_seconds(str(section.startup), "time.startup"),
                        grace_s=parse_seconds(str(section.grace), "time.grace"))
    except TimeControlError as exc:
        raise LeagueFileError(str(exc)) from None
    return tc, timing


def _registry(given: str | None, base: Path) -> Registry | None:
    """The league's bot registry: its `registry` file, else bots.toml beside the file."""
    try:
        return find_registry(None if given is None else base / given, base)
    except RegistryError as exc:
        raise LeagueFileError(f"registry: {exc}") from None


def _resolve_bot_entry(index: int, entry: BotEntry, game: Game, base: Path, limits: Limits,
                       registry: Registry | None = None) -> BotSpec:
    """_resolve_bot (or the registry's bot of that name) with the bot's own limits and
    time control, and the file system's refusals (a name too long...) as messages."""
    key = f"bots[{index}]"
    try:
        if registry is not None and isinstance(entry.command, str) and entry.command.strip() in registry:
            cwd = _check_entry(index, entry, base)
            spec = registry.spec(entry.command.strip(), game.id, limits)
            spec.name = entry.name
            spec.env.update(entry.env)
            spec.ro_paths += ro_paths(f"{key}.ro_paths", entry.ro_paths, cwd)
        else:
            spec = _resolve_bot(index, entry, game, base)
    except RegistryError as exc:
        raise LeagueFileError(f"{key}.command: {exc}") from None
    except OSError as exc:
        raise LeagueFileError(f"{key}: {exc.strerror or exc} for one of its paths; "
                              "check its command and cwd") from None
    if any(v is not None for v in (entry.memory_mb, entry.max_processes, entry.cpus, entry.scratch_mb)):
        spec.limits = _limits(key, entry, spec.limits or limits)
    try:
        spec.time_control = own_time_control(entry.time_per_move, entry.clock, key) or spec.time_control
    except TimeControlError as exc:
        raise LeagueFileError(str(exc)) from None
    return spec


def _check_entry(index: int, entry: BotEntry, base: Path) -> Path:
    """A bot entry's name, command text, folder and environment checked; its folder."""
    key = f"bots[{index}]"
    if not entry.name.strip():
        raise LeagueFileError(f"{key}.name: empty; give the bot a name for the tables")
    _check_text(f"{key}.name", entry.name)
    if len(entry.name) > MAX_NAME_CHARS:
        raise LeagueFileError(f"{key}.name: {len(entry.name)} characters; give a name of at most {MAX_NAME_CHARS}")
    for part in [entry.command] if isinstance(entry.command, str) else entry.command:
        _check_text(f"{key}.command", part)
    if entry.cwd is not None:
        _check_text(f"{key}.cwd", entry.cwd)
    for name, value in entry.env.items():
        _check_text(f"{key}.env", name + value)
        if not name or "=" in name:
            raise LeagueFileError(f"{key}.env: {excerpt(name)} is not a variable name (no '=', not empty)")
    cwd = (base / entry.cwd).resolve() if entry.cwd is not None else base.resolve()
    if not cwd.is_dir():
        raise LeagueFileError(f"{key}.cwd: no such folder {excerpt(str(cwd), 200)} "
                              "(cwd is relative to the league file)")
    return cwd


def _resolve_bot(index: int, entry: BotEntry, game: Game, base: Path) -> BotSpec:
    """A BotSpec from a bot entry: a shipped short name, a command line or an argv
    list; relative paths are taken from the bot's cwd (itself relative to the file)."""
    key = f"bots[{index}]"
    cwd = _check_entry(index, entry, base)
    try:
        spec = resolve_bot(entry.command, game.id, cwd if entry.cwd is not None else None, base)
    except BotNameError as exc:
        raise LeagueFileError(f"{key}.command: {exc}") from None
    # Without a cwd a bot runs in its program's folder (a shipped bot in its own): its
    # sandbox never shows the league's folder.
    return BotSpec(entry.name, spec.command, spec.cwd, dict(entry.env),
                   ro_paths=ro_paths(f"{key}.ro_paths", entry.ro_paths, cwd))


def ro_paths(key: str, given: list[str], base: Path) -> tuple[str, ...]:
    """A bot's read-only paths (relative ones from `base`), each of which must exist."""
    paths = []
    for text in given:
        _check_text(key, text)
        path = (base / text).resolve()
        if not path.exists():
            raise LeagueFileError(f"{key}: no such file or folder {excerpt(str(path), 200)} (relative paths start at "
                                  "the bot's cwd)")
        paths.append(str(path))
    return tuple(paths)
