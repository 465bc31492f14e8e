"""The league file's meaning: checks with messages that name the key, the problem and
the fix, which turn the file as written (arena.league.file) into the resolved League the
runner uses (arena.league.model, whose names this module also offers)."""

from __future__ import annotations

import math
from pathlib import Path

from arena import games
from arena.errors import excerpt
from arena.games import Game, GameError
from arena.league.file import (
    AnchorEntry,
    BotEntry,
    LeagueFile,
    LeagueFileError,
    LimitsSection,
    Scalar,
    TimeSection,
    read_league_file,
)
from arena.league.model import Anchor, League
from arena.league.registry import Registry, RegistryError, find_registry
from arena.process.botnames import BotNameError, resolve_bot
from arena.process.spec import BotSpec, LimitError, Limits, with_limits
from arena.referee.openings import Opening, OpeningError, arrange_openings, check_order, load_openings
from arena.referee.player import Timing
from arena.referee.scheduling import allowed_cores
from arena.referee.seeds import MAX_SEED
from arena.timecontrol import (
    Basis,
    TimeControl,
    TimeControlError,
    own_time_control,
    parse_basis,
    parse_seconds,
)

MAX_NAME_CHARS = 64
"""Longest bot name: names label records, tables and log files."""


MAX_GAMES = 10_000_000
"""Most games a league may schedule (a typo in games_per_pairing is not a league)."""

MAX_CONCURRENCY = 1024


# ---- the resolved league (arena.league.model) ----------------------------------------------

__all__ = ["Anchor", "BotEntry", "League", "LeagueFile", "LeagueFileError", "TimeSection", "load_league",
           "resolve_league"]


def default_concurrency() -> int:
    """The cores this process may use: as many games at once as never need the cap
    of concurrency at the cores (arena.referee.scheduling)."""
    return len(allowed_cores())


def load_league(path: Path) -> League:
    """Read and check a league file; LeagueFileError names the problem and the fix."""
    raw = read_league_file(path)
    try:
        return resolve_league(raw, path.parent, source=path)
    except LeagueFileError as exc:
        raise LeagueFileError(f"{path}: {exc}") from None


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
        game = games.get(raw.game)
    except GameError as exc:
        raise LeagueFileError(f"game: {exc}") from None
    seats = raw.seats if raw.seats is not None else max(2, game.min_seats)
    try:
        options = game.resolve_options({k: option_text(v) for k, v in raw.options.items()})
    except GameError as exc:
        raise LeagueFileError(f"options: {exc}") from None
    try:
        game.check_seats(seats, options)
    except GameError as exc:
        raise LeagueFileError(f"seats: {exc}") from None
    league_limits = resolve_limits("limits", raw.limits, Limits(sandbox=raw.sandbox))
    registry = _registry(raw.registry, base)
    time_control, timing = resolve_time(raw.time)
    bots = [_resolve_bot_entry(i, entry, game, base, league_limits, registry, time_control.basis)
            for i, entry in enumerate(raw.bots)]
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
    limits = league_limits
    output = base / (raw.output if raw.output is not None else (source.stem if source else raw.name))
    league = League(
        name=raw.name, game=game, seats=seats, options=options, bots=bots, games_per_pairing=per_pairing,
        schedule=raw.schedule, gauntlet=gauntlet, concurrency=concurrency, affinity=raw.affinity, seed=raw.seed,
        output=output,
        infrastructure_retries=raw.infrastructure_retries,
        time_control=time_control, timing=timing, limits=limits, source=source,
        cluster=_cluster_address(raw.cluster.address, base), max_folder_mb=raw.cluster.max_folder_mb,
        log_protocol=raw.log_protocol, openings=_openings(raw, base, game, seats, options),
        random_opening=raw.random_opening, deals=raw.deals, event=_event(raw), anchor=_anchor(raw.anchor, names),
    )
    return league  # a concurrency above the cores is refused when the league runs here (arena.cli.league)


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


def resolve_limits(key: str, given: LimitsSection | BotEntry, base: Limits) -> Limits:
    """`base` with the limits a league file gives, in its [limits] table or a bot's
    entry (checked)."""
    try:
        return with_limits(base, given)
    except LimitError as exc:
        raise LeagueFileError(f"{key}.{exc}") from None


def _openings(raw: LeagueFile, base: Path, game: Game, seats: int, options: dict[str, str]) -> tuple[Opening, ...]:
    """The league's openings file, checked against its game and seat count, in the order
    its seat rotations take them (`openings_order`, shuffled with the league's seed, and
    `openings_start`, as fastchess's order= and start=): the league's identity holds
    that order, so a resumed league that changes either is refused."""
    _check_range("random_opening", raw.random_opening, 0, 1000)
    order = raw.openings_order
    start = raw.openings_start
    if raw.openings is None:
        if order != "sequential" or start != 1:
            raise LeagueFileError("openings_order and openings_start arrange the openings of a file: add "
                                  'openings = "FILE" (or "shipped")')
        return ()
    if raw.random_opening:
        raise LeagueFileError("openings and random_opening: give one of them, not both")
    _check_text("openings", raw.openings)
    try:
        book = load_openings(base / raw.openings, game, seats, options)
    except OpeningError as exc:
        raise LeagueFileError(f"openings: {exc}") from None
    try:
        check_order(order)
    except OpeningError as exc:
        raise LeagueFileError(f"openings_order: {exc}") from None
    try:
        return arrange_openings(book, order, start, raw.seed)
    except OpeningError as exc:
        raise LeagueFileError(f"openings_start: {exc}") from None


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


def option_text(value: Scalar) -> str:
    """An option's value as TOML gave it, as the game's options take it ("true", "3")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def resolve_time(section: TimeSection) -> tuple[TimeControl, Timing]:
    """A [time] table as the time control and timing it gives (a ladder's tables share it)."""
    def text(value: str | float | None) -> str | None:
        return None if value is None else str(value)

    try:
        basis = parse_basis(section.basis, "time.basis")
        tc = TimeControl.parse(text(section.per_move), section.clock, ("time.per_move", "time.clock"), basis)
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
                       registry: Registry | None = None, basis: Basis = "wall") -> BotSpec:
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
        spec.limits = resolve_limits(key, entry, spec.limits or limits)
    try:
        own = own_time_control(entry.time_per_move, entry.clock, key) or spec.time_control
        spec.time_control = None if own is None else own.on(basis)  # the league's basis holds for a registry's too
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
