"""The Tree positions for tests: the rules' perft deal, dealt states, positions built
from tile names, and a brute-force reading of the rules' legal actions."""

from __future__ import annotations

from arena import games
from arena.games import CHANCE
from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import Move, Tile, fits_above

GAME = games.get("the-tree")
PERFT_DEAL = ("67,34,02,55,26,45,35,24,66,13,14,25,05,01,12,57,77,47,33,16,44,00,46,03,06,37,15,27,22,17,"
              "36,56,07,23,04,11")


def dealt(seats: int, deal: str = PERFT_DEAL) -> TheTreeState:
    state = GAME.new_state(seats)
    assert isinstance(state, TheTreeState) and state.current() == CHANCE
    state.apply(deal)
    return state


def tile(name: str) -> Tile:
    return (int(name[0]), int(name[1]))


def placement(text: str) -> Move:
    symbols, _, where = text.partition("@")
    x, y = (int(v) for v in where.split(","))
    return int(symbols[0]), int(symbols[1]), x, y


def position(tiles: list[str], hands: list[list[str]], supply: list[str] | None = None, mover: int = 0,
             finished: list[int] | None = None) -> TheTreeState:
    """A position built directly: placed tiles as 'lr@x,y', hands and supply as tile names."""
    return TheTreeState.from_position(
        [placement(t) for t in tiles], [[tile(t) for t in hand] for hand in hands],
        [tile(t) for t in supply or []], mover, finished or [])


def reference_legal(state: TheTreeState) -> list[str]:
    """The legal actions straight from the rules text, by brute force over the table:
    row >= 1, free, a half over an occupied cell, not exactly over one tile, rule b
    against every occupied cell directly below and above."""
    hand = state.hands[state.current()]
    if not state.tiles:
        raise AssertionError("only for positions after the start")
    cells = state.cells
    tile_at = {}
    for index, (_, _, x, y) in enumerate(state.tiles):
        tile_at[(x, y)] = tile_at[(x + 1, y)] = index
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    found = set()
    for y in range(1, max(ys) + 2):
        for x in range(min(xs) - 1, max(xs) + 1):
            if (x, y) in cells or (x + 1, y) in cells:
                continue
            if (x, y - 1) not in cells and (x + 1, y - 1) not in cells:
                continue
            if (x, y - 1) in tile_at and tile_at.get((x, y - 1)) == tile_at.get((x + 1, y - 1)):
                continue  # exactly over one tile
            for a, b in hand:
                for left, right in ((a, b), (b, a)):
                    ok = True
                    for symbol_, cx in ((left, x), (right, x + 1)):
                        below, above = cells.get((cx, y - 1)), cells.get((cx, y + 1))
                        if below is not None and not fits_above(symbol_, below):
                            ok = False
                        if above is not None and not fits_above(above, symbol_):
                            ok = False
                    if ok:
                        found.add(f"{left}{right}@{x},{y}")
    return sorted(found) or ["draw" if state.supply else "pass"]


BASE = ["00@0,0", "01@-1,1", "20@1,1"]
"""A legal opening: (0,2)-(1,2) rests on the 1 at (0,1) and the 2 at (1,1)."""
