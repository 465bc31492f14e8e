"""Playing a record's game again with the same chance (`arena rerun FILE --game N`).

A record holds what fixes its game's chance: the seed as given and the deal's number
(Seed and Cycle: the seat rotation with duplicate deals, the game's own number with
fresh deals, which also write the rotation in Rotation, whose seed draws a random
opening; a record made before Cycle existed holds the game's own seed in Seed), and
each seat's ARENA_BOT_SEED (BotSeeds). The chance generator is seeded with
that seed hashed with a secret key (arena/referee/seeds.py): the installation's, or a
league's own, kept in the league.sqlite beside its records. With the right key the
dice and deals are the record's; bots that are deterministic given ARENA_BOT_SEED then
play the game again move for move. With another key the chance differs, and the rerun
says so before it plays (a simulation of the record's chance draws with the key).
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena import games
from arena.errors import ArenaError, excerpt
from arena.games import GameError
from arena.games.base import CHANCE, Game
from arena.league.registry import Registry
from arena.process.folder_checks import check_bots
from arena.process.secret import SECRET_ENV, installation_key, secret_from_environment
from arena.process.spec import BotSpec, Limits
from arena.records.record import GameRecord
from arena.referee.match import MatchConfig, PlannedGame
from arena.referee.openings import Opening, random_opening_action, random_opening_rng
from arena.referee.referee import OPENING_COMMENT
from arena.referee.seeds import chance_seed, cycle_seed
from arena.session.setup import SetupError, load_registry, resolve_one, resolve_options
from arena.timecontrol import TimeControl, TimeControlError, parse_basis

LEAGUE_DATABASE = "league.sqlite"
"""A league's database, beside its records (league.pgn), holding its chance key."""


class RerunError(ArenaError, ValueError):
    """A record whose game cannot be played again as asked; the message says why."""


@dataclass(frozen=True)
class ChanceKey:
    """The secret key a rerun hashes the seed with, and where it came from."""

    key: bytes
    source: str


def chance_key_for(records: Path) -> ChanceKey:
    """The key a record file's games were most likely played with: the league's own
    when a league database lies beside the file, else $ARENA_SECRET, else this
    installation's key file."""
    database = records.parent / LEAGUE_DATABASE
    if database.is_file():
        key = league_secret(database)
        if key is not None:
            return ChanceKey(key, f"the league's own key ({database})")
    if secret_from_environment() is not None:
        return ChanceKey(installation_key(), f"${SECRET_ENV}")
    return ChanceKey(installation_key(), "this installation's key")


def league_secret(database: Path) -> bytes | None:
    """A league database's chance key, read without changing the database (None when
    it has none or cannot be read)."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()
    except sqlite3.Error:
        return None
    try:
        return bytes.fromhex(str(row[0])) if row else None
    except ValueError:
        return None


def game_seed(record: GameRecord) -> tuple[int, tuple[int, int] | None]:
    """The game's chance seed, and the seed as given with its deal number where the
    record has them (Seed and Cycle); a record without Cycle holds the game's seed
    itself."""
    try:
        seed = int(record.tags["Seed"])
        if "Cycle" not in record.tags:
            return seed, None
        cycle = int(record.tags["Cycle"])
    except KeyError:
        raise RerunError("the record has no Seed tag: its chance cannot be played again") from None
    except ValueError:
        raise RerunError(f"the record's Seed/Cycle tags ({excerpt(record.tags.get('Seed', ''))}, "
                         f"{excerpt(record.tags.get('Cycle', ''))}) are not whole numbers") from None
    return cycle_seed(seed, cycle), (seed, cycle)


def rotation_of(record: GameRecord) -> int | None:
    """The seat rotation of a game played with fresh deals (its Rotation tag), None
    without one (duplicate deals: its Cycle is its rotation)."""
    text = record.tags.get("Rotation")
    if text is None or "Cycle" not in record.tags:
        return None
    try:
        return int(text)
    except ValueError:
        raise RerunError(f"the record's Rotation tag ({excerpt(text)}) is not a whole number") from None


def opening_seed(record: GameRecord) -> int:
    """The seed a random opening was drawn from: its seat rotation's (Seed and
    Rotation with fresh deals), else the game's own."""
    seed, origin = game_seed(record)
    rotation = rotation_of(record)
    return seed if rotation is None or origin is None else cycle_seed(origin[0], rotation)


