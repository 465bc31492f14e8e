"""From what a person names to a match the referee can play: a game id and its variant
options, the bots (registry names, shipped names, command lines, people), their time
controls and seeds, openings, and the files a match writes. Every mistake is a
SetupError whose message names the problem and the fix, raised before any bot starts;
the command line and the library (arena.session.api) share these checks word for word."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from arena import games
from arena.errors import ArenaError, excerpt
from arena.files import FolderError, writable_folder
from arena.games import GameError
from arena.games.base import Game, State
from arena.lazy import public
from arena.league.registry import Registry, RegistryError, find_registry
from arena.people.seat import Person
from arena.process.botfolder import BotFolderError
from arena.process.botnames import BotNameError, resolve_bot
from arena.process.spec import BotSpec, Limits
from arena.referee.openings import Opening, OpeningError, load_openings
from arena.referee.seeds import derived_bot_seed
from arena.timecontrol import BASES, Basis, TimeControl, TimeControlError


@public
class SetupError(ArenaError, ValueError):
    """A mistake in what was asked for (a game, option, bot, time or file); nothing was
    played. The message names the problem and the fix."""


SETUP_MISTAKES = (BotFolderError, TimeControlError)
"""Errors of lower layers that are mistakes in what was asked for, found before any
bot starts: a bot's folder that would hold the arena's output or lacks a file its
command names (arena.process, below this layer, cannot raise SetupError itself), and a
time control that is not one."""


@contextmanager
def as_setup_error() -> Iterator[None]:
    """The library's door: a SETUP_MISTAKES error comes out as the SetupError
    docs/library.md promises, with the same message."""
    try:
        yield
    except SETUP_MISTAKES as exc:
        raise SetupError(str(exc)) from None


def load_game(game_id: str) -> Game:
    """The game with this id."""
    try:
        return games.get(game_id)
    except GameError as exc:
        raise SetupError(f"{exc}; `arena games` lists them") from None


def parse_options(game: Game, given: Iterable[str] | None) -> dict[str, str]:
    """The game's variant options, defaults filled in, from KEY=VALUE items."""
    options: dict[str, str] = {}
    for item in given or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SetupError(f"--option {item!r} must be KEY=VALUE, e.g. --option board=rect")
        options[key.strip()] = value.strip()
    return resolve_options(game, options)


def resolve_options(game: Game, given: Mapping[str, str]) -> dict[str, str]:
    """Every variant option of `game` with its value: the given ones checked, the
    others at their defaults."""
    try:
        return game.resolve_options(given)
    except GameError as exc:
        raise SetupError(str(exc)) from None


def new_state(game: Game, players: int | None, options: dict[str, str]) -> State:
    """The initial state for `players` seats (default: the game's fewest)."""
    seats = players if players is not None else game.min_seats
    try:
        return game.new_state(seats, options)
    except GameError as exc:
        raise SetupError(f"{exc}; set --players") from None


def load_registry(path: Path | None) -> Registry | None:
    """The bot registry: the file given, or bots.toml in the current folder if any."""
    try:
        return find_registry(path)
    except RegistryError as exc:
        raise SetupError(str(exc)) from None


def lineup(game: Game, bots: Sequence[str | BotSpec], bot_seed: int, options: Mapping[str, str] | None = None,
           people: dict[str, Person] | None = None, person_time: TimeControl | None = None,
           registry: Registry | None = None, limits: Limits | None = None) -> list[BotSpec]:
    """The bots of a match, one per seat, in the order named. Each gets its own
    `bot_seed` (its ARENA_BOT_SEED), derived from `bot_seed` and its place (independent
    of the chance seed), so seeded bots reproduce a match without all playing the same
    choices.
    `options` are resolved ones, for games whose seat count depends on a variant. Where
    `people` is given, `human` and `human-web` seat a person (added to it) with
    `person_time`. A name in `registry` is that bot, its own limits on top of `limits`;
    a BotSpec is taken as it is (a copy)."""
    specs = []
    for index, bot in enumerate(bots):
        if isinstance(bot, BotSpec):
            spec = replace(bot, command=list(bot.command), env=dict(bot.env))
        elif people is not None and bot.strip() in _people_names() and not (registry and bot.strip() in registry):
            specs.append(_seat_person(bot.strip(), str(index), people, person_time))
            continue
        else:
            spec = _resolve(bot, game, registry, limits)
        spec.bot_seed = derived_bot_seed(str(bot_seed).encode(), index)
        specs.append(spec)
    if len(specs) == 1 and game.min_seats > 1:
        raise SetupError(f"{game.id} needs at least {game.min_seats} bots; name one per seat")
    try:
        game.check_seats(len(specs), options)
    except GameError as exc:
        raise SetupError(f"{exc}: name one bot per seat") from None
    return specs


