"""Board views for people: one module per game (arena/render/<game>.py) exposing
`render_<game>(state)` (a rich renderable) and `text_<game>(state)` (plain ASCII).
Games stay pure rules; drawing lives here."""

from __future__ import annotations

import importlib
import json
from typing import Any

from arena.games.base import State


def _view(game_id: str, kind: str) -> Any:
    module_name = game_id.replace("-", "_")
    try:
        module = importlib.import_module(f"arena.render.{module_name}")
    except ModuleNotFoundError:
        return None
    return getattr(module, f"{kind}_{module_name}", None)


def render_state(game_id: str, state: State) -> Any:
    """A rich renderable of the state; the observation as JSON for games without a view."""
    view = _view(game_id, "render")
    if view is not None:
        return view(state)
    return text_state(game_id, state)


def text_state(game_id: str, state: State) -> str:
    """Plain text of the state (for files, logs and tests)."""
    view = _view(game_id, "text")
    if view is not None:
        return str(view(state))
    return json.dumps(state.observation(0), indent=1, sort_keys=True)
