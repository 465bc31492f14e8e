"""Treeblox drawn as the trees stand on the table: isometric cubes on the 4 x 4 board.

Dark's branches are black cubes and its leaves dark green; Light's branches are white
and its leaves light green (the rulebook's components). An active leaf (nothing above
it) wears a yellow sun on its top face. The top cube of every column above the board
shows its height z, and a cube floating over empty air casts a grey footprint on the
ground, so heights read at a glance. The picture holds the scene from four sides, a
quarter turn apart (groups `rot rot-K`); the page shows one, so cubes hidden from one
side can be seen from another.
"""

from __future__ import annotations

import math

from arena.games.treeblox import BOARD, LEAF, SEAT_NAMES, TreebloxState, column_of, parse_action, unpack
from arena.render.svg import View
from arena.render.svg.draw import caption, document, group, legend, legend_width, num, points, polygon, text
from arena.render.svg.palette import HIGHLIGHT, INK, PAPER, shade

SIDE = 22.0
"""A cube's edge on the drawing."""
A = SIDE * math.sqrt(3) / 2
"""Screen x per unit of x - y."""
B = SIDE / 2
"""Screen y per unit of x + y (isometric: a unit of z is 2 B)."""
MARGIN = 20.0
FACES = {  # (owner, kind) -> top colour; the sides are shaded from it
    (0, 0): "#2e7d32",  # dark leaf: dark green
    (0, 1): "#2b2b2b",  # dark branch: black
    (1, 0): "#9ccc65",  # light leaf: light green
    (1, 1): "#f5f5f5",  # light branch: white
}
SUN = "#ffd400"
BOARD_TOP = "#c8a165"
BOARD_SIDE = "#8d6e3f"
SEAT_SWATCH = ("#2b2b2b", "#f5f5f5")
"""The seats' colours in the legend: their branches'."""


def _turn(x: int, y: int, k: int) -> tuple[int, int]:
    """Cell (x, y) seen after k quarter turns of the board about its centre."""
    for _ in range(k):
        x, y = BOARD - 1 - y, x
    return x, y


def project(x: float, y: float, z: float) -> tuple[float, float]:
    """A point of space on the drawing (the viewer looks from +x, +y, above)."""
    return (x - y) * A, (x + y) * B - z * 2 * B


def _cube_shape(owner: int, kind: int, active: bool) -> str:
    """A unit cube with its corner (0, 0, 0) at the origin: the top and the two faces
    the viewer sees, an active leaf's sun on top."""
    top = FACES[(owner, kind)]
    edge = "#000000" if owner == 0 else "#6b6b6b"
    corners = {c: project(*c) for c in
               ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1), (1, 0, 0), (1, 1, 0), (0, 1, 0))}
    faces = [
        polygon([corners[(0, 0, 1)], corners[(1, 0, 1)], corners[(1, 1, 1)], corners[(0, 1, 1)]], top, edge,
                stroke_width=0.7, stroke_linejoin="round"),
        polygon([corners[(1, 0, 1)], corners[(1, 1, 1)], corners[(1, 1, 0)], corners[(1, 0, 0)]], shade(top, 0.8),
                edge, stroke_width=0.7, stroke_linejoin="round"),
        polygon([corners[(0, 1, 1)], corners[(1, 1, 1)], corners[(1, 1, 0)], corners[(0, 1, 0)]], shade(top, 0.65),
                edge, stroke_width=0.7, stroke_linejoin="round"),
    ]
    if active:
        cx, cy = project(0.5, 0.5, 1)
        faces.append(f"<ellipse cx=\"{num(cx)}\" cy=\"{num(cy)}\" rx=\"{num(A * 0.42)}\" ry=\"{num(B * 0.42)}\" "
                     f"fill=\"{SUN}\" stroke=\"{INK}\" stroke-width=\"0.8\"/>")
    return group(faces, id=_cube_id(owner, kind, active))


def _cube_id(owner: int, kind: int, active: bool) -> str:
    return f"tb-{'dl'[owner]}{'lb'[kind]}{'a' if active else ''}"


def _board_shape() -> str:
    """The board: a wooden slab with its 16 holes, under everything."""
    top = [project(0, 0, 0), project(BOARD, 0, 0), project(BOARD, BOARD, 0), project(0, BOARD, 0)]
    thick = 0.35
    right = [project(BOARD, 0, 0), project(BOARD, BOARD, 0), project(BOARD, BOARD, -thick), project(BOARD, 0, -thick)]
    front = [project(0, BOARD, 0), project(BOARD, BOARD, 0), project(BOARD, BOARD, -thick), project(0, BOARD, -thick)]
    parts = [polygon(top, BOARD_TOP, INK, stroke_width=0.8), polygon(right, shade(BOARD_SIDE, 0.9), INK,
                                                                     stroke_width=0.8),
             polygon(front, BOARD_SIDE, INK, stroke_width=0.8)]
    for x in range(BOARD):
        for y in range(BOARD):
            cx, cy = project(x + 0.5, y + 0.5, 0)
            parts.append(f"<ellipse cx=\"{num(cx)}\" cy=\"{num(cy)}\" rx=\"{num(A * 0.3)}\" ry=\"{num(B * 0.3)}\" "
                         f"fill=\"{shade(BOARD_SIDE, 0.6)}\"/>")
    return group(parts, id="tb-board")


