"""The game registry: every game the arena knows, by id."""

from __future__ import annotations

from arena.games.base import CHANCE, TERMINAL, Game, GameError, IllegalAction, Option, Result, State

__all__ = ["CHANCE", "TERMINAL", "Game", "GameError", "IllegalAction", "Option", "Result", "State",
           "GAMES", "get_game"]


def _registry() -> dict[str, Game]:
    from arena.games.btt import BTT

    games: list[Game] = [BTT()]
    return {g.id: g for g in games}


GAMES: dict[str, Game] = _registry()


def get_game(game_id: str) -> Game:
    """The game with this id; a GameError naming the known ids otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise GameError(f"unknown game {game_id!r} (games: {', '.join(sorted(GAMES))})") from None
