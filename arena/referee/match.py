"""A match: the same bots play several games in a row with seats rotated.

Bot processes are started once and reused across games (like chess engines between
games); a bot that faulted is killed by the referee and restarted before its next game.
Whatever happens (normal end, an exception, Ctrl-C), every bot process group is killed
and reaped before play_match returns or raises.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from arena.games.base import Game
from arena.process.bot_process import launch_process
from arena.process.botfolder import placed
from arena.process.channel import Launcher
from arena.process.faults import BotFault
from arena.process.folder_checks import check_bots
from arena.process.reaper import process_reaper
from arena.process.secret import secret_path
from arena.process.spec import BotSpec, Limits
from arena.referee.openings import Opening
from arena.referee.outcome import GameOutcome, GameSetup, void_outcome
from arena.referee.player import FEATURES, BotPlayer, Timing
from arena.referee.referee import Referee, Watcher
from arena.referee.seeds import Deals, cycle_seed, deal_number, fresh_rotation, rotated
from arena.referee.traffic import logging_launcher
from arena.timecontrol import TimeControl


@dataclass(frozen=True)
class PlannedGame:
    """One game of a match: which bot sits in each seat, its seed and round label, and
    the opening it starts from."""

    seats: tuple[int, ...]
    seed: int
    round: str
    opening: Opening | None = None
    origin: tuple[int, int] | None = None
    """The seed as the user gave it and the rotation cycle `seed` was made from
    (seeds.cycle_seed), which the record's Seed and Cycle tags hold; None where the
    seed was given as it is (the record's Seed tag then holds it, without Cycle)."""
    match_game: int | None = None
    """The index `start` tells the bots (None: the game's place in this match); a rerun
    sends the original's."""
    rotation: int | None = None
    """With fresh deals, the seat rotation the game belongs to (`origin` then holds the
    game's own deal number): its random opening is the rotation's, and its record's
    Rotation tag says which. None with duplicate deals, where the deal is the rotation's."""


@dataclass(frozen=True)
class MatchConfig:
    """What a match plays: the game, its variant, limits, seed and length. Each bot's
    time control and seed are its BotSpec's (time_control, bot_seed), not the match's."""

    game: Game
    options: dict[str, str]
    seed: int = 0
    games: int = 1
    event: str = "arena match"
    log_dir: Path | None = None
    limits: Limits = Limits()
    timing: Timing = Timing()
    plan: tuple[PlannedGame, ...] | None = None
    """Explicit games to play (a league's share of its schedule); None plays `games`
    games with seats rotated and seeds from `seed`."""
    launcher: Launcher = launch_process
    """How bots are started: real processes, or fakes in tests."""
    chance_key: bytes = b""
    """Secret hashed into every game's chance seed (the CLI gives the installation's
    key, a league its own): no bot can recompute a deal from the seed."""
    hidden: tuple[Path, ...] = ()
    """The referee's output (records, database, logs): never visible to a bot."""
    log_protocol: bool = False
    """Write every line each way to a protocol log beside each bot's stderr log."""
    openings: tuple[Opening, ...] = ()
    """Openings, one per seat rotation in turn (when `plan` gives none itself)."""
    random_opening: int = 0
    """Plies of a random opening at the start of every game."""
    features: tuple[str, ...] = FEATURES
    """What bots may ask for in `ready` (all of it; `arena check` offers less to play a
    bot that asks for `legal: false` with the lists as well)."""
    deals: Deals = "duplicate"
    """"duplicate": the games of a seat rotation share one seed (when `plan` gives none
    itself); "fresh": every game has a seed of its own."""
    prepared: bool = False
    """Whether a session prepared the match (arena.session.request.prepare_match): its
    `options` resolved and its bots' folders checked against its outputs there, once,
    before the record file was made; play_match then does neither again. A league's
    tables are prepared when the league's session checked its bots (the league file
    resolved its options). False (a config made by hand, a cluster's unit on its
    worker): play_match does both."""


def planned_games(config: MatchConfig, bots: int) -> tuple[PlannedGame, ...]:
    """The games a match plays: its explicit plan, or seats rotated one seat per game,
    every rotation cycle on one seed (duplicate deals) or every game on its own (fresh
    deals: game i's deal number is i); openings go by rotation cycle either way."""
    if config.plan is not None:
        return config.plan
    games = []
    for i in range(config.games):
        cycle = i // bots
        number = deal_number(config.deals, cycle, i)
        games.append(PlannedGame(rotated(range(bots), i % bots), cycle_seed(config.seed, number), str(i + 1),
                                 opening_of_cycle(config.openings, cycle), (config.seed, number),
                                 rotation=fresh_rotation(config.deals, cycle)))
    return tuple(games)


def opening_of_cycle(openings: tuple[Opening, ...], cycle: int) -> Opening | None:
    """The opening of a seat rotation: each in turn, so each is played from every seat."""
    return openings[cycle % len(openings)] if openings else None


def unique_names(specs: list[BotSpec]) -> list[BotSpec]:
    """Give repeated names a suffix (random, random-2) so records tell bots apart."""
    seen: dict[str, int] = {}
    result = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        name = spec.name if count == 1 else f"{spec.name}-{count}"
        result.append(replace(spec, name=name, env=dict(spec.env)))
    return result


@dataclass
class MatchResult:
    """The outcomes in order, with the seating of each game (bot index per seat)."""

    names: list[str]
    outcomes: list[GameOutcome] = field(default_factory=list)
    seatings: list[list[int]] = field(default_factory=list)
    never_ready: dict[str, str] = field(default_factory=dict)
    """Bots that never completed a handshake in the whole match, with their last
    start-up fault: a command that cannot work, rather than a bot that lost."""


GameDone = Callable[[int, GameOutcome, list[int]], bool | None]
"""Called after each game with its index in the match, outcome and seating; returning
True stops the match there (an SPRT that has decided)."""
AsyncGameDone = Callable[[int, GameOutcome, list[int]], Awaitable[bool | None]]
"""A GameDone that is awaited (a league stores the game off the event loop)."""


async def _ensure_started(player: BotPlayer, nursery: trio.Nursery) -> BotFault | None:
    """Start or restart a bot that is not running; its start-up fault if it fails."""
    if player.alive:
        return None
    try:
        if player.started:
            await player.restart(nursery)
        else:
            await player.start(nursery)
    except BotFault as fault:
        fault = player.explain(fault)
        player.kill()
        player.last_startup_fault = fault
        return fault
    return None


async def play_match(
    config: MatchConfig,
    specs: list[BotSpec],
    on_game: GameDone | AsyncGameDone | None = None,
    watcher: Watcher | None = None,
    before_game: Callable[[int], Awaitable[None]] | None = None,
) -> MatchResult:
    """Play the match's games between the bots of `specs` (one per seat), each under
    its spec's time control (ValueError for a spec without one: see BotSpec.time_control)."""
    specs = unique_names(specs)
    untimed = [spec.name for spec in specs if spec.time_control is None]
    if untimed:
        raise ValueError(f"no time control for {', '.join(untimed)}: set each BotSpec's time_control before "
                         "play_match (arena.process.spec.timed gives bots one control)")
    options = config.options
    if not config.prepared:
        # In a worker thread: the first check probes the sandbox, and a program seen for
        # the first time may be resolved through its version manager (a process each),
        # while the league's other tables are playing on this event loop.
        await trio.to_thread.run_sync(
            check_bots, specs, config.limits, [*config.hidden, *([config.log_dir] if config.log_dir else [])])
        options = config.game.resolve_options(config.options)
    config.game.check_seats(len(specs), options)
    if config.log_dir is not None:
        config.log_dir.mkdir(parents=True, exist_ok=True)
    players = [
        BotPlayer(
            spec,
            config.log_dir / f"{i}-{safe_file_name(spec.name)}.log" if config.log_dir else None,
            _table_limits(spec.limits, config.limits),
            config.timing,
            logging_launcher(config.launcher) if config.log_protocol else config.launcher,
            _hidden(config) + _other_folders(specs, i),
            config.features,
        )
        for i, spec in enumerate(specs)
    ]
    result = MatchResult([p.name for p in players])
    try:
        async with trio.open_nursery() as nursery:
            for index, planned in enumerate(planned_games(config, len(players))):
                seats = list(planned.seats)
                seated = [players[b] for b in seats]
                setup = GameSetup(
                    game=config.game, options=options, time_controls=tuple(_control(p.spec) for p in seated),
                    seed=planned.seed, origin=planned.origin, rotation=planned.rotation, event=config.event,
                    round=planned.round,
                    match_game=index if planned.match_game is None else planned.match_game,
                    chance_key=config.chance_key, bot_seeds=tuple(p.spec.bot_seed for p in seated),
                    opening=planned.opening.actions if planned.opening else (),
                    opening_name=planned.opening.name if planned.opening else "",
                    random_opening=0 if planned.opening else config.random_opening,
                )
                for player in seated:
                    await player.new_game(planned.seed, config.game.has_chance)
                outcome = await _play_one(setup, seated, nursery, watcher, before_game, index, players)
                result.outcomes.append(outcome)
                result.seatings.append(seats)
                if on_game is not None:
                    stop = on_game(index, outcome, seats)
                    if inspect.isawaitable(stop):
                        stop = await stop
                    if stop:
                        break
            with trio.move_on_after(2):
                async with trio.open_nursery() as quitting:
                    for player in players:
                        quitting.start_soon(player.quit)
            nursery.cancel_scope.cancel()
    finally:
        for player in players:
            player.dispose()
        result.names = [p.name for p in players]
        # Every process of the match is reaped before it returns.
        await process_reaper().settle([pgid for player in players for pgid in player.pgids])
    for player in players:
        if player.started and player.handshakes == 0 and player.last_startup_fault is not None:
            result.never_ready[player.name] = str(player.last_startup_fault)
    return result


async def _play_one(
    setup: GameSetup,
    seated: list[BotPlayer],
    nursery: trio.Nursery,
    watcher: Watcher | None,
    before_game: Callable[[int], Awaitable[None]] | None,
    index: int,
    everyone: list[BotPlayer],
) -> GameOutcome:
    """One game, with the game boundary: an exception of ours inside it (never a bot's
    doing: those are faults) makes the game void instead of stopping the match; its
    bots are killed, since their state is unknown, and restart for the next game."""
    referee: Referee | None = None
    try:
        startup = await _start_all(seated, nursery)
        adopt_ready_names(everyone)
        if before_game is not None:
            await before_game(index)  # the bots are up: the benchmark's gate, the league's count
        referee = Referee(setup, seated, watcher, startup)
        return await referee.play()
    except Exception as error:
        for player in seated:
            player.kill()
        if referee is not None:
            return referee.void_outcome(error)
        return void_outcome(setup, [p.name for p in seated], [], error)


NAME_CHARS = 40
"""Longest name taken from a bot's `ready`."""


def adopt_ready_names(players: list[BotPlayer]) -> None:
    """A bot the user did not name (a command line) is shown by the name it gives in
    `ready`, made printable, short and unique in the match (`mybot`, `mybot-2`), once
    it has given one."""
    for player in players:
        spec = player.spec
        if spec.named or player.ready is None:
            continue
        spec.named = True  # once: a restarted bot keeps its name
        wanted = "".join(c for c in player.ready.name if c.isprintable()).strip()[:NAME_CHARS]
        taken = {p.name for p in players if p is not player}
        if not wanted:
            continue
        name, count = wanted, 1
        while name in taken:
            count += 1
            name = f"{wanted}-{count}"
        spec.name = name


async def _start_all(seated: list[BotPlayer], nursery: trio.Nursery) -> dict[int, BotFault]:
    """Start every bot that is not running, concurrently; start-up faults by seat."""
    faults: dict[int, BotFault] = {}

    async def one(seat: int, player: BotPlayer) -> None:
        fault = await _ensure_started(player, nursery)
        if fault is not None:
            faults[seat] = fault

    async with trio.open_nursery() as starting:
        for seat, player in enumerate(seated):
            if not player.alive:
                starting.start_soon(one, seat, player)
    return faults


def _control(spec: BotSpec) -> TimeControl:
    """A seated bot's time control (play_match refuses a spec without one)."""
    assert spec.time_control is not None
    return spec.time_control


def _table_limits(own: Limits | None, table: Limits) -> Limits:
    """A bot's limits: its own where it has them, else the match's; pinned to the
    table's cores either way (`--affinity`: a bot's own limits do not unpin it)."""
    if own is None:
        return table
    return replace(own, affinity=table.affinity) if table.affinity and not own.affinity else own


def _hidden(config: MatchConfig) -> tuple[Path, ...]:
    """What no bot of this match may read: the given paths, the log folder, the key."""
    hidden = list(config.hidden)
    if config.log_dir is not None:
        hidden.append(config.log_dir)
    hidden.append(secret_path())
    return tuple(hidden)


def _other_folders(specs: list[BotSpec], own: int) -> tuple[Path, ...]:
    """The folders of the other bots of the match, which bot `own` may not read (the
    sandbox masks them where its own readable folders would show them)."""
    folders = [placed(spec).folder for spec in specs]
    mine = folders[own]
    return tuple({f for f in folders if f is not None and f != mine})


def safe_file_name(name: str) -> str:
    """A bot's name as part of a log file's name: no separators, 40 characters at most."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]