def defs(state: TreebloxState, view: View) -> str:
    shapes = [_cube_shape(owner, kind, active) for owner in (0, 1) for kind in (0, 1)
              for active in ((False, True) if kind == LEAF else (False,))]
    shadow = polygon([project(0, 0, 0), project(1, 0, 0), project(1, 1, 0), project(0, 1, 0)], "#000000",
                     fill_opacity=0.18, id="tb-shadow")
    ghost = polygon([project(*c) for c in ((0, 0, 1), (1, 0, 1), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1))],
                    "#ffffff", INK, fill_opacity=0.45, stroke_width=1.2, stroke_dasharray="3 2", id="tb-ghost")
    return _board_shape() + "".join(shapes) + shadow + ghost


def _bounds(state: TreebloxState) -> tuple[float, float, float, float]:
    """The drawing's extent over all four turns (so turning never moves the frame)."""
    cells = [unpack(c) for c in state.cubes] + [(0, 0, 0), (BOARD - 1, BOARD - 1, 0), (0, BOARD - 1, 0),
                                                 (BOARD - 1, 0, 0)]
    xs: list[float] = []
    ys: list[float] = []
    for k in range(4):
        for x, y, z in cells:
            tx, ty = _turn(x, y, k)
            for corner in ((tx, ty, z + 1), (tx + 1, ty + 1, z - 0.4), (tx + 1, ty, z), (tx, ty + 1, z)):
                sx, sy = project(*corner)
                xs.append(sx)
                ys.append(sy)
    return min(xs), min(ys), max(xs), max(ys)


def _scene(state: TreebloxState, k: int, view: View) -> str:
    """The board and cubes seen after k quarter turns, back to front."""
    placed = []
    floating_columns = set()
    for cell, code in state.cubes.items():
        x, y, z = unpack(cell)
        tx, ty = _turn(x, y, k)
        placed.append((tx + ty + z, tx, ty, z, cell, code))
        if z > 0 and not any(unpack(c)[:2] == (x, y) and unpack(c)[2] == 0 for c in state.cubes):
            floating_columns.add((tx, ty))
    placed.sort()
    parts = ["<use href=\"#tb-board\"/>"]
    for tx, ty in sorted(floating_columns):
        sx, sy = project(tx, ty, 0)
        parts.append(f"<use href=\"#tb-shadow\" x=\"{num(sx)}\" y=\"{num(sy)}\"/>")
    last_cell = _cell_of(view.last)
    highlight = ""
    for _, tx, ty, z, cell, code in placed:
        owner, kind = code >> 1, code & 1
        active = kind == LEAF and state.top.get(column_of(cell)) == cell
        sx, sy = project(tx, ty, z)
        parts.append(f"<use href=\"#{_cube_id(owner, kind, active)}\" x=\"{num(sx)}\" y=\"{num(sy)}\"/>")
        if z > 0 and state.top.get(column_of(cell)) == cell:
            lx, ly = project(tx + 0.5, ty + 0.5, z + 1)
            fill = "#ffffff" if code == 1 else INK  # white on a black branch, dark on a sun or white
            parts.append(text(lx, ly + 3.5, str(z), 9, fill, "middle", font_weight="bold"))
        if cell == last_cell:
            outline = [project(tx + a, ty + b, z + c) for a, b, c in
                       ((0, 0, 1), (1, 0, 1), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1))]
            highlight = (f"<polygon points=\"{points(outline)}\" fill=\"none\" stroke=\"{HIGHLIGHT}\" "
                         f"stroke-width=\"3.5\" class=\"last\"/><polygon points=\"{points(outline)}\" fill=\"none\" "
                         f"stroke=\"{INK}\" stroke-width=\"1\"/>")
    parts.append(highlight)
    for name in view.spots:
        x, y, z = (int(v) for v in name.split(","))
        tx, ty = _turn(x, y, k)
        sx, sy = project(tx, ty, z)
        parts.append(f"<use href=\"#tb-ghost\" x=\"{num(sx)}\" y=\"{num(sy)}\" class=\"spot\" data-spot=\"{name}\"/>")
    return group(parts, class_=f"rot rot-{k}")


def _cell_of(action: str | None) -> int | None:
    parsed = parse_action(action) if action else None
    return None if parsed is None else parsed[0]


def spot(state: TreebloxState, action: str) -> str | None:
    """The cell a placement fills, as `x,y,z` (a leaf and a branch may share it)."""
    cell = _cell_of(action)
    if cell is None:
        return None
    x, y, z = unpack(cell)
    return f"{x},{y},{z}"


def draw(state: TreebloxState, view: View) -> str:
    x0, y0, x1, y1 = _bounds(state)
    scenes = [_scene(state, k, view) for k in range(4)]
    oy = MARGIN - y0
    legend_y = y1 - y0 + 2 * MARGIN
    notes = []
    for seat in (0, 1):
        leaves, branches = state.stock[seat][LEAF], state.stock[seat][1]
        notes.append(f"{SEAT_NAMES[seat]} · {state.active[seat]} active leaves · left {leaves} leaves, "
                     f"{branches} branches")
    width = max(x1 - x0 + 2 * MARGIN, legend_width(view.names, notes) + 2 * MARGIN)
    ox = (width - (x1 - x0)) / 2 - x0
    to_move = state.current()
    names, height = legend(view.names, MARGIN, legend_y, notes, to_move if to_move >= 0 else None,
                           colours=SEAT_SWATCH)
    total = legend_y + height + (22 if view.status else 4)
    body = [f"<rect width=\"{num(width)}\" height=\"{num(total)}\" fill=\"{PAPER}\"/>",
            group(scenes, transform=f"translate({num(ox)},{num(oy)})"), *names]
    if view.status:
        body.append(caption(MARGIN, total - 8, view.status))
    return document(width, total, body, title="Treeblox")
