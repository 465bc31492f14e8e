"""Roots for people: the hex planet drawn as a honeycomb with both trees' roots, then
every stroke written side to side, the round, the pools, the kept dice, the power-ups
left and the score.

Each region is a hexagon (flat top) 11 characters wide; its roots are spokes from its
centre to the sides they use, so a chord is a line through the centre and a fork a Y
(strokes are listed below the map for the exact pairs, crossings included). The centre
shows who has drawn there (`A` seat 0, `B` seat 1, `X` both, `.` nobody); the top row
holds the region's coordinates `q` and `r` either side of the north spoke. On the
outline a side's midpoint shows `a`/`b` for an open tip of seat 0/1 waiting there,
`+` for a side a root has passed, `=` for a used surface segment a tree grew from.
"""

from __future__ import annotations

from rich.console import RenderableType

from arena.games.roots import RootsState
from arena.games.roots_pieces import ROUNDS
from arena.render.lines import plain, styled

SEAT_MARK = ("A", "B")
TIP_MARK = ("a", "b")
SEAT_STYLE = ("bold green", "bold magenta")
BOTH_STYLE = "bold yellow"
OUTLINE_STYLE = "grey50"
LABEL_STYLE = "grey42"

Cell = tuple[str, str]
"""A character and its rich style."""
Canvas = dict[tuple[int, int], Cell]

COLUMN, ROW = 8, 4
"""Characters between columns q, rows between regions r (a column is half a row down)."""

OUTLINE: tuple[tuple[int, int, str], ...] = (
    *((x, -2, "-") for x in range(-3, 4)), (4, -1, "\\"), (5, 0, "-"), (4, 1, "/"),
    *((x, 2, "-") for x in range(-3, 4)), (-4, 1, "\\"), (-5, 0, "-"), (-4, -1, "/"),
)
"""A hexagon's outline around its centre (0, 0), shared with its neighbours."""

MIDPOINT = ((0, -2), (4, -1), (4, 1), (0, 2), (-4, 1), (-4, -1))
"""Where each side's midpoint sits on the outline, sides 0 (N) to 5 (NW)."""

SPOKES: tuple[tuple[tuple[int, int, str], ...], ...] = (
    ((0, -1, "|"),),
    ((1, 0, "-"), (2, 0, "'"), (3, -1, ".")),
    ((1, 0, "-"), (2, 0, "."), (3, 1, "'")),
    ((0, 1, "|"),),
    ((-1, 0, "-"), (-2, 0, "."), (-3, 1, "`")),
    ((-1, 0, "-"), (-2, 0, "`"), (-3, -1, ".")),
)
"""The characters from the centre towards each side's midpoint."""

FORK_CHAR = {(2, 0): "<", (-2, 0): ">"}
"""Where two spokes share a cell but part ways (NE and SE, SW and NW)."""


def _owner_style(owners: set[int]) -> str:
    return BOTH_STYLE if len(owners) > 1 else SEAT_STYLE[min(owners)]


