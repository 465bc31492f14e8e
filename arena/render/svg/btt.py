"""Branches and Twigs and Thorns drawn as it lies on the table.

The 2- and 4-seat boards and every `rect` board are a (half) chessboard. The 3-, 5- and
6-seat boards are the wedge boards of Eeyore's Martian Chessboard sections: n 4 x 4
sections around the centre, each a rhombus whose corner at the centre has 360/n
degrees, so section s's edge i = 0 lies along section s+1's edge j = 0 (the seam of
rules/btt.md); the 5-seat board's missing seam is drawn as a wall. A pyramid lies on
its square pointing at its target, its length and pips giving its size (1-3); a thorn
(a pyramid pointing at another seat's pyramid) is drawn with a black outline and barb,
a twig or branch (pointing at its own pyramid or a root) without. Nulls hold one
token, roots a cluster of four.
"""

from __future__ import annotations

import math

from arena.games.btt import BTTState
from arena.games.btt_board import EMPTY, NULL, ROOT, Geometry
from arena.render.svg import View
from arena.render.svg.draw import (
    Point,
    caption,
    circle,
    document,
    group,
    legend,
    legend_width,
    num,
    polygon,
    text,
)
from arena.render.svg.palette import BOARD, GRID, HIGHLIGHT, INK, MUTED, PAPER, seat_colour, shade

SQUARE = 40.0
"""A square's side on the drawing."""
MARGIN = 24.0
ROOT_COLOUR = "#5b3a1a"
NULL_COLOUR = "#7a7a7a"


def _chess_corners(geo: Geometry) -> dict[int, list[Point]]:
    panel = geo.panels[0]
    corners: dict[int, list[Point]] = {}
    for r, row in enumerate(panel.rows):
        for c, sq in enumerate(row):
            if sq is not None:
                x, y = c * SQUARE, r * SQUARE
                corners[sq] = [(x, y), (x + SQUARE, y), (x + SQUARE, y + SQUARE), (x, y + SQUARE)]
    return corners


def _wedge_corners(geo: Geometry) -> dict[int, list[Point]]:
    n = geo.seats
    angle = 2 * math.pi / n

    def axis(k: int) -> Point:
        a = math.pi / 2 + k * angle  # section 0 opens downwards, the rest go round
        return math.cos(a) * SQUARE, math.sin(a) * SQUARE

    corners: dict[int, list[Point]] = {}
    for sq, name in enumerate(geo.names):
        s, i, j = geo.section[sq], int(name[1]), int(name[2])
        u, v = axis(s), axis(s + 1)

        def at(a: float, b: float) -> Point:
            return a * u[0] + b * v[0], a * u[1] + b * v[1]  # noqa: B023

        corners[sq] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]
    return corners


_CORNERS: dict[tuple[int, str], tuple[dict[int, list[Point]], tuple[float, float, float, float]]] = {}


def corners_of(geo: Geometry) -> tuple[dict[int, list[Point]], tuple[float, float, float, float]]:
    """Each square's four corners on the drawing, and the board's bounds (cached: the
    board is fixed by its seats and layout)."""
    key = (geo.seats, geo.board)
    if key not in _CORNERS:
        chess = geo.board == "rect" or geo.seats in (2, 4)
        corners = _chess_corners(geo) if chess else _wedge_corners(geo)
        spread = 1.0 if chess else 1.1  # room for the section letters beyond the far corners
        xs = [x * spread for c in corners.values() for x, _ in c]
        ys = [y * spread for c in corners.values() for _, y in c]
        _CORNERS[key] = corners, (min(xs), min(ys), max(xs), max(ys))
    return _CORNERS[key]


