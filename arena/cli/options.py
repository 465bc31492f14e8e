"""The commands' options, declared once: each option an annotated type, options that go
together a frozen dataclass (a group), and each command's options one dataclass of
options and groups. `takes(Options)` turns a function of one such dataclass into the
function Typer reads: its parameters are the dataclass's fields, each group's fields
in its place, so the help lists them in the order the dataclass declares them."""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Protocol, TypeVar

import typer

from arena.errors import excerpt
from arena.process.spec import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, DEFAULT_SCRATCH_MB, Limits
from arena.referee.openings import OpeningOrder
from arena.referee.player import Timing
from arena.referee.seeds import MAX_SEED, Deals
from arena.session.request import MatchRequest
from arena.timecontrol import MAX_SECONDS, Basis, TimeControl, TimeControlError, parse_basis, parse_seconds

T = TypeVar("T")


def takes(options: type[T]) -> Callable[[Callable[[T], None]], Callable[..., None]]:
    """Decorate a command `body(options: Options)`: Typer sees one parameter per field
    of `options` (groups flattened in place) and the body gets the dataclass built
    from what was parsed."""
    parameters = list(_parameters(options))
    names = [p.name for p in parameters]
    if len(set(names)) != len(names):
        raise TypeError(f"{options.__name__}: two options share a field name ({names})")

    def decorate(body: Callable[[T], None]) -> Callable[..., None]:
        def command(**values: Any) -> None:
            body(build(options, values))

        functools.update_wrapper(command, body, assigned=("__module__", "__name__", "__qualname__", "__doc__"),
                                 updated=())
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        return command

    return decorate


def is_group(hint: object) -> bool:
    """Whether a field's type is a group of options (a dataclass) rather than one option."""
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _parameters(options: type[Any], panel: str | None = None) -> Iterator[inspect.Parameter]:
    hints = typing.get_type_hints(options, include_extras=True)
    for item in dataclasses.fields(options):
        hint = hints[item.name]
        if is_group(hint):
            yield from _parameters(hint, getattr(hint, "PANEL", None) or panel)
            continue
        if panel is not None:
            hint = in_panel(hint, panel)
        default: Any = inspect.Parameter.empty
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        yield inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint)


def in_panel(hint: Any, panel: str) -> Any:
    """An option's annotation with its help shown under `panel` (a copy: the same
    option may stand in another command's own list)."""
    if typing.get_origin(hint) is not Annotated:
        return hint
    base, *extras = typing.get_args(hint)
    moved = []
    for extra in extras:
        if isinstance(extra, typer.models.OptionInfo) and extra.rich_help_panel is None:
            extra = copy.copy(extra)
            extra.rich_help_panel = panel
        moved.append(extra)
    return Annotated[(base, *moved)]


def build(options: type[T], values: dict[str, Any]) -> T:
    """The dataclass `options` from parsed values by field name, groups built in turn."""
    hints = typing.get_type_hints(options, include_extras=True)
    given = {}
    for item in dataclasses.fields(options):  # type: ignore[arg-type]
        hint = hints[item.name]
        given[item.name] = build(hint, values) if is_group(hint) else values[item.name]
    return options(**given)


# ---- options shared by several commands ------------------------------------------------------

OptionArg = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", metavar="KEY=VALUE",
                 help="Variant option KEY=VALUE (repeatable); see `arena games`."),
]
PlayersArg = Annotated[
    int | None, typer.Option("--players", "-p", help="Number of seats (default: the game's minimum).")
]
TimePerMoveArg = Annotated[str | None, typer.Option(
    "--time-per-move", metavar="TIME", help="Limit per decision, e.g. 0.5, 2s, 500ms (default 5s when no "
    "--clock); one per bot, in the order the bots are named, separated by ':' for a handicap (1s:200ms).")]
ClockArg = Annotated[str | None, typer.Option(
    "--clock", metavar="BASE+INC",
    help="Game clock BASE+INC in seconds, e.g. 60+0.5; one per bot separated by ':' (60+1:30+0.5).")]
TimeBasisArg = Annotated[str, typer.Option(
    "--time-basis", metavar="wall|cpu", help="What the limits count: wall (real time from request to answer, the "
    "default; for real-time contests on a quiet machine) or cpu (the CPU time of the bot's own processes, with a "
    "wall backstop of 10x the limit + 1 s; results that do not depend on the machine's load).")]
