"""Board views for people: one module per game (arena/render/<game>.py, named by the
game's `module_name`) exposing `render_<game>(state)` (a rich renderable) and
`text_<game>(state)` (plain ASCII). A game without one is shown as its observation in
JSON. Games stay pure rules; drawing lives here."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
from typing import Any

from arena import games
from arena.errors import ArenaError
from arena.games import module_name_of
from arena.games.base import State


def _view(game_id: str, kind: str, suffix: str = "") -> Any:
    """The game's own view of this kind (`<kind>_<game><suffix>`), None when it has
    none (an error inside a view module that exists is raised, not taken for a missing
    view)."""
    module_name = module_name_of(game_id)
    if importlib.util.find_spec(f"arena.render.{module_name}") is None:
        return None
    module = importlib.import_module(f"arena.render.{module_name}")
    return getattr(module, f"{kind}_{module_name}{suffix}", None)


class ViewError(ArenaError, ValueError):
    """A view was asked for something it cannot draw."""


def has_levels(game_id: str) -> bool:
    """Whether the game's view can draw one level at a time (`level=`)."""
    view = _view(game_id, "render")
    return view is not None and "level" in inspect.signature(view).parameters


def render_state(game_id: str, state: State, level: int | None = None) -> Any:
    """A rich renderable of the state (only `level`, for games built in levels); the
    observation as JSON for games without a view."""
    view = _view(game_id, "render")
    if level is not None:
        if not has_levels(game_id):
            raise ViewError(f"the {game_id} board view has no levels; drop --level")
        return view(state, level=level)
    if view is not None:
        return view(state)
    return text_state(game_id, state)


def render_seat(game_id: str, state: State, seat: int) -> Any:
    """What a person playing `seat` may see: the game's seat view
    (`render_<game>_seat(state, seat)`); else, for a game that hides nothing, the whole
    board; else the seat's own observation as JSON (never another seat's hand)."""
    view = _view(game_id, "render", "_seat")
    if view is not None:
        return view(state, seat)
    if not games.get(game_id).has_hidden_information:
        return render_state(game_id, state)
    return json.dumps(state.observation(seat), indent=1, sort_keys=True)


def text_state(game_id: str, state: State) -> str:
    """Plain text of the state (for files, logs and tests)."""
    view = _view(game_id, "text")
    if view is not None:
        return str(view(state))
    return json.dumps(state.observation(0), indent=1, sort_keys=True)