@dataclass(frozen=True)
class ChanceMismatch:
    """Where a key draws other chance than the record holds: the ply, the record's
    outcome and the key's."""

    ply: int
    recorded: str
    drawn: str


def chance_mismatch(record: GameRecord, key: bytes) -> ChanceMismatch | None:
    """The first ply whose chance outcome (or random opening ply) `key` would not draw,
    replaying the record's plies; None when every one agrees (or the game has none)."""
    game = games.get(record.game_id)
    seed = game_seed(record)[0]
    rng = random.Random(chance_seed(key, seed))
    opening_rng = random_opening_rng(key, opening_seed(record)) \
        if record.tags.get("Opening", "").startswith("random ") else None
    try:
        state = game.new_state(record.seats, record.options)
        for number, ply in enumerate(record.plies, 1):
            drawn: str | None = None
            if ply.chance and state.current() == CHANCE:
                drawn = state.sample_chance(rng)
            elif opening_rng is not None and ply.comment == OPENING_COMMENT:
                drawn = random_opening_action(state, opening_rng)
            if drawn is not None and drawn != ply.action:
                return ChanceMismatch(number, ply.action, drawn)
            state.apply(ply.action)
    except GameError as exc:
        raise RerunError(f"the record's plies do not replay ({exc}); run `arena verify` on it") from None
    return None


def time_controls(tag: str, seats: int) -> list[TimeControl]:
    """Each seat's time control from a TimeControl tag (`move=2s`, `clock=60s+0.5s`,
    both, or one per seat separated by ` / `)."""
    parts = [part.strip() for part in tag.split(" / ")] if tag else [""]
    if len(parts) not in (1, seats):
        raise RerunError(f"the TimeControl tag {excerpt(tag)} has {len(parts)} controls for {seats} seats")
    controls = [_control(part) for part in parts]
    return controls * seats if len(controls) == 1 else controls


_ITEM = re.compile(r"^(move|clock|basis|backstop)=(\S+)$")


def _control(text: str) -> TimeControl:
    if not text or text == "none":
        return TimeControl()
    per_move: str | None = None
    clock: str | None = None
    basis = "wall"
    for item in text.split():
        match = _ITEM.match(item)
        if match is None:
            raise RerunError(f"the TimeControl tag's {excerpt(item)} is not move=TIME or clock=BASE+INC: give "
                             "--time-per-move or --clock")
        key, value = match.group(1), match.group(2)
        if key == "move":
            per_move = value
        elif key == "clock":
            clock = value
        elif key == "basis":
            basis = value
    try:
        return TimeControl.parse(per_move, clock, basis=parse_basis(basis, "the TimeControl tag's basis"))
    except TimeControlError as exc:
        raise RerunError(f"the TimeControl tag: {exc}") from None


def opening_of(record: GameRecord) -> tuple[Opening | None, int]:
    """The record's opening: an explicit one (the leading plies marked `opening`) or
    the number of random plies (drawn again from the seed and key)."""
    tag = record.tags.get("Opening", "")
    if not tag:
        return None, 0
    if tag.startswith("random ") and tag[7:].isdigit():
        return None, int(tag[7:])
    actions = []
    for ply in record.plies:
        if ply.comment != OPENING_COMMENT:
            break
        actions.append(ply.action)
    return (Opening(tuple(actions), tag), 0) if actions else (None, 0)


_SUFFIX = re.compile(r"^(.+)-(\d+)$")


def record_bot(name: str, game: Game, registry: Registry | None, limits: Limits,
               named: Mapping[str, BotSpec] | None = None) -> BotSpec:
    """The bot a record's player name stands for: a league file's bot of that name
    (`named`), a registry's, or a shipped one's (`random-2`, the second `random` of a
    match, is `random`)."""
    if named is not None and name in named:
        spec = named[name]
        return replace(spec, command=list(spec.command), env=dict(spec.env))
    tried = [name]
    match = _SUFFIX.match(name)
    if match is not None:
        tried.append(match.group(1))
    for candidate in tried:
        if (registry is not None and candidate in registry) or _is_shipped(candidate, game):
            return replace(resolve_one(candidate, game, registry, limits), name=name)
    raise SetupError(f"{excerpt(name)} is neither a shipped bot nor in a bot registry (bots.toml, --bots)")


def _is_shipped(name: str, game: Game) -> bool:
    from arena.process.botnames import shipped_bots

    return name in shipped_bots(game.id)


