"""What every `arena` subcommand shares: the consoles, error exits, option parsing,
and running Trio work so that signals stop the bots cleanly."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import trio
import typer
from rich.console import Console

from arena.errors import ArenaError, excerpt
from arena.files import FolderError, writable_folder
from arena.games import GameError, get_game
from arena.games.base import Game, State
from arena.league.registry import Registry, RegistryError, find_registry
from arena.people.launch import PEOPLE, person_spec
from arena.people.seat import Person
from arena.records.files import append_record
from arena.records.writer import write_record
from arena.referee.botnames import BotNameError, resolve_bot
from arena.referee.match import MatchResult
from arena.referee.openings import Opening, OpeningError, load_openings
from arena.referee.outcome import GameOutcome
from arena.referee.player import Timing
from arena.referee.sandbox import probe
from arena.referee.seeds import MAX_SEED, derived_bot_seed
from arena.referee.spec import DEFAULT_CPUS, DEFAULT_SCRATCH_MB, BotSpec, Limits
from arena.referee.timecontrol import TimeControl, TimeControlError, parse_seconds

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

T = TypeVar("T")

OptionArg = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Variant option KEY=VALUE (repeatable); see `arena games`."),
]
PlayersArg = Annotated[
    int | None, typer.Option("--players", "-p", help="Number of seats (default: the game's minimum).")
]
TimePerMoveArg = Annotated[str | None, typer.Option(
    "--time-per-move", help="Limit per decision, e.g. 0.5, 2s, 500ms (default 5s when no --clock); one per bot, "
    "in the order the bots are named, separated by ':' for a handicap (1s:200ms).")]
ClockArg = Annotated[str | None, typer.Option(
    "--clock", help="Game clock BASE+INC in seconds, e.g. 60+0.5; one per bot separated by ':' (60+1:30+0.5).")]
StartupArg = Annotated[str, typer.Option("--startup-time", help="Time a bot has to answer hello.")]
GraceArg = Annotated[str, typer.Option("--grace", help="Allowance for pipe latency before a time-out.")]
OutArg = Annotated[Path | None, typer.Option("--out", help="Append every game's record to this file.")]
SeedArg = Annotated[int, typer.Option(
    "--seed", min=0, max=MAX_SEED, help="Seed for chance (dice, deals); same seed, same game.")]
MatchSeedArg = Annotated[int | None, typer.Option(
    "--seed", min=0, max=MAX_SEED,
    help="Seed for chance (dice, deals); same seed, same games on this machine. Default: drawn at random "
    "and recorded in each record's Seed tag.")]
BotSeedArg = Annotated[int | None, typer.Option(
    "--bot-seed", min=0, max=MAX_SEED,
    help="Seed the bots' ARENA_BOT_SEED values derive from, independent of --seed. Default: drawn at random "
    "and recorded in each record's BotSeeds tag.")]
MemoryArg = Annotated[int, typer.Option(
    "--memory-mb", min=16, max=1 << 30,
    help="Memory limit of each bot, MiB: for its whole process tree where cgroups can be made, else per process.")]
MaxProcessesArg = Annotated[int, typer.Option(
    "--max-processes", min=1, max=1 << 22,
    help="Most processes a bot may run at once (its cgroup where one can be made, else RLIMIT_NPROC).")]
CpusArg = Annotated[float, typer.Option(
    "--cpus", min=0.01, max=4096,
    help="Cores each bot's whole process tree may use at once (a cgroup CPU quota, where the machine has one).")]
ScratchArg = Annotated[int, typer.Option(
    "--scratch-mb", min=1, max=1 << 20,
    help="Size of a sandboxed bot's /scratch and of its /tmp, each, MiB (memory-backed: it counts against "
    "--memory-mb).")]
BotsFileArg = Annotated[Path | None, typer.Option(
    "--bots", metavar="FILE", help="The bot registry naming bots once (default: bots.toml in this folder, if any); "
    "see docs/bots-registry.md.")]
NoSandboxArg = Annotated[bool, typer.Option(
    "--no-sandbox", help="Run bots as plain processes, without their sandbox: only for bots you trust "
    "(`arena doctor` tells what the sandbox holds here).")]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error that names the problem and the fix; the caller raises the result."""
    errors.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def parse_options(game: Game, given: list[str] | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in given or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise fail(f"--option {item!r} must be KEY=VALUE, e.g. --option board=rect")
        options[key.strip()] = value.strip()
    try:
        return game.resolve_options(options)
    except GameError as exc:
        raise fail(str(exc)) from None


def load_game(game_id: str) -> Game:
    try:
        return get_game(game_id)
    except GameError as exc:
        raise fail(f"{exc}; `arena games` lists them") from None


def new_state(game: Game, players: int | None, options: dict[str, str]) -> State:
    seats = players if players is not None else game.min_seats
    try:
        return game.new_state(seats, options)
    except GameError as exc:
        raise fail(f"{exc}; set --players") from None


def run_trio(main: Callable[[], Awaitable[T]]) -> T:
    """Run async work; SIGTERM and SIGHUP act like Ctrl-C (KeyboardInterrupt) and in
    every case the bots are killed and reaped before this returns or raises."""
    results: list[T] = []
    interrupted = False

    async def guarded() -> None:
        nonlocal interrupted
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    nonlocal interrupted
                    async for _ in signals:
                        interrupted = True
                        nursery.cancel_scope.cancel()

                nursery.start_soon(watch)
                results.append(await main())
                nursery.cancel_scope.cancel()

    try:
        trio.run(guarded, restrict_keyboard_interrupt_to_checkpoints=True)
    except BaseExceptionGroup as group:
        interrupts, rest = group.split(KeyboardInterrupt)
        if rest is not None:
            arena_errors, others = rest.split(ArenaError)
            if others is None and arena_errors is not None:
                raise _first_leaf(arena_errors) from None
            raise
        raise KeyboardInterrupt from None
    if interrupted or not results:
        raise KeyboardInterrupt
    return results[0]


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first exception of a (nested) group, for a group made of one kind of error."""
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def registry_from(path: Path | None) -> Registry | None:
    """The bot registry of a command: --bots FILE, or bots.toml here (a message if broken)."""
    try:
        return find_registry(path)
    except RegistryError as exc:
        raise fail(str(exc)) from None


def bot_specs(game: Game, bots: list[str], bot_seed: int, options: Mapping[str, str] | None = None,
              people: dict[str, Person] | None = None, person_time: TimeControl | None = None,
              registry: Registry | None = None, limits: Limits | None = None) -> list[BotSpec]:
    """Resolve the bots; each gets its own ARENA_BOT_SEED, derived from `bot_seed` and
    its place (independent of the chance seed), so seeded bots reproduce a match
    without all playing the same choices. `options` are resolved ones (from
    parse_options), for games whose seat count depends on a variant. Where `people` is
    given, `human` and `human-web` seat a person (added to it) with `person_time`. A
    name in `registry` is that bot, its own limits on top of `limits`."""
    specs = []
    for index, text in enumerate(bots):
        if registry is not None and text.strip() in registry:
            try:
                spec = registry.spec(text.strip(), game.id, limits or Limits())
            except RegistryError as exc:
                raise fail(str(exc)) from None
            spec.env["ARENA_BOT_SEED"] = str(derived_bot_seed(str(bot_seed).encode(), index))
            specs.append(spec)
            continue
        if people is not None and text.strip() in PEOPLE:
            from arena.people.terminal import TerminalPerson
            from arena.people.web import WebPerson

            key = str(index)
            people[key] = TerminalPerson(text.strip()) if text.strip() == "human" else WebPerson(text.strip())
            specs.append(person_spec(text.strip(), key, person_time))
            continue
        try:
            spec = resolve_bot(text, game.id)
        except BotNameError as exc:
            raise fail(str(exc)) from None
        spec.env["ARENA_BOT_SEED"] = str(derived_bot_seed(str(bot_seed).encode(), index))
        specs.append(spec)
    if len(specs) == 1 and game.min_seats > 1:
        raise fail(f"{game.id} needs at least {game.min_seats} bots; name one per seat")
    try:
        game.check_seats(len(specs), options)
    except GameError as exc:
        raise fail(f"{exc}: name one bot per seat") from None
    return specs


def seat_time_controls(specs: list[BotSpec], controls: list[TimeControl]) -> TimeControl:
    """Give each bot its own time control when they differ (a handicap); the match's."""
    if len(set(controls)) > 1:
        for spec, control in zip(specs, controls, strict=True):
            if spec.time_control is None:
                spec.time_control = control
    return controls[0]


def bot_time_settings(per_move: str | None, clock: str | None, startup: str, grace: str,
                      bots: int) -> tuple[list[TimeControl], Timing]:
    """Each bot's time control from --time-per-move and --clock, which give one value
    for every bot or one per bot separated by ':' in the order the bots are named
    (`--time-per-move 1s:200ms`: a handicap match), and the start-up/grace timing."""
    per_moves = _per_bot(per_move, bots, "--time-per-move")
    clocks = _per_bot(clock, bots, "--clock")
    try:
        controls = [TimeControl.parse(p, c) for p, c in zip(per_moves, clocks, strict=True)]
        timing = Timing(startup_s=parse_seconds(startup, "--startup-time"), grace_s=parse_seconds(grace, "--grace"))
    except TimeControlError as exc:
        raise fail(str(exc)) from None
    return controls, timing


def _per_bot(text: str | None, bots: int, option: str) -> list[str | None]:
    if text is None or ":" not in text:
        return [text] * bots
    parts = [part.strip() or None for part in text.split(":")]
    if len(parts) != bots:
        raise fail(f"{option} {excerpt(text)}: {len(parts)} values for {bots} bots; give one value for all, or "
                   f"one per bot separated by ':' in the order the bots are named (e.g. 1s:200ms)")
    return parts


def check_out_file(path: Path, option: str = "--out") -> None:
    """Before anything is played: the record file can be appended to, or created in an
    existing, writable folder; and an existing file looks like records, not something
    else that appending would spoil."""
    try:
        _check_out_file(path, option)
    except OSError as exc:
        raise fail(f"{option} {excerpt(str(path), 200)}: {exc.strerror or exc}; choose another path") from None


def _check_out_file(path: Path, option: str) -> None:
    if path.is_dir():
        raise fail(f"{option} {path}: is a folder; give a file name such as {path / 'games.pgn'}")
    folder = path.parent
    if not folder.is_dir():
        raise fail(f"{option} {path}: the folder {folder} does not exist; create it (mkdir -p {folder}) "
                   "or choose another path")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise fail(f"{option} {path}: the file is not writable; choose another path")
        try:
            with path.open("rb") as handle:
                head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        except OSError as exc:
            raise fail(f"{option} {path}: cannot read it ({exc.strerror}); choose another path") from None
        if head and not head.startswith(b"["):
            raise fail(f"{option} {path}: the file exists and does not hold game records; appending would spoil "
                       "it: choose another path")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise fail(f"{option} {path}: the folder {folder} is not writable; choose another path")


def prepare_log_dir(path: Path) -> Path:
    """Create the bots' log folder (and its parents) before anything is played."""
    try:
        return writable_folder(path)
    except FolderError as exc:
        raise fail(f"--log-dir {path}: the folder {exc}; choose another folder") from None


ERRORS_LOG = "arena-errors.log"
"""Where the tracebacks of void games go, in the log folder."""


class RecordWriteError(ArenaError):
    """The records file could not be appended to in the middle of a match."""


def save_record(out: Path, outcome: GameOutcome, log_dir: Path | None) -> None:
    """Append a finished game to the records file; if that fails (a full disk), keep the
    game in the log folder and stop the match with a RecordWriteError."""
    try:
        append_record(out, outcome.record)
        return
    except OSError as exc:
        problem = exc.strerror or str(exc)
    kept = ""
    if log_dir is not None:
        try:
            append_record(log_dir / "unsaved-games.pgn", outcome.record)
            kept = f"; this game was saved in {log_dir / 'unsaved-games.pgn'}"
        except OSError:
            pass
    raise RecordWriteError(f"cannot append to {out} ({problem}){kept}; the match was stopped")


def log_void_game(log_dir: Path | None, index: int, outcome: GameOutcome) -> None:
    """The traceback and the partial record of a game voided by the arena's own error."""
    if log_dir is None:
        return
    with contextlib.suppress(OSError), (log_dir / ERRORS_LOG).open("a", encoding="utf-8") as log:
        log.write(f"--- game {index + 1}\n{outcome.error}\n{write_record(outcome.record)}\n")


LogProtocolArg = Annotated[bool, typer.Option(
    "--log-protocol", help="Write every line each way between the referee and each bot, with a timestamp, the game "
    "and the ply, to BOT.protocol.log in the log folder (kept after the match).")]
OpeningsArg = Annotated[Path | None, typer.Option(
    "--openings", metavar="FILE", help="Start the games from the openings of FILE, one a line (docs/openings.md), "
    "each in turn, each played from every seat.")]
RandomOpeningArg = Annotated[int, typer.Option(
    "--random-opening", min=0, max=1000, metavar="N",
    help="Start each seat rotation from its own N plies drawn at random from the legal actions (with the seed).")]
JsonArg = Annotated[bool, typer.Option(
    "--json", help="Print one JSON document on stdout (results, faults, figures) and nothing else there; "
    "progress and messages go to stderr.")]


@contextmanager
def json_output(enabled: bool) -> Iterator[None]:
    """While a --json command runs, everything for people goes to stderr, so stdout
    holds the JSON document alone."""
    if not enabled:
        yield
        return
    console.file = sys.stderr
    try:
        yield
    finally:
        console.file = sys.stdout


def print_json(document: object) -> None:
    """The document on stdout as strict JSON: a figure that is not finite (an Elo of a
    match one bot won every game of) is null."""
    sys.stdout.write(json.dumps(_finite(document), indent=1, allow_nan=False) + "\n")
    sys.stdout.flush()


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def openings_from(path: Path | None, random_plies: int, game: Game, seats: int,
                  options: dict[str, str]) -> tuple[Opening, ...]:
    """The openings a command gives, checked against the game (a message otherwise)."""
    if path is not None and random_plies:
        raise fail("give --openings FILE or --random-opening N, not both")
    if path is None:
        return ()
    try:
        return tuple(load_openings(path, game, seats, options))
    except OpeningError as exc:
        raise fail(str(exc)) from None


def finish_match(result: MatchResult, logs: Path, keep_logs: bool) -> None:
    """What `play` and `match` say after a match: where the bots' logs are (a temporary
    folder is removed when no game needs it), then exit 2 for a bot that never started,
    or 1 for games an error of the arena voided."""
    void = [o for o in result.outcomes if o.void]
    if keep_logs or void or any(o.faults for o in result.outcomes):
        console.print(f"bot logs (stderr): {logs}")
    else:
        shutil.rmtree(logs, ignore_errors=True)
    for name, fault in result.never_ready.items():
        raise fail(f"{name} never started ({fault}); check its command")
    if void:
        raise fail(f"{len(void)} game(s) were stopped by an error of the arena (a bug: please report it); they are "
                   f"void, not scored, and left out of the records; tracebacks: {logs / ERRORS_LOG}", 1)


def bot_limits(memory_mb: int, max_processes: int, no_sandbox: bool, cpus: float = DEFAULT_CPUS,
               scratch_mb: int = DEFAULT_SCRATCH_MB) -> Limits:
    """The bots' limits from the command line, saying once, plainly, what this machine
    cannot enforce."""
    limits = Limits(memory_bytes=memory_mb << 20, processes=max_processes, sandbox=not no_sandbox, cpus=cpus,
                    scratch_bytes=scratch_mb << 20)
    warn_isolation(limits)
    return limits


_warned: set[str] = set()


def warn_isolation(limits: Limits) -> None:
    """One warning per run for a sandbox or cgroups that are wanted and missing."""
    from arena.referee.cgroups import cgroup_support

    notes = []
    if limits.sandbox and not probe().sandbox:
        notes.append(f"bots run without their sandbox: {probe().why}. They run as your user in their own process "
                     "groups; `arena doctor` says more")
    if cgroup_support().version == 0:
        notes.append(f"limits hold per process, not per bot: {cgroup_support().why}")
    for note in notes:
        if note not in _warned:
            _warned.add(note)
            errors.print(f"[yellow]warning:[/] {note}", highlight=False)
