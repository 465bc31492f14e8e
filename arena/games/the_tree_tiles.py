"""The Tree's tiles and action notation: the double-seven set, which symbols fit above
which, tile names ("05"), placements ("05@3,1"), the deal as one chance action. The
rules engine (arena.games.the_tree) and the bots share them."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.numbers import canonical_int

Tile = tuple[int, int]
"""A tile as (low, high) symbol values."""
Move = tuple[int, int, int, int]
"""A placement: (left symbol, right symbol, x, y); the tile covers (x, y) and (x+1, y)."""

TILES: tuple[Tile, ...] = tuple((a, b) for a in range(8) for b in range(a, 8))
"""The double-seven set: every pair a <= b of symbols 0..7 (36 tiles)."""
HAND = 9
SYMBOLS = "01234567"
"""The symbols' digits, in value order."""
COORDINATE_MAX = 10 ** 6
"""Far beyond any table (36 tiles): larger coordinates are not placements."""
DRAW, PASS = "draw", "pass"
DEAL_PREFIX = "deal "
"""What a seat sees of the deal: `deal ` and its own nine tiles in dealt order."""


def fits_above(up: int, down: int) -> bool:
    """Rule b: the symbol above has exactly the rings of the one below, plus one more."""
    return up & down == down and bin(up ^ down).count("1") == 1


ANY = 0xFF
"""Mask of every symbol: a half over (or under) an empty cell is unconstrained."""
ABOVE_OK: tuple[int, ...] = tuple(sum(1 << u for u in range(8) if fits_above(u, d)) for d in range(8))
"""ABOVE_OK[d]: bit u set when symbol u may sit directly above symbol d."""
BELOW_OK: tuple[int, ...] = tuple(sum(1 << d for d in range(8) if fits_above(u, d)) for u in range(8))
"""BELOW_OK[u]: bit d set when symbol d may sit directly below symbol u."""


def tile_name(tile: Tile) -> str:
    return f"{tile[0]}{tile[1]}"


def tile_of(left: int, right: int) -> Tile:
    """The tile showing these two symbols, whichever way round."""
    return (left, right) if left <= right else (right, left)


TILE_NAMES = frozenset(tile_name(t) for t in TILES)
TILE_BY_NAME: dict[str, Tile] = {tile_name(t): t for t in TILES}

MOVE_NAMES: dict[Move, str] = {}
"""Action strings of placements met so far (cached process-wide: search bots name many)."""
_PARSED: dict[str, Move] = {}


def move_name(move: Move) -> str:
    """The canonical action `<l><r>@<x>,<y>` of a placement (cached)."""
    name = MOVE_NAMES.get(move)
    if name is None:
        left, right, x, y = move
        name = f"{left}{right}@{x},{y}"
        MOVE_NAMES[move] = name
        _PARSED[name] = move
    return name


def parse_placement(action: str) -> Move | None:
    """(left symbol, right symbol, x, y) of `<l><r>@<x>,<y>` in canonical form; None
    for any other string (a bot's action is parsed here)."""
    move = _PARSED.get(action)
    if move is not None:
        return move
    symbols, at, where = action.partition("@")
    xs, comma, ys = where.partition(",")
    if not at or not comma or len(symbols) != 2:
        return None
    left, right = SYMBOLS.find(symbols[0]), SYMBOLS.find(symbols[1])
    x, y = canonical_int(xs, -COORDINATE_MAX, COORDINATE_MAX), canonical_int(ys, -COORDINATE_MAX, COORDINATE_MAX)
    if left < 0 or right < 0 or x is None or y is None:
        return None
    return left, right, x, y


def parse_deal(action: str) -> list[Tile] | None:
    """The 36 tiles of a deal action in order, or None if it is not a permutation."""
    names = action.split(",")
    if len(names) != len(TILES) or set(names) != TILE_NAMES:
        return None
    return [TILE_BY_NAME[n] for n in names]


def deal_action(tiles: Sequence[Tile]) -> str:
    """The chance action for a deal in this order."""
    return ",".join(tile_name(t) for t in tiles)


def start_key(tile: Tile) -> tuple[int, int, int]:
    """Order of precedence for the start: doubles from 00 up, then (low, high)."""
    return (0 if tile[0] == tile[1] else 1, tile[0], tile[1])