def _centre(points: list[Point]) -> Point:
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def _labels(geo: Geometry, corners: dict[int, list[Point]]) -> list[str]:
    """File and rank letters round a chessboard; section letters on a wedge board."""
    out: list[str] = []
    if geo.board == "rect" or geo.seats in (2, 4):
        panel = geo.panels[0]
        rows = len(panel.rows)
        for c, label in enumerate(panel.col_labels):
            out.append(text(c * SQUARE + SQUARE / 2, rows * SQUARE + 14, label, 11, MUTED, "middle"))
        for r, label in enumerate(panel.row_labels):
            out.append(text(-8, r * SQUARE + SQUARE / 2 + 4, label, 11, MUTED, "middle"))
        return out
    for s in range(geo.seats):
        far = corners[16 * s + 15][2]
        out.append(text(far[0] * 1.07, far[1] * 1.07 + 4, "abcdef"[s], 13, MUTED, "middle"))
    return out


def board_defs(geo: Geometry) -> str:
    """The empty board, drawn once per page (`<use href="#btt-board">`)."""
    corners, _ = corners_of(geo)
    squares = []
    for sq, points in corners.items():
        light = (sum(int(c) for c in geo.names[sq][1:]) + "abcdefgh".find(geo.names[sq][0])) % 2
        squares.append(polygon(points, BOARD if light else shade(BOARD, 0.93), GRID, stroke_width=0.6))
    walls = []
    if geo.board != "rect" and geo.seats == 5:  # the open seam of the "PacMan" board
        a, b = corners[16 * 4][0], corners[16 * 4 + 3][3]
        walls.append(f"<line x1=\"{num(a[0])}\" y1=\"{num(a[1])}\" x2=\"{num(b[0])}\" y2=\"{num(b[1])}\" "
                     f"stroke=\"{INK}\" stroke-width=\"3\"/>")
    return group([*squares, *walls, *_labels(geo, corners)], id="btt-board")


def defs(state: BTTState, view: View) -> str:
    shapes = [_pyramid_shape(seat, size, kind) for seat in range(state.num_seats) for size in (1, 2, 3)
              for kind in KINDS]
    return board_defs(state.geo) + "".join(_token_shapes()) + "".join(shapes)


def _pyramid_shape(seat: int, size: int, kind: str) -> str:
    """A pyramid lying down with its tip up (towards -y), centred on (0, 0): the
    triangle, its shaded face, one pip per size at its base, a barb on a thorn."""
    half = SQUARE * (0.2 + 0.07 * size)
    reach = SQUARE * (0.22 + 0.08 * size)
    base = SQUARE * (0.12 + 0.05 * size)
    tip, left, right = (0.0, -reach), (-base, half), (base, half)
    colour = seat_colour(seat)
    thorn = kind == "t"
    parts = [polygon([tip, left, right], colour, INK if thorn else shade(colour, 0.6),
                     stroke_width=2.2 if thorn else 1, stroke_linejoin="round"),
             polygon([tip, left, (0.0, half)], shade(colour, 0.8))]
    for k in range(size):
        parts.append(circle((k - (size - 1) / 2) * base * 0.55, half * 0.55, 1.9, PAPER))
    if thorn:
        parts.append(polygon([(0.0, -reach - 5), (3.0, -reach), (-3.0, -reach)], INK))
    return group(parts, id=f"btt-p{seat}{size}{kind}")


KINDS = {"t": "thorn", "w": "twig", "b": "branch"}
"""A pyramid's kind by what it points at: another seat's pyramid, its own, a root."""


def _pyramid(state: BTTState, sq: int, points: list[Point], corners: dict[int, list[Point]]) -> str:
    """A `<use>` of the pyramid's shape turned to point at its target; its id names the
    seat, size and kind (`#btt-p12t`: seat 1's size-2 thorn)."""
    seat, size, target = state.owner[sq], state.size[sq], state.target[sq]
    cx, cy = _centre(points)
    tx, ty = _centre(corners[target])
    angle = math.degrees(math.atan2(ty - cy, tx - cx)) + 90
    owner = state.owner[target]
    kind = "t" if owner >= 0 and owner != seat else ("b" if owner == ROOT else "w")
    return f"<use href=\"#btt-p{seat}{size}{kind}\" transform=\"translate({num(cx)},{num(cy)}) rotate({angle:.0f})\"/>"


