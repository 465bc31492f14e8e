"""Board pictures in SVG, one module per game (arena/render/svg/<game>.py, named by
the game's `module_name`), pure functions from a state to text, sharing one palette
(palette.py) and one writer (draw.py); a game without one gets plain.py's picture of
its observation. The replay page, the live page and a person's page all show these.

Each game module provides:

- `draw(state, view) -> str`: one `<svg>` of the position, with the bots' names and
  colours (draw.legend) and the last action highlighted. Pieces carry a class naming
  them (`cube`, `brick`, `root`, `tile`, `pyramid`...) and `data-seat`, so tests and
  pages can count and find them; places a person may click carry `data-spot`.
- `defs(state, view) -> str`: elements every picture of the game shares, as `<symbol>`s
  and gradients with ids starting with the game id (the page writes them once, the
  pictures `<use>` them; a 200-ply page stays small). May be "".
- `spot(state, action) -> str | None`: the `data-spot` of the place `action` plays at
  (a person's click there picks it when it is the only legal action there). `draw`
  draws a clickable marker (class `spot`, `data-spot`) for each spot `view.spots` lists.

Views a page switches without redrawing: groups `class="rot rot-K"` (K = 0..3, a
quarter turn each; the page shows the one of its `data-rot`) and `class="lv lv-N"`
(a level N, the page hides those above its `data-level`).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

from arena.games import module_name_of
from arena.games.base import State


@dataclass(frozen=True)
class View:
    """What a picture shows beside the position: who plays each seat, the last action
    and who played it, and whose eyes it is drawn for (None: everything, as a replay)."""

    names: tuple[str, ...]
    last: str | None = None
    last_actor: int | None = None
    seat: int | None = None
    """The viewer's seat: hidden information of the others is not drawn."""
    status: str = ""
    """A line under the picture: whose turn, or the result, scores and termination."""
    spots: tuple[str, ...] = ()
    """Places a person may click (from `spot` of the legal actions)."""


def _module(game_id: str) -> ModuleType:
    """The game's own drawing module (named by its `module_name`), else the picture
    any game gets (plain.py): a module of that name without `draw` is this package's
    own (draw.py, palette.py), not a game's."""
    name = module_name_of(game_id)
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "draw"):
            return module
    return importlib.import_module(f"{__name__}.plain")


def svg_state(game_id: str, state: State, view: View) -> str:
    """The picture of `state`."""
    return str(_module(game_id).draw(state, view))


def svg_defs(game_id: str, state: State, view: View) -> str:
    """What the game's pictures share (see the module's docstring)."""
    return str(_module(game_id).defs(state, view))


def action_spots(game_id: str, state: State, actions: list[str]) -> dict[str, str]:
    """Where each action plays on the picture (actions without a spot left out)."""
    module = _module(game_id)
    spots = {}
    for action in actions:
        where = module.spot(state, action)
        if where is not None:
            spots[action] = where
    return spots