def _origin(state: RootsState) -> tuple[int, int]:
    xs = [COLUMN * q for q, _ in state.planet.axial]
    ys = [ROW * r + ROW // 2 * q for q, r in state.planet.axial]
    return 5 - min(xs), 2 - min(ys)


def _centre(state: RootsState, region: int, origin: tuple[int, int]) -> tuple[int, int]:
    q, r = state.planet.axial[region]
    return origin[0] + COLUMN * q, origin[1] + ROW * r + ROW // 2 * q


def _draw_outlines(state: RootsState, canvas: Canvas, origin: tuple[int, int]) -> None:
    for region in range(state.planet.size):
        cx, cy = _centre(state, region, origin)
        for dx, dy, char in OUTLINE:
            canvas.setdefault((cx + dx, cy + dy), (char, OUTLINE_STYLE))
        q, r = state.planet.axial[region]
        for i, char in enumerate(f"{q:>2}"):
            canvas[(cx - 2 + i, cy - 1)] = (char, LABEL_STYLE)
        for i, char in enumerate(f"{r:<2}"):
            canvas[(cx + 1 + i, cy - 1)] = (char, LABEL_STYLE)
        canvas[(cx, cy - 1)] = (",", LABEL_STYLE)
        canvas[(cx, cy)] = (".", "dim")


def _draw_strokes(state: RootsState, canvas: Canvas, origin: tuple[int, int]) -> None:
    for region, strokes in enumerate(state.strokes):
        if not strokes:
            continue
        cx, cy = _centre(state, region, origin)
        owners_at: dict[tuple[int, int], set[int]] = {}
        chars: dict[tuple[int, int], str] = {}
        for stroke in strokes:
            for side in range(6):
                if not stroke.mask >> side & 1:
                    continue
                for dx, dy, char in SPOKES[side]:
                    cell = (cx + dx, cy + dy)
                    owners_at.setdefault(cell, set()).add(stroke.owner)
                    chars[cell] = FORK_CHAR.get((dx, dy), char) if cell in chars and chars[cell] != char else char
        for cell, owners in owners_at.items():
            canvas[cell] = (chars[cell], _owner_style(owners))
        owners = {s.owner for s in strokes}
        canvas[(cx, cy)] = ("X" if len(owners) > 1 else SEAT_MARK[min(owners)], _owner_style(owners))


def _draw_sides(state: RootsState, canvas: Canvas, origin: tuple[int, int]) -> None:
    """Mark used sides at their midpoints: passed (`+`), grown-from surface (`=`)."""
    for region, strokes in enumerate(state.strokes):
        cx, cy = _centre(state, region, origin)
        for stroke in strokes:
            for side in range(6):
                if stroke.mask >> side & 1:
                    dx, dy = MIDPOINT[side]
                    surface = state.planet.neighbours[region][side] < 0
                    canvas[(cx + dx, cy + dy)] = ("=" if surface else "+", SEAT_STYLE[stroke.owner])
    for seat in (0, 1):
        for region, side in state.tips[seat]:
            cx, cy = _centre(state, region, origin)
            dx, dy = MIDPOINT[side]
            canvas[(cx + dx, cy + dy)] = (TIP_MARK[seat], SEAT_STYLE[seat])


def planet_lines(state: RootsState) -> list[list[Cell]]:
    """The honeycomb as rows of styled characters."""
    canvas: Canvas = {}
    origin = _origin(state)
    _draw_outlines(state, canvas, origin)
    _draw_strokes(state, canvas, origin)
    _draw_sides(state, canvas, origin)
    width = max(x for x, _ in canvas) + 1
    height = max(y for _, y in canvas) + 1
    return [[canvas.get((x, y), (" ", "")) for x in range(width)] for y in range(height)]


def _stroke_lines(state: RootsState) -> list[list[Cell]]:
    lines = []
    for region, strokes in enumerate(state.strokes):
        if not strokes:
            continue
        line: list[Cell] = [(f"  {state.planet.names[region]:>6}: ", "")]
        for i, s in enumerate(strokes):
            exits = state.exits_of(s)
            fork = " Y" if len(exits) > 1 else ""
            line.append(("; " if i else "", ""))
            line.append((f"{SEAT_MARK[s.owner]} {s.entry}>{','.join(map(str, exits))}{fork}",
                         SEAT_STYLE[s.owner]))
        lines.append(line)
    return lines


def _status(state: RootsState) -> list[list[Cell]]:
    score = state.scores()
    mover = "" if state.over or state.rolling else f"; seat {state.mover} ({SEAT_MARK[state.mover]}) to move"
    lines: list[list[Cell]] = [[(f"round {state.round} of {ROUNDS}; {state.phase()}{mover}", "bold")]]
    regular = " ".join(f"r{v}" for v in state.regular) or "-"
    special = " ".join(f"s{v}" for v in state.special) or "-"
    lines.append([(f"pools: regular {regular}   special {special}", "bold cyan")])
    for seat in (0, 1):
        powers = [name for name in ("reroll", "fast", "cross") if getattr(state.powers[seat], name)]
        tips = ", ".join(sorted(state.tip_name(t) for t in state.tips[seat])) or "none"
        kept = state.kept[seat]
        lines.append([(f"seat {seat} ({SEAT_MARK[seat]}): {score[seat]} regions; "
                       f"kept {'r' + str(kept) if kept else '-'}; "
                       f"{'left the round; ' if state.left[seat] else ''}"
                       f"power-ups {', '.join(powers) or 'none'}", SEAT_STYLE[seat])])
        lines.append([(f"  tips {tips}", SEAT_STYLE[seat])])
    return lines


def _all_lines(state: RootsState) -> list[list[Cell]]:
    legend = [("centre A/B/X: who drew there; sides a/b: open tips, +: passed, =: grown from "
               "the surface", "bold")]
    strokes = _stroke_lines(state)
    header = [[("strokes (entry>exits; sides 0 N 1 NE 2 SE 3 S 4 SW 5 NW):", "bold")]] if strokes else []
    return [legend, *planet_lines(state), *header, *strokes, *_status(state)]


def text_roots(state: RootsState) -> str:
    """Plain text of the planet and the state of play."""
    return plain(_all_lines(state))


def render_roots(state: RootsState) -> RenderableType:
    """The same with seat colours."""
    return styled(_all_lines(state))


__all__ = ["planet_lines", "render_roots", "text_roots"]
