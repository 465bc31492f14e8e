"""The game registry: every game the arena knows, by id."""

from __future__ import annotations

import importlib

from arena.errors import excerpt
from arena.games.base import CHANCE, TERMINAL, Game, GameError, IllegalAction, Option, Result, State

__all__ = ["CHANCE", "TERMINAL", "Game", "GameError", "IllegalAction", "Option", "Result", "State",
           "GAMES", "get_game"]

_GAME_CLASSES = (
    ("arena.games.treeblox", "Treeblox"),
    ("arena.games.the_tree", "TheTree"),
    ("arena.games.roots", "Roots"),
    ("arena.games.blox", "Blox"),
    ("arena.games.btt", "BTT"),
)
"""Where each game's class lives, in the order `arena games` lists them."""


def _registry() -> dict[str, Game]:
    games: list[Game] = []
    for module_name, class_name in _GAME_CLASSES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # a game still being written in this checkout
            raise
        games.append(getattr(module, class_name)())
    return {g.id: g for g in games}


GAMES: dict[str, Game] = _registry()


def get_game(game_id: str) -> Game:
    """The game with this id; a GameError naming the known ids otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise GameError(f"unknown game {excerpt(game_id)} (games: {', '.join(sorted(GAMES))})") from None