@dataclass
class Rerun:
    """A record's game ready to be played again: its bots, config and chance key."""

    record: GameRecord
    game: Game
    specs: list[BotSpec]
    config: MatchConfig
    key: ChanceKey
    mismatch: ChanceMismatch | None

    def differences(self, played: GameRecord) -> tuple[int, str, str] | None:
        """The first ply where the game played again differs from the record (its
        number, the record's action, the new one; `-` where one game has ended), or None."""
        old, new = self.record.plies, played.plies
        for number in range(1, max(len(old), len(new)) + 1):
            a = old[number - 1].action if number <= len(old) else "-"
            b = new[number - 1].action if number <= len(new) else "-"
            if a != b:
                return number, a, b
        return None


def prepare_rerun(record: GameRecord, records: Path, bots: Sequence[str] = (), limits: Limits = Limits(),
                  registry_path: Path | None = None, control: TimeControl | None = None,
                  log_dir: Path | None = None, key: ChanceKey | None = None,
                  named: Mapping[str, BotSpec] | None = None) -> Rerun:
    """Everything to play `record`'s game again: the game, seats and options, the bots
    (given one per seat, else the record's names resolved as shipped bots or registry
    names, or `named`: a league file's bots by name), each seat's bot seed from
    BotSeeds, each seat's time control (the record's, or `control` for every seat: a
    bot's own control never replaces what the record says it played under), the
    opening, the seed, and the chance key (`chance_key_for` unless given); RerunError
    or SetupError names the first problem. The options are resolved and the bots
    checked here, once (MatchConfig.prepared)."""
    try:
        game = games.get(record.game_id)
        options = resolve_options(game, record.options)
        game.check_seats(record.seats, options)
    except GameError as exc:
        raise RerunError(f"the record's game cannot be set up: {exc}") from None
    seats = record.seats
    registry = load_registry(registry_path)
    if bots and len(bots) != seats:
        raise SetupError(f"the game has {seats} seats: name one bot per seat, in seat order, or none to use the "
                         f"record's ({', '.join(record.players)})")
    specs = []
    for seat, name in enumerate(record.players):
        try:
            spec = resolve_one(bots[seat], game, registry, limits) if bots else \
                record_bot(name, game, registry, limits, named)
        except SetupError as exc:
            example = " ".join(_hint(p) for p in record.players)
            raise SetupError(f"seat {seat} ({excerpt(name)}): {exc}; give the league file (--league FILE.toml), or "
                             f"name the bots after the file, one per seat in seat order (the record's: {example})"
                             ) from None
        specs.append(replace(spec, bot_seed=_bot_seed(record, seat), named=True))
    controls = [control] * seats if control is not None else time_controls(record.tags.get("TimeControl", ""), seats)
    for spec, played in zip(specs, controls, strict=True):
        spec.time_control = played
    seed, origin = game_seed(record)
    opening, random_plies = opening_of(record)
    key = key or chance_key_for(records)
    round_tag = record.tags.get("Round", "1")
    plan = (PlannedGame(tuple(range(seats)), seed, round_tag, opening, origin, match_game_of(round_tag),
                        rotation_of(record)),)
    check_bots(specs, limits, [log_dir] if log_dir is not None else [])
    config = MatchConfig(game, options, seed, 1, event="arena rerun", log_dir=log_dir, limits=limits,
                         plan=plan, chance_key=key.key, random_opening=random_plies, prepared=True)
    return Rerun(record, game, specs, config, key, chance_mismatch(record, key.key))


def match_game_of(round_tag: str) -> int:
    """The `match_game` a game's bots were told, from its Round tag: game N of a match
    (`N`) was match game N - 1; game P of a league's table T (`T.P`), P - 1."""
    last = round_tag.rsplit(".", 1)[-1]
    return int(last) - 1 if last.isdigit() and int(last) > 0 else 0


def _bot_seed(record: GameRecord, seat: int) -> int | None:
    """Seat `seat`'s bot seed from the BotSeeds tag (None when it has none)."""
    seeds = record.tags.get("BotSeeds", "").split(",")
    value = seeds[seat].strip() if seat < len(seeds) else ""
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise RerunError(f"the record's BotSeeds tag holds {excerpt(value)} for seat {seat}, not a whole number"
                         ) from None


def _hint(name: str) -> str:
    return name if re.fullmatch(r"[\w./-]+", name) else f'"{name}"'