StartupArg = Annotated[str, typer.Option("--startup-time", metavar="TIME", help="Time a bot has to answer hello.")]
GraceArg = Annotated[str, typer.Option("--grace", metavar="TIME", help="Allowance for pipe latency before a time-out.")]
OutArg = Annotated[Path | None, typer.Option("--out", metavar="FILE", help="Append every game's record to this file.")]
EventArg = Annotated[str | None, typer.Option(
    "--event", metavar="NAME", help="The Event tag of every record (default: the command's name, e.g. arena play).")]
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
DealsArg = Annotated[Deals, typer.Option(
    "--deals", metavar="duplicate|fresh",
    help="duplicate: the games of a seat rotation share one seed, so every bot meets the same dice and hands from "
    "every seat and luck cancels; fresh: every game has a seed of its own, so no deal is ever played twice (for "
    "hidden hands, where a bot's process could pass what it saw to a later one; luck no longer cancels: play more "
    "games). Seats rotate and openings go by rotation either way; docs/matches.md.")]
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
ReadOnlyArg = Annotated[list[Path] | None, typer.Option(
    "--ro", metavar="PATH", help="A file or folder outside the bots' own folders their sandboxes show them, "
    "read-only (repeatable): a file their commands name, a book, weights.")]
LogProtocolArg = Annotated[bool, typer.Option(
    "--log-protocol", help="Write every line each way between the referee and each bot, with a timestamp, the game "
    "and the ply, to BOT.protocol.log in the log folder (kept after the match).")]
OpeningsArg = Annotated[Path | None, typer.Option(
    "--openings", metavar="FILE", help="Start the games from the openings of FILE, one a line (docs/openings.md), "
    "each in turn, each played from every seat.")]
RandomOpeningArg = Annotated[int, typer.Option(
    "--random-opening", min=0, max=1000, metavar="N",
    help="Start each seat rotation from its own N plies drawn at random from the legal actions (with the seed).")]
OpeningsOrderArg = Annotated[OpeningOrder, typer.Option(
    "--openings-order", metavar="ORDER",
    help="sequential: the openings in the file's order; random: shuffled with the match's seed, so the same seed "
    "gives the same order (fastchess -openings order=random).")]
OpeningsStartArg = Annotated[int, typer.Option(
    "--openings-start", min=1, metavar="N",
    help="The first seat rotation takes the Nth opening (1-based, after the shuffle with --openings-order random), "
    "the next one the N+1th... (fastchess -openings start=N).")]
JsonArg = Annotated[bool, typer.Option(
    "--json", help="Print one JSON document on stdout (results, faults, figures) and nothing else there; "
    "progress and messages go to stderr.")]


# ---- groups: options that go together ---------------------------------------------------------


@dataclass(frozen=True)
class Seeds:
    """--seed and --bot-seed of a match (each drawn at random when not given), and how
    chance is dealt (--deals)."""

    PANEL: ClassVar[str] = "Seeds"

    seed: MatchSeedArg = None
    bot_seed: BotSeedArg = None
    deals: DealsArg = "duplicate"


@dataclass(frozen=True)
class Times:
    """The time controls of a match: per move or a clock, one for all or one per bot.
    The command line's texts become TimeControls here, where they enter, and nowhere
    after (TimeControlError names the option)."""

    PANEL: ClassVar[str] = "Time"

    time_per_move: TimePerMoveArg = None
    clock: ClockArg = None
    time_basis: TimeBasisArg = "wall"
    startup_time: StartupArg = "10s"
    grace: GraceArg = "20ms"

    def controls(self, bots: int) -> tuple[TimeControl, ...]:
        """Each bot's time control, in the order the bots are named, from
        --time-per-move and --clock, each one value for every bot or one per bot
        separated by ':' (`1s:200ms`: a handicap match); () when neither is given (the
        request's default: 5 s a decision, no limit for a person)."""
        if self.time_per_move is None and self.clock is None:
            return ()
        per_moves = [bare_seconds_checked(p, "--time-per-move") for p in _per_bot(self.time_per_move, bots,
                                                                                  "--time-per-move")]
        clocks = _per_bot(self.clock, bots, "--clock")
        return tuple(TimeControl.parse(p, c) for p, c in zip(per_moves, clocks, strict=True))

    def timing(self) -> Timing:
        """--startup-time and --grace."""
        return Timing(startup_s=parse_seconds(self.startup_time, "--startup-time"),
                      grace_s=parse_seconds(self.grace, "--grace"))

    def basis(self) -> Basis:
        """--time-basis."""
        return parse_basis(self.time_basis)


