"""Treeblox for people: the trees seen from above and sliced from the side.

The top view shows, for every column, its highest cube: `L` or `B` in the owner's
colour (upper case for Dark, lower case for Light in plain text) followed by its
height z; an active leaf is exactly a leaf on top, drawn bold on a lit background.
Empty board holes are `()`; `.` is open air. Then one side view per row y of the
table (x across, z upward), and the counts a player keeps in mind: active leaves,
cubes left, growth rate. Both views come from one list of styled segments.
"""

from __future__ import annotations

from rich.console import RenderableType

from arena.games.treeblox import BOARD, BRANCH, LEAF, MAIN, SEAT_NAMES, TreebloxState, column_of, pack, unpack
from arena.render.lines import Line, Segment, plain, styled

SEAT_STYLES = ("bold red", "bold cyan")
ACTIVE_STYLE = " on grey23"
CELL_WIDTH = 4


def text_treeblox(state: TreebloxState) -> str:
    """Top view, side slices and counts in plain ASCII."""
    return plain(_lines(state))


def render_treeblox(state: TreebloxState) -> RenderableType:
    """The same drawing with owner colours and the active leaves lit."""
    return styled(_lines(state))


def _letter(owner: int, kind: int) -> str:
    letter = "LB"[kind]
    return letter if owner == 0 else letter.lower()


def _extent(state: TreebloxState) -> tuple[range, range, int]:
    xs = [0, BOARD - 1]
    ys = [0, BOARD - 1]
    top_z = 0
    for cell in state.cubes:
        x, y, z = unpack(cell)
        xs.append(x)
        ys.append(y)
        top_z = max(top_z, z)
    return range(min(xs), max(xs) + 1), range(min(ys), max(ys) + 1), top_z


def _top_cell(state: TreebloxState, x: int, y: int) -> Segment:
    top = state.top.get(column_of(pack(x, y, 0)))
    if top is None:
        text = "()" if 0 <= x < BOARD and 0 <= y < BOARD else "."
        return text.center(CELL_WIDTH), "dim"
    code = state.cubes[top]
    owner, kind = code >> 1, code & 1
    style = SEAT_STYLES[owner] + (ACTIVE_STYLE if kind == LEAF else "")
    return f"{_letter(owner, kind)}{unpack(top)[2]}".center(CELL_WIDTH), style


def _lines(state: TreebloxState) -> list[Line]:
    xs, ys, top_z = _extent(state)
    lines: list[Line] = [[("Top view (top cube of each column and its height; () empty board hole)", "bold")]]
    header: Line = [("   y\\x", "dim")] + [(f"{x:>{CELL_WIDTH}}", "dim") for x in xs]
    lines.append(header)
    for y in reversed(ys):
        lines.append([(f"{y:>6}", "dim"), *(_top_cell(state, x, y) for x in xs)])
    lines.append([("", "")])
    lines.append([("Side views (x across, z up; one per row y)", "bold")])
    for y in reversed(ys):
        if not any(unpack(cell)[1] == y for cell in state.cubes):
            continue
        lines.append([(f"  y = {y}", "bold")])
        for z in range(top_z, -1, -1):
            row: Line = [(f"{'z=' + str(z):>6}", "dim")]
            for x in xs:
                cell = pack(x, y, z)
                code = state.cubes.get(cell)
                if code is None:
                    row.append((".".center(CELL_WIDTH), "dim"))
                    continue
                owner, kind = code >> 1, code & 1
                active = kind == LEAF and state.top.get(column_of(cell)) == cell
                row.append((_letter(owner, kind).center(CELL_WIDTH),
                            SEAT_STYLES[owner] + (ACTIVE_STYLE if active else "")))
            lines.append(row)
        lines.append([("      " + "-" * (CELL_WIDTH * len(xs)), "dim")])
    lines.append([("", "")])
    for seat in (0, 1):
        leaves, branches = state.stock[seat][LEAF], state.stock[seat][BRANCH]
        marker = "> " if state.current() == seat else "  "
        text = (f"{marker}{SEAT_NAMES[seat]:<5} ({_letter(seat, LEAF)}/{_letter(seat, BRANCH)}): "
                f"{state.active[seat]} active leaves, {leaves} leaves and {branches} branches left, "
                f"growth rate {state.growth_rate(seat)}")
        lines.append([(text, SEAT_STYLES[seat])])
    if state.phase == MAIN:
        status = f"main phase: {SEAT_NAMES[state.mover]} to place, {state.placed} of {state.rate} this turn"
    elif state.phase == "final":
        status = f"final growth: {SEAT_NAMES[state.mover]} places until out of cubes or holes"
    elif state.phase == "opening":
        status = f"opening: {SEAT_NAMES[state.mover]} places a leaf in a board hole"
    else:
        result = state.result()
        status = "game over: " + ", ".join(
            f"{SEAT_NAMES[s]} {int(result.scores[s])} (#{result.ranks[s]})" for s in (0, 1))
    lines.append([(status, "bold")])
    return lines


__all__ = ["render_treeblox", "text_treeblox"]
