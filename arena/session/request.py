"""A match as a person asks for it (MatchRequest: names and texts, as typed) and as the
referee plays it (PreparedMatch: the game, the bots' specs, the config). `prepare_match`
turns one into the other with every check made before a bot starts, in the same order
and with the same words for `arena play` and `arena.play`."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.games.base import Game
from arena.people.seat import Person
from arena.process.folder_checks import check_bots
from arena.process.secret import installation_key
from arena.process.spec import BotSpec, Limits
from arena.referee.match import MatchConfig
from arena.referee.openings import ORDERS, Opening, OpeningError, arrange_openings
from arena.referee.player import Timing
from arena.referee.seeds import DEALS, Deals, random_seed
from arena.session.inprocess import inprocess_launcher
from arena.session.setup import (
    SetupError,
    check_basis,
    lineup,
    load_game,
    load_registry,
    openings_from,
    parse_options,
    prepare_log_dir,
    prepare_out_file,
    resolve_options,
    seat_time_controls,
)
from arena.timecontrol import Basis, TimeControl

Notes = Callable[[str], None]
"""Where a preparation says what this machine cannot enforce (a warning, not an error)."""


@dataclass(frozen=True)
class MatchRequest:
    """What a match is to be, as given: ids, names and texts the preparation checks."""

    game: str
    bots: Sequence[str | BotSpec]
    games: int = 1
    seed: int | None = None
    """Seed for chance; None draws one (recorded in each record's Seed tag)."""
    bot_seed: int | None = None
    """Seed the bots' seeds (BotSpec.bot_seed: ARENA_BOT_SEED) derive from; None draws one."""
    options: Sequence[str] | Mapping[str, str] = ()
    """Variant options: KEY=VALUE items or a mapping."""
    time_controls: tuple[TimeControl, ...] = ()
    """The time controls: one for every bot, or one per bot in the order the bots are
    named (a handicap); () is 5 s a decision for a bot, and no limit for a person. A
    bot's own control (a registry's) replaces it for that bot."""
    timing: Timing = Timing()
    """The start-up limit and the grace for pipe latency."""
    time_basis: Basis | None = None
    """"wall" or "cpu": what every bot's time control counts (the CPU time of its
    processes, or wall time); None keeps each control's own."""
    limits: Limits = Limits()
    registry: Path | None = None
    """A bot registry file; None looks for bots.toml in the current folder when
    `find_registry` is set."""
    find_registry: bool = True
    out: Path | None = None
    """The record file every finished game is appended to."""
    log_dir: Path | None = None
    """The bots' stderr logs; None: a temporary folder, removed when no game needs it."""
    log_protocol: bool = False
    openings: Path | None = None
    random_opening: int = 0
    openings_order: str = "sequential"
    """The order the openings are taken in: "sequential" (the file's) or "random" (shuffled
    with the match's seed), as fastchess's `-openings order=`."""
    openings_start: int = 1
    """The opening the first seat rotation takes (1-based), as fastchess's `start=`."""
    event: str = "arena play"
    people: bool = False
    """Whether `human` and `human-web` seat a person."""
    ro_paths: Sequence[Path | str] = ()
    """Files or folders outside the bots' own folders their sandboxes show them read-only
    (`--ro`): each must exist."""
    deals: Deals = "duplicate"
    """"duplicate": the games of a seat rotation (a pair) share one seed, so they see the
    same dice and deals; "fresh": every game has a seed of its own."""
    python_bots: Mapping[str, object] = field(default_factory=dict)
    """The Python bots of a library call (arena.session.inprocess), by the key their
    spec in `bots` names: played in this process, without a sandbox."""


@dataclass
class PreparedMatch:
    """A checked match, ready to play: the game, its bots and the referee's config."""

    game: Game
    options: dict[str, str]
    specs: list[BotSpec]
    config: MatchConfig
    out: Path | None
    logs: Path
    own_logs: bool
    """Whether `logs` is a temporary folder of ours (removed when no game needs it)."""
    keep_logs: bool
    people: dict[str, Person] = field(default_factory=dict)
    made_out: bool = False
    """Whether the record file was made for this match (it did not exist before)."""

    @property
    def basis(self) -> Basis:
        """What the match's time-outs are counted on: "cpu" when every seat's control
        is on the CPU basis, else "wall" (where the machine's load may decide a game)."""
        on_cpu = all(spec.time_control is not None and spec.time_control.on_cpu for spec in self.specs)
        return "cpu" if on_cpu else "wall"

    def discard_empty_records(self) -> bool:
        """After a match, however it ended: remove a record file made for it that no
        game was written to (an interrupted first game leaves no empty file behind);
        whether it was removed."""
        if self.out is None or not self.made_out:
            return False
        try:
            if self.out.stat().st_size == 0:
                self.out.unlink()
                return True
        except OSError:
            pass
        return False

    def discard_logs(self) -> None:
        """After a match that stopped early: remove a temporary log folder that holds
        no trace of an error of the arena."""
        if self.own_logs and not any(self.logs.glob("arena-*")):
            shutil.rmtree(self.logs, ignore_errors=True)


def prepare_match(request: MatchRequest, notes: Notes | None = None) -> PreparedMatch:
    """Check everything the request names, in the order a person reads it, and build
    the match; SetupError (or another ArenaError) names the first mistake. The record
    file and the log folder are made here, before any bot starts."""
    game = load_game(request.game)
    return prepare_variant(request, game, game_options(game, request.options), notes)


def prepare_variant(request: MatchRequest, game: Game, options: dict[str, str],
                    notes: Notes | None = None, book: tuple[Opening, ...] | None = None) -> PreparedMatch:
    """prepare_match for the request's `game` with its variant `options` resolved by
    the caller (a paired match needs them first, for its store): they are resolved once
    per request, and trusted here and by play_match (MatchConfig.prepared). `book`: the
    request's openings, where the caller has read them already (once per request too)."""
    seed = random_seed() if request.seed is None else request.seed
    people: dict[str, Person] = {}
    person_time = unhurried() if request.people and not request.time_controls else None
    if notes is not None:
        for note in isolation_notes(request.limits):
            notes(note)
    registry = load_registry(request.registry) if request.registry or request.find_registry else None
    bot_seed = random_seed() if request.bot_seed is None else request.bot_seed
    specs = lineup(game, request.bots, bot_seed, options, people if request.people else None, person_time,
                   registry, request.limits)
    allow_read_only(specs, request.ro_paths)
    check_bots(specs, request.limits, [p for p in (request.out, request.log_dir) if p is not None])
    seat_time_controls(specs, given_controls(request.time_controls or (TimeControl(),), len(specs)),
                       check_basis(request.time_basis))
    if _web_seats(people) > 1:
        raise SetupError("only one human-web seat per game: seat the other person with `human` (in the terminal)")
    if book is None:
        book = openings_from(request.openings, request.random_opening, game, len(specs), options)
    book = arranged_openings(request, book, seed)
    made_out = prepare_out_file(request.out) if request.out is not None else False
    own_logs = request.log_dir is None
    logs = Path(tempfile.mkdtemp(prefix="arena-logs-")) if request.log_dir is None else \
        prepare_log_dir(request.log_dir)
    config = MatchConfig(game, options, seed, request.games, event=request.event, log_dir=logs,
                         limits=request.limits, timing=request.timing, chance_key=installation_key(),
                         hidden=(request.out,) if request.out else (), log_protocol=request.log_protocol,
                         openings=book, random_opening=request.random_opening, deals=check_deals(request.deals),
                         prepared=True)
    if people:
        from arena.people.launch import people_launcher

        config = replace(config, launcher=people_launcher(people))
    if request.python_bots:
        config = replace(config, launcher=inprocess_launcher(request.python_bots, game.has_hidden_information,
                                                             config.launcher))
    return PreparedMatch(game, options, specs, config, request.out, logs, own_logs,
                         not own_logs or request.log_protocol, people, made_out)


def arranged_openings(request: MatchRequest, book: tuple[Opening, ...], seed: int) -> tuple[Opening, ...]:
    """The request's openings in the order its seat rotations take them (--openings-order,
    --openings-start); SetupError for an order or start that cannot be, or that has no
    openings file to arrange."""
    if (request.openings_order != "sequential" or request.openings_start != 1) and request.openings is None:
        raise SetupError("--openings-order and --openings-start arrange the openings of a file: give --openings FILE "
                         "(or --openings shipped) too")
    try:
        return arrange_openings(book, request.openings_order, request.openings_start, seed)
    except OpeningError as exc:
        option = "--openings-order" if request.openings_order not in ORDERS else "--openings-start"
        raise SetupError(f"{option}: {exc}") from None


def check_deals(deals: str) -> Deals:
    """A request's `deals`, checked (the library takes any text)."""
    for known in DEALS:
        if deals == known:
            return known
    raise SetupError(f"deals={deals!r}: write " + " or ".join(repr(d) for d in DEALS))


def allow_read_only(specs: list[BotSpec], paths: Sequence[Path | str]) -> None:
    """Show every bot the `paths` (--ro) read-only; SetupError for one that does not exist."""
    allowed = []
    for given in paths:
        path = Path(given).expanduser()
        if not path.exists():
            raise SetupError(f"--ro {given}: no such file or folder; give an existing path")
        allowed.append(str(path.resolve()))
    for spec in specs:
        spec.ro_paths = (*spec.ro_paths, *allowed)


def given_controls(controls: Sequence[TimeControl], bots: int) -> list[TimeControl]:
    """One time control for every bot, or one per bot in the order they are named."""
    if len(controls) == 1:
        return list(controls) * bots
    if len(controls) != bots:
        raise SetupError(f"{len(controls)} time controls for {bots} bots; give one for all, or one per bot in the "
                         "order the bots are named")
    return list(controls)


def _web_seats(people: dict[str, Person]) -> int:
    if not people:
        return 0
    from arena.people.web import WebPerson

    return sum(1 for person in people.values() if isinstance(person, WebPerson))


def game_options(game: Game, given: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """The variant options of a request (KEY=VALUE items or a mapping), checked."""
    if isinstance(given, Mapping):
        return resolve_options(game, given)
    return parse_options(game, given)


def unhurried() -> TimeControl:
    """A person's time when the request gives no time control."""
    from arena.people.launch import UNHURRIED

    return UNHURRIED


_noted: set[str] = set()


def isolation_notes(limits: Limits) -> list[str]:
    """What this machine cannot enforce of `limits` (a sandbox or cgroups that are
    wanted and missing), each said once per process."""
    from arena.process.cgroups import cgroup_support
    from arena.process.sandbox import probe

    notes = []
    if limits.sandbox and not probe().sandbox:
        notes.append(f"bots run without their sandbox: {probe().why}. They run as your user in their own process "
                     "groups; `arena doctor` says more")
    elif limits.sandbox and not probe().syscall_filter:
        missing = next((layer.detail for layer in probe().layers if layer.name == "system call filter"), "")
        notes.append(f"bots run without the system call filter: {missing}; `arena doctor` says more")
    if cgroup_support().version == 0:
        notes.append(f"limits hold per process, not per bot: {cgroup_support().why}")
    fresh = [note for note in notes if note not in _noted]
    _noted.update(fresh)
    return fresh