BARE_SECONDS_LIMIT = 10.0
"""A bare number of at least this many seconds for a per-move limit is more likely
milliseconds written without a unit (`--time-per-move 100`) than 100 s a move."""


def bare_seconds_checked(text: str | None, option: str) -> str | None:
    """A per-move limit as given, unless it is a bare number of 10 or more: that asks
    for its unit, since 100 without one is 100 s a move, not 100 ms."""
    if text is None:
        return None
    raw = text.strip()
    try:
        value = float(raw)
    except ValueError:
        return text
    if BARE_SECONDS_LIMIT <= value <= MAX_SECONDS:  # beyond a week the time's own check says more
        raise TimeControlError(f"{option} {excerpt(text)}: a number without a unit is seconds, so that is "
                               f"{raw} s a move; write {raw}s if you mean it, or {raw}ms for milliseconds")
    return text


def _per_bot(text: str | None, bots: int, option: str) -> list[str | None]:
    """An option's value for each of `bots` bots: the one given, or one each separated by ':'."""
    if text is None or ":" not in text:
        return [text] * bots
    parts = [part.strip() or None for part in text.split(":")]
    if len(parts) != bots:
        raise TimeControlError(f"{option} {excerpt(text)}: {len(parts)} values for {bots} bots; give one value for "
                               "all, or one per bot separated by ':' in the order the bots are named (e.g. 1s:200ms)")
    return parts


@dataclass(frozen=True)
class BotSetup:
    """How the bots run: their limits, their sandbox, and the registry naming them."""

    PANEL: ClassVar[str] = "Bots: limits, sandbox, registry"

    memory_mb: MemoryArg = DEFAULT_MEMORY_MB
    max_processes: MaxProcessesArg = DEFAULT_PROCESSES
    cpus: CpusArg = DEFAULT_CPUS
    scratch_mb: ScratchArg = DEFAULT_SCRATCH_MB
    no_sandbox: NoSandboxArg = False
    bots_file: BotsFileArg = None
    ro: ReadOnlyArg = None

    def limits(self) -> Limits:
        return Limits(memory_bytes=self.memory_mb << 20, processes=self.max_processes, sandbox=not self.no_sandbox,
                      cpus=self.cpus, scratch_bytes=self.scratch_mb << 20)


@dataclass(frozen=True)
class Openings:
    """Where the games start: an openings file, or random plies."""

    PANEL: ClassVar[str] = "Openings"

    openings: OpeningsArg = None
    openings_order: OpeningsOrderArg = "sequential"
    openings_start: OpeningsStartArg = 1
    random_opening: RandomOpeningArg = 0


class MatchGroups(Protocol):
    """What `arena play` and `arena match` share: the game, the length, the groups."""

    @property
    def game_id(self) -> str: ...
    @property
    def games(self) -> int: ...
    @property
    def seeds(self) -> Seeds: ...
    @property
    def times(self) -> Times: ...
    @property
    def option(self) -> list[str] | None: ...
    @property
    def setup(self) -> BotSetup: ...
    @property
    def book(self) -> Openings: ...


def event_tag(given: str | None, default: str) -> str:
    """The records' Event tag: --event as given (checked), else the command's name."""
    if given is None:
        return default
    if not given.strip() or len(given) > 200 or not given.isprintable():
        raise typer.BadParameter("give the records' Event tag as printable text of 1 to 200 characters",
                                 param_hint="--event")
    return given


def match_request(options: MatchGroups, bots: list[str], **more: Any) -> MatchRequest:
    """The library's request for a match from a command's options (`more`: the rest of
    MatchRequest's fields); TimeControlError for a time option that cannot be understood."""
    seeds, times, book = options.seeds, options.times, options.book
    return MatchRequest(options.game_id, bots, options.games, seed=seeds.seed, bot_seed=seeds.bot_seed,
                        deals=seeds.deals, options=options.option or (), time_controls=times.controls(len(bots)),
                        timing=times.timing(), time_basis=times.basis(),
                        limits=options.setup.limits(),
                        registry=options.setup.bots_file, openings=book.openings, random_opening=book.random_opening,
                        openings_order=book.openings_order, openings_start=book.openings_start,
                        ro_paths=tuple(options.setup.ro or ()), **more)