def _tokens(kind: str, points: list[Point]) -> str:
    """A null (one token on a grey square) or a root (four tokens on brown earth)."""
    cx, cy = _centre(points)
    fill = NULL_COLOUR if kind == "null" else ROOT_COLOUR
    return (polygon(points, fill, INK, stroke_width=0.6) +
            f"<use href=\"#btt-{kind}\" x=\"{num(cx)}\" y=\"{num(cy)}\"/>")


def _token_shapes() -> list[str]:
    """The tokens of a null and of a root, centred on (0, 0)."""
    null = group([circle(0, 0, 5, "#d9d9d9", INK)], id="btt-null")
    tokens = [circle(dx, dy, 4.2, "#f0e6c8", INK, stroke_width=0.8)
              for dx, dy in ((-4.5, -4.5), (4.5, -4.5), (-4.5, 4.5), (4.5, 4.5))]
    return [null, group(tokens, id="btt-root")]


def _last_square(state: BTTState, last: str | None) -> int | None:
    if not last or last == "pass":
        return None
    name = last[1:] if last[0] in "NR" else last[1:].split(">")[0]
    return state.geo.index.get(name)


def spot(state: BTTState, action: str) -> str | None:
    """The square an action puts a piece on (several sizes and targets share it)."""
    square = _last_square(state, action)
    return None if square is None else state.geo.names[square]


def draw(state: BTTState, view: View) -> str:
    geo = state.geo
    corners, (x0, y0, x1, y1) = corners_of(geo)
    pieces: list[str] = []
    for sq, points in corners.items():
        owner = state.owner[sq]
        if owner == NULL:
            pieces.append(_tokens("null", points))
        elif owner == ROOT:
            pieces.append(_tokens("root", points))
        elif owner != EMPTY:
            pieces.append(_pyramid(state, sq, points, corners))
    marks: list[str] = []
    last_square = _last_square(state, view.last)
    if last_square is not None:
        ring = corners[last_square]
        marks.append(polygon(ring, "none", HIGHLIGHT, stroke_width=4, class_="last"))
        marks.append(polygon(ring, "none", INK, stroke_width=1.2))
    for name in view.spots:
        clicked = geo.index.get(name)
        if clicked is not None:
            cx, cy = _centre(corners[clicked])
            marks.append(group([polygon(corners[clicked], "#ffffff", "none", fill_opacity=0.01),
                                circle(cx, cy, 6, "none", INK, stroke_width=1.5, stroke_dasharray="2 2")],
                               class_="spot", data_spot=name))
    board_w, board_h = x1 - x0, y1 - y0
    ox, oy = MARGIN - x0, MARGIN - y0
    notes = []
    for seat in range(state.num_seats):
        ones, twos, threes = state.left[3 * seat:3 * seat + 3]
        notes.append(f"{state.scores[seat]} tokens · left 1:{ones} 2:{twos} 3:{threes}")
    to_move = state.current() if not state.over else None
    legend_y = board_h + 2 * MARGIN + 8
    names, height = legend(view.names, MARGIN, legend_y, notes, to_move if to_move is not None and to_move >= 0
                           else None)
    width = max(board_w + 2 * MARGIN, 380, legend_width(view.names, notes) + 2 * MARGIN)
    total = legend_y + height + (22 if view.status else 4)
    body = [f"<rect width=\"{num(width)}\" height=\"{num(total)}\" fill=\"{PAPER}\"/>",
            group(["<use href=\"#btt-board\"/>", *pieces, *marks], transform=f"translate({num(ox)},{num(oy)})"),
            *names]
    if view.status:
        body.append(caption(MARGIN, total - 8, view.status))
    return document(width, total, body, title=f"Branches and Twigs and Thorns, {state.num_seats} seats")
