"""The Tree for people: the brick-bond tree with each half's symbol, then every hand
and the supply (the omniscient view used by replay; bots never see it).

Each half is drawn as its value 0-7 followed by its rings in plain text (p = central
pip, s = small circle, b = big circle: 5 is `5pb`), so rule b (the symbol above has the
rings below plus one) can be checked by eye; a tile's two halves share brackets.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arena.games.the_tree import TheTreeState, tile_name

RINGS = (("p", 1), ("s", 2), ("b", 4))
SEAT_STYLES = ("bold red", "bold cyan", "bold green", "bold magenta")
HALF = 5
"""Characters per half cell: '[' or ' ', the value, three ring letters."""


def rings(value: int) -> str:
    return "".join(letter if value & bit else "." for letter, bit in RINGS)


def _tree_lines(state: TheTreeState) -> list[str]:
    if not state.tiles:
        return ["(no tile placed yet)"]
    xs = [x for x, _ in state.cells]
    ys = [y for _, y in state.cells]
    lines = []
    for y in range(max(ys), -1, -1):
        row = [" " * HALF] * (max(xs) - min(xs) + 1)
        for left, right, x, ty in state.tiles:
            if ty == y:
                row[x - min(xs)] = f"[{left}{rings(left)}"
                row[x + 1 - min(xs)] = f" {right}{rings(right)}]"[:HALF + 1]
        lines.append(f"{y:>3} " + "".join(cell.ljust(HALF) for cell in row).rstrip())
    lines.append("    " + "".join(f"{x:<{HALF}}" for x in range(min(xs), max(xs) + 1)).rstrip())
    return lines


def _hand_lines(state: TheTreeState) -> list[tuple[str, str]]:
    lines = []
    for seat, hand in enumerate(state.hands):
        marker = "> " if state.current() == seat else "  "
        place = ""
        if seat in state.finished:
            place = f" (finished #{state.finished.index(seat) + 1})"
        tiles = " ".join(sorted(tile_name(t) for t in hand)) or "-"
        lines.append((f"{marker}seat {seat}: {tiles}{place}", SEAT_STYLES[seat % len(SEAT_STYLES)]))
    supply = " ".join(tile_name(t) for t in state.supply) or "empty"
    lines.append((f"  supply (top first): {supply}", "dim"))
    if state.over:
        result = state.result()
        lines.append(("game over: ranks " + ", ".join(map(str, result.ranks)), "bold"))
    return lines


def text_the_tree(state: TheTreeState) -> str:
    """The tree and every hand in plain ASCII."""
    return "\n".join(_tree_lines(state) + [text for text, _ in _hand_lines(state)])


def render_the_tree(state: TheTreeState) -> RenderableType:
    """The same with seat colours."""
    return Group(*(Text(line) for line in _tree_lines(state)),
                 *(Text(text, style=style) for text, style in _hand_lines(state)))
