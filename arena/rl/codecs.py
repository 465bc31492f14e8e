"""Which codec a game gets, found from the registry alone: its own, when a module
arena/rl/<module_name>.py exports `CODEC` (a Codec class), else the generic one built
from what the game declares (arena/rl/generic.py). No list of games to keep."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from functools import lru_cache

from arena import games
from arena.games import Game
from arena.rl.generic import GenericCodec
from arena.rl.spec import Codec

Maker = Callable[[int, Mapping[str, str]], Codec]


def own_codec(game: Game) -> Maker | None:
    """The game's hand-made codec class, None when it has none (a module of that name
    that exports no CODEC is another module of the package, not a codec)."""
    name = f"arena.rl.{game.module_name}"
    if importlib.util.find_spec(name) is None:
        return None
    made: Maker | None = getattr(importlib.import_module(name), "CODEC", None)
    return made


def codec(game_id: str, seats: int | None = None, options: Mapping[str, str] | None = None) -> Codec:
    """The codec of a game for `seats` (default: the fewest it allows) and options
    (defaults filled in); GameError for a bad game, seat count or option, or a game
    without a codec (neither its own nor an `action_space`)."""
    game = games.get(game_id)
    resolved = game.resolve_options({k: str(v) for k, v in (options or {}).items()})
    count = game.min_seats if seats is None else seats
    game.check_seats(count, resolved)
    return _cached(game, count, tuple(sorted(resolved.items())))


@lru_cache(maxsize=64)
def _cached(game: Game, seats: int, options: tuple[tuple[str, str], ...]) -> Codec:
    """Keyed by the game itself, so a game registered again under the same id (a
    test's) gets a codec of its own."""
    made = own_codec(game)
    if made is None:
        return GenericCodec(game, seats, dict(options))
    return made(seats, dict(options))