def _resolve(text: str, game: Game, registry: Registry | None, limits: Limits | None) -> BotSpec:
    """One bot by name: a registry's, a shipped bot's, or a command line."""
    try:
        if registry is not None and text.strip() in registry:
            return registry.spec(text.strip(), game.id, limits or Limits())
        return resolve_bot(text, game.id, others=registry.entries if registry is not None else ())
    except (RegistryError, BotNameError) as exc:
        raise SetupError(str(exc)) from None


def resolve_one(text: str, game: Game, registry: Registry | None, limits: Limits) -> BotSpec:
    """The bot `text` names for `game` (a registry name, a shipped bot's name or a
    command line), without a seed: for playing one bot alone (`arena check`)."""
    return _resolve(text, game, registry, limits)


def _people_names() -> tuple[str, ...]:
    from arena.people.launch import PEOPLE

    return PEOPLE


def _seat_person(name: str, key: str, people: dict[str, Person], time: TimeControl | None) -> BotSpec:
    from arena.people.launch import person_spec
    from arena.people.terminal import TerminalPerson
    from arena.people.web import WebPerson

    people[key] = TerminalPerson(name) if name == "human" else WebPerson(name)
    return person_spec(name, key, time)


def seat_time_controls(specs: list[BotSpec], controls: Sequence[TimeControl], basis: Basis | None = None) -> None:
    """Give every bot its time control: its own where it has one (a registry's: a
    handicap), else the one for its place in `controls`. A `basis` holds for every
    control, a bot's own too."""
    for spec, control in zip(specs, controls, strict=True):
        chosen = spec.time_control or control
        spec.time_control = chosen if basis is None else chosen.on(basis)


def check_basis(basis: str | None) -> Basis | None:
    """A request's time basis, checked (the library takes any text); None: each
    control's own."""
    if basis is None:
        return None
    for known in BASES:
        if basis == known:
            return known
    raise SetupError(f"time_basis={excerpt(basis)} is not a time basis; give 'wall' or 'cpu'")


def openings_from(path: Path | None, random_plies: int, game: Game, seats: int,
                  options: dict[str, str]) -> tuple[Opening, ...]:
    """The openings of a file, checked against the game."""
    if path is not None and random_plies:
        raise SetupError("give --openings FILE or --random-opening N, not both")
    if path is None:
        return ()
    try:
        return tuple(load_openings(path, game, seats, options))
    except OpeningError as exc:
        raise SetupError(str(exc)) from None


def check_out_file(path: Path, option: str = "--out") -> None:
    """Before anything is played: the record file can be appended to, or created in an
    existing, writable folder; and an existing file looks like records, not something
    else that appending would spoil."""
    try:
        _check_out_file(path, option)
    except OSError as exc:
        raise SetupError(f"{option} {excerpt(str(path), 200)}: {exc.strerror or exc}; choose another path") from None


def _check_out_file(path: Path, option: str) -> None:
    if path.is_dir():
        raise SetupError(f"{option} {path}: is a folder; give a file name such as {path / 'games.pgn'}")
    folder = path.parent
    if not folder.is_dir():
        raise SetupError(f"{option} {path}: the folder {folder} does not exist; create it (mkdir -p {folder}) "
                         "or choose another path")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise SetupError(f"{option} {path}: the file is not writable; choose another path")
        try:
            with path.open("rb") as handle:
                head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        except OSError as exc:
            raise SetupError(f"{option} {path}: cannot read it ({exc.strerror}); choose another path") from None
        if head and not head.startswith(b"["):
            raise SetupError(f"{option} {path}: the file exists and does not hold game records; appending would "
                             "spoil it: choose another path")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise SetupError(f"{option} {path}: the folder {folder} is not writable; choose another path")


def prepare_out_file(path: Path, option: str = "--out") -> bool:
    """Check the record file and create it before any bot starts, so that the bots'
    sandboxes mask it; whether it was made here (and may go again if no game is
    written to it)."""
    check_out_file(path, option)
    made = not path.exists()
    path.touch()
    return made


def prepare_log_dir(path: Path, option: str = "--log-dir") -> Path:
    """Create the bots' log folder (and its parents) before anything is played."""
    try:
        return writable_folder(path)
    except FolderError as exc:
        raise SetupError(f"{option} {path}: the folder {exc}; choose another folder") from None
