"""The smallest setting of each game, for debugging an algorithm before it meets the
real thing: the fewest seats that still make a contest, the smallest board, the
fewest pieces. A game played at random ends in a few milliseconds to a tenth of a
second in each (docs/rl.md lists them with their sizes).

    from arena.rl.tiny import tiny_setting
    setting = tiny_setting("blox")            # Tiny(game="blox", seats=2, options={"width": "4", ...})
    e = arena.rl.pettingzoo.env("blox", players=setting.seats, **setting.options)

Each entry names only options its game declares (`arena.games.get(id).options`), and
is checked against them when asked for; a game registered later without an entry gets
its `quick_options` (the options `arena check` plays quickly) and its fewest seats.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from arena import games
from arena.rl.spec import RLError


@dataclass(frozen=True)
class Tiny:
    """A game, a seat count and the options of its tiny setting (values as text)."""

    game: str
    seats: int
    options: Mapping[str, str] = field(default_factory=dict)
    why: str = ""
    """What makes it small, for the docs' table."""


TINY: Mapping[str, Tiny] = MappingProxyType({
    "btt": Tiny("btt", 2, {"board": "wedge"},
                "2 seats on two 4x4 sections: 16 decisions a seat, 377 ids"),
    "treeblox": Tiny("treeblox", 2, {},
                     "the game has no options: 2 seats, about 60 decisions"),
    "the-tree": Tiny("the-tree", 2, {},
                     "2 seats (the fewest with a hidden hand to reason about; `players=1` is a solo puzzle), "
                     "about 30 decisions"),
    "roots": Tiny("roots", 2, {"radius": "3"},
                  "radius 3: 37 regions instead of 61, 8,275 ids instead of 13,615"),
    "blox": Tiny("blox", 2, {"width": "4", "height": "4", "bricks": "4", "max_turns": "4"},
                 "a 4x4 board, 4 bricks a seat: 8 decisions (three bricks can join the four edges; "
                 "random play almost always draws)"),
})
"""Each arena game's tiny setting."""


def tiny_setting(game: str) -> Tiny:
    """The tiny setting of `game`, checked against the game's declared options and seat
    counts (RLError names what no longer fits); a game without an entry in TINY gets
    its quick options and its fewest seats."""
    try:
        spec = games.get(game)
    except games.GameError as exc:
        raise RLError(f"no tiny setting: {exc}") from None
    setting = TINY.get(game) or Tiny(game, spec.min_seats, dict(spec.quick_options),
                                     "the game's quick options and fewest seats")
    try:
        resolved = spec.resolve_options(setting.options)
        spec.check_seats(setting.seats, resolved)
    except games.GameError as exc:
        raise RLError(f"the tiny setting of {game} no longer fits the game ({exc}): fix TINY in "
                      "arena/rl/tiny.py") from None
    return setting
