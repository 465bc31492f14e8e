"""The game registry: every game the arena knows, by id, each imported only when it is
asked for (a bot pays for its own game, not for all five), and never hiding an import
error: a game module that fails to import fails loudly.

A game is registered once, here (a line of `_GAME_CLASSES`, or `GAMES[game.id] = game`
for a game made elsewhere); everything else finds it through the registry and its own
attributes: the RL codec and the OpenSpiel game (arena/rl), the drawings
(arena/render, with a default for a game without its own), `arena check` and
`arena bench`."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator, MutableMapping

from arena.errors import excerpt
from arena.games.base import CHANCE, TERMINAL, Game, GameError, IllegalAction, Option, Result, State

__all__ = ["CHANCE", "TERMINAL", "Game", "GameError", "IllegalAction", "Option", "Result", "State",
           "GAMES", "GAME_IDS", "get"]

_GAME_CLASSES = (
    ("treeblox", "arena.games.treeblox", "Treeblox"),
    ("the-tree", "arena.games.the_tree", "TheTree"),
    ("roots", "arena.games.roots", "Roots"),
    ("blox", "arena.games.blox", "Blox"),
    ("btt", "arena.games.btt", "BTT"),
)
"""Each game's id and where its class lives, in the order `arena games` lists them."""

GAME_IDS = tuple(game_id for game_id, _, _ in _GAME_CLASSES)


class GameRegistry(MutableMapping[str, Game]):
    """Games by id, loaded on first use. A game made elsewhere (a test's) is added with
    `GAMES[game.id] = game`, listed after the arena's games, and removed with `del`."""

    def __init__(self) -> None:
        self._where = {game_id: (module, name) for game_id, module, name in _GAME_CLASSES}
        self._order = list(GAME_IDS)
        self._loaded: dict[str, Game] = {}

    def __getitem__(self, game_id: str) -> Game:
        if game_id in self._loaded:
            return self._loaded[game_id]
        module_name, class_name = self._where[game_id]  # KeyError for an unknown id
        game: Game = getattr(importlib.import_module(module_name), class_name)()
        if game.id != game_id:
            raise RuntimeError(f"{module_name}.{class_name} has id {game.id!r}, registered as {game_id!r}")
        self._loaded[game_id] = game
        return game

    def __setitem__(self, game_id: str, game: Game) -> None:
        if game.id != game_id:
            raise GameError(f"{type(game).__name__} has id {game.id!r}, registered as {game_id!r}")
        if game_id not in self._order:
            self._order.append(game_id)
        self._loaded[game_id] = game

    def __delitem__(self, game_id: str) -> None:
        if game_id not in self._order:
            raise KeyError(game_id)
        self._loaded.pop(game_id, None)
        if game_id not in self._where:
            self._order.remove(game_id)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._order


GAMES = GameRegistry()


def module_name_of(game_id: str) -> str:
    """The name of a game's companion modules (`Game.module_name`); for an id no game
    is registered under (a record of a game this arena lacks), the id with `_` for `-`."""
    return GAMES[game_id].module_name if game_id in GAMES else game_id.replace("-", "_")


def get(game_id: str) -> Game:
    """The game with this id (`arena.games.get("btt").new_state(2)`); a GameError naming
    the known ids otherwise."""
    if game_id not in GAMES:
        raise GameError(f"unknown game {excerpt(game_id)} (games: {', '.join(sorted(GAMES))})")
    return GAMES[game_id]


def get_game(game_id: str) -> Game:
    """Deprecated: `get`, the one name of this function (bots written before it)."""
    warnings.warn("arena.games.get_game is deprecated: call arena.games.get", DeprecationWarning, stacklevel=2)
    return get(game_id)
