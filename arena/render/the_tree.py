"""The Tree for people: the brick-bond tree with each half's symbol, then every hand
and the supply. It is the omniscient view used by `arena replay` and `--watch`; bots
never see it.

Each half is drawn as its value 0-7 followed by its three rings in fixed places
(`p` central pip, `s` small circle, `b` big circle, `.` where a ring is missing: 5 is
`5p.b`), so rule b (the half above shows the rings below plus exactly one) can be
checked by eye down each column. Tiles are bounded by `|`; a half sits exactly over
the cell it rests on, so the brick bond shows as the usual half-tile shift per row.
Both views come from one list of styled segments: the coloured one (`render_the_tree`,
each tile in the colour of the seat that placed it, the last one reversed) and the
plain one (`text_the_tree`) always agree.
"""

from __future__ import annotations

from rich.console import RenderableType

from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import tile_name
from arena.render.lines import Line, plain, styled

RINGS = (("p", 1), ("s", 2), ("b", 4))
SEAT_STYLES = ("bold red", "bold cyan", "bold green", "bold magenta")
CELL = 5
"""Characters per half cell: a border and the four characters of a symbol."""


def symbol(value: int) -> str:
    """Four characters: the value, then its rings (`5p.b`)."""
    return str(value) + "".join(letter if value & bit else "." for letter, bit in RINGS)


def seat_style(seat: int) -> str:
    return SEAT_STYLES[seat % len(SEAT_STYLES)] if seat >= 0 else ""


def _tree_lines(state: TheTreeState) -> list[Line]:
    if not state.tiles:
        return [[("(no tile placed yet)", "dim")]]
    xs = [x for x, _ in state.cells]
    ys = [y for _, y in state.cells]
    low, high = min(xs), max(xs)
    width = CELL * (high - low + 1) + 1
    last = len(state.tiles) - 1
    lines: list[Line] = []
    for y in range(max(ys), -1, -1):
        # Each character position gets a (char, style); runs of one style become segments.
        chars = [" "] * width
        styles = [""] * width
        for index, ((left, right, x, ty), seat) in enumerate(zip(state.tiles, state.placers, strict=True)):
            if ty != y:
                continue
            off = CELL * (x - low)
            text = f"|{symbol(left)} {symbol(right)}|"
            style = seat_style(seat)
            if index == last:
                style = (style + " reverse").strip()
            for k, ch in enumerate(text):
                chars[off + k] = ch
                if 0 < k < len(text) - 1:
                    styles[off + k] = style
        line: Line = [(f"{y:>3} ", "dim")]
        for ch, style in zip(chars, styles, strict=True):
            if line and line[-1][1] == style:
                line[-1] = (line[-1][0] + ch, style)
            else:
                line.append((ch, style))
        lines.append(line)
    labels = [" "] * (width + 4)
    for x in range(low, high + 1):
        label = str(x)
        off = 4 + CELL * (x - low) + 1
        if off + len(label) <= len(labels) and all(c == " " for c in labels[off - 1:off + len(label)]):
            labels[off:off + len(label)] = label
    lines.append([("".join(labels), "dim")])
    return lines


def _hand_lines(state: TheTreeState, viewer: int | None = None) -> list[Line]:
    lines: list[Line] = []
    to_move = state.current()
    for seat, hand in enumerate(state.hands):
        marker = "> " if to_move == seat else "  "
        shown = viewer is None or seat == viewer
        tiles = (" ".join(sorted(tile_name(t) for t in hand)) or "-") if shown else "(hidden)"
        note = ""
        if seat in state.finished:
            note = f"  (finished {state.finished.index(seat) + 1}.)"
        elif seat in state.blocked:
            note = "  (blocked)"
        lines.append([(marker, "bold"), (f"seat {seat}", seat_style(seat)), (f" [{len(hand)}]: {tiles}{note}", "")])
    if viewer is None:
        supply = " ".join(tile_name(t) for t in state.supply) or "empty"
        lines.append([(f"  supply [{len(state.supply)}] (top first): {supply}", "dim")])
    else:
        lines.append([(f"  supply [{len(state.supply)}], face down", "dim")])
    if state.over:
        result = state.result()
        lines.append([("game over: ranks " + " ".join(map(str, result.ranks)), "bold")])
    elif state.passes:
        lines.append([(f"  consecutive passes: {state.passes}", "dim")])
    return lines


def _lines(state: TheTreeState, viewer: int | None = None) -> list[Line]:
    if not state.dealt:
        return [[("(not dealt yet)", "dim")]]
    return _tree_lines(state) + _hand_lines(state, viewer)


def render_the_tree_seat(state: TheTreeState, seat: int) -> RenderableType:
    """What one seat may see: the tree, its own hand, the others' hand sizes and the
    supply's size (for a person playing the seat)."""
    return styled(_lines(state, seat))


def text_the_tree(state: TheTreeState) -> str:
    """The tree, every hand and the supply in plain ASCII."""
    return plain(_lines(state))


def render_the_tree(state: TheTreeState) -> RenderableType:
    """The same with seat colours (each tile in its placer's colour, the last reversed)."""
    return styled(_lines(state))
