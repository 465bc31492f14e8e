"""Openings, like cutechess's and fastchess's -openings: games that have no chance are
made to differ by starting them from given positions.

An opening file holds one opening a line: the game's actions from the start, separated
by spaces (an action with spaces in it in double quotes), optionally after the filters
`game=ID` and `seats=N`; blank lines and lines starting with `#` are skipped (format:
docs/openings.md). `--random-opening N` instead draws the first N plies uniformly from
the legal actions with the game's seed. A match or league plays each opening once per
seat rotation, so every bot plays it from every seat: in the file's order, or shuffled
with the match's seed (fastchess's `order=random`), from the `start`th (`start=N`)."""

from __future__ import annotations

import hashlib
import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.errors import ArenaError, excerpt
from arena.files import unreadable
from arena.games.base import CHANCE, Game, GameError, State


class OpeningError(ArenaError, ValueError):
    """An opening file that cannot be used; the message names the line and the fix."""


@dataclass(frozen=True)
class Opening:
    """An opening's actions, and its name in the record's Opening tag."""

    actions: tuple[str, ...]
    name: str


MAX_OPENINGS = 100_000


def parse_openings(text: str, game: Game, seats: int, options: dict[str, str], source: str) -> list[Opening]:
    """The openings of a file's text that apply to this game and seat count, each
    checked by playing it from the start (OpeningError names the first bad line)."""
    found: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            tokens = shlex.split(line)
        except ValueError as exc:
            raise OpeningError(f"{source} line {number}: {exc} (quote an action with spaces in double quotes)") \
                from None
        wanted_game, wanted_seats = None, None
        while tokens and tokens[0].startswith(("game=", "seats=")):
            key, _, value = tokens.pop(0).partition("=")
            if key == "game":
                wanted_game = value
            elif not value.isdigit():
                raise OpeningError(f"{source} line {number}: seats={excerpt(value)} is not a number")
            else:
                wanted_seats = int(value)
        if (wanted_game is not None and wanted_game != game.id) or (wanted_seats is not None and
                                                                     wanted_seats != seats):
            continue
        if not tokens:
            raise OpeningError(f"{source} line {number}: no actions; write the game's actions from the start")
        _check_playable(tokens, game, seats, options, f"{source} line {number}")
        found.append(Opening(tuple(tokens), _join(tokens)))
        if len(found) > MAX_OPENINGS:
            raise OpeningError(f"{source}: more than {MAX_OPENINGS} openings")
    if not found:
        raise OpeningError(f"{source}: no opening for {game.id} with {seats} seats (lines may start with game= and "
                           "seats= filters; see docs/openings.md)")
    return found


SHIPPED = "shipped"
"""`--openings shipped`: the arena's own opening file of the game (bots/openings/)."""


def shipped_openings(game: Game) -> Path:
    import bots

    return Path(str(bots.__file__)).resolve().parent / "openings" / f"{game.id}.txt"


def _join(actions: Sequence[str]) -> str:
    """The actions as a file line writes them: one with a space in it in double quotes."""
    return " ".join(f'"{a}"' if any(c.isspace() or c in "\"'\\" for c in a) else a for a in actions)


def load_openings(path: Path, game: Game, seats: int, options: dict[str, str]) -> list[Opening]:
    """The openings of an opening file (or of the shipped one, for `shipped`) for this
    game and seat count."""
    if str(path) == SHIPPED:
        path = shipped_openings(game)
        if not path.is_file():
            raise OpeningError(f"the arena ships no openings for {game.id} (only for games without chance: "
                               "btt, treeblox, blox); give your own file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            raise OpeningError(f"{path}: not UTF-8 text; save the file as UTF-8") from None
        raise OpeningError(unreadable(path, exc, "opening file", "openings.txt")) from None
    return parse_openings(text, game, seats, options, str(path))


def _check_playable(actions: Sequence[str], game: Game, seats: int, options: dict[str, str], where: str) -> None:
    state = game.new_state(seats, options)
    for ply, action in enumerate(actions, 1):
        if state.is_terminal():
            raise OpeningError(f"{where}: the game is over before its ply {ply} ({excerpt(action)})")
        try:
            state.apply(action)
        except GameError as exc:
            raise OpeningError(f"{where}: ply {ply}: {exc}") from None
    if state.is_terminal():
        raise OpeningError(f"{where}: the opening ends the game; an opening must leave moves to play")


OpeningOrder = Literal["sequential", "random"]
ORDERS: tuple[OpeningOrder, ...] = ("sequential", "random")


def check_order(order: str) -> OpeningOrder:
    """An order as given (a league file's or the library's text), checked."""
    for known in ORDERS:
        if order == known:
            return known
    raise OpeningError(f"{excerpt(order)} is not an order of openings; write sequential (the file's order) or "
                       "random (shuffled with the match's seed)")


def arrange_openings(book: Sequence[Opening], order: str, start: int, seed: int) -> tuple[Opening, ...]:
    """The openings in the order the seat rotations take them, as fastchess's `order=`
    and `start=`: the book as written (sequential) or shuffled by the match's `seed`
    (random: the same seed, the same order, so a resumed match keeps it), then begun
    at its `start`th opening (1-based), the ones before it coming after the last."""
    chosen = check_order(order)
    if not book:
        return ()
    if not 1 <= start <= len(book):
        raise OpeningError(f"the book has {len(book)} opening(s) for this game, so {start} is none of them; give 1 "
                           f"to {len(book)}")
    arranged = list(book)
    if chosen == "random":
        digest = hashlib.sha256(b"openings order" + seed.to_bytes(16, "big", signed=True)).digest()
        random.Random(int.from_bytes(digest[:8], "big")).shuffle(arranged)
    return tuple(arranged[start - 1:] + arranged[:start - 1])


def random_opening_rng(chance_key: bytes, seed: int) -> random.Random:
    """The generator of a game's random opening: from its seed (the games of a seat
    rotation share it, and so their opening) and the secret key, apart from the dice."""
    digest = hashlib.sha256(chance_key + b"opening" + seed.to_bytes(16, "big", signed=True)).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def random_opening_action(state: State, rng: random.Random) -> str | None:
    """One ply of a random opening: a legal action drawn uniformly (None at a chance
    decision: the referee's own chance draws it)."""
    if state.current() == CHANCE:
        return None
    legal = state.legal_actions()
    return rng.choice(legal) if legal else None
