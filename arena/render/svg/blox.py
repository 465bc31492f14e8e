"""Blox drawn as the construction stands on its base plate: isometric 2 x 4 bricks with
their studs, one colour per seat.

Every brick is a `<use>` of its seat's and orientation's shape (`#bx-<seat><H|V>`) and
carries the class `l<level>`, so a page can show the construction up to a chosen
level; bricks above level 0 show their level on top. Bricks are drawn back to front:
two bricks whose outlines overlap on the drawing are ordered by a plane between them
(boxes that do not overlap in space always have one along an axis), so the picture is
right from every angle of the construction, overhangs included. The base plate's edges
are named W, E, S, N as in the terminal view (over the bricks: a tall
construction at the back would hide them); in the bridge variant the four starting
bricks are outlined.
"""

from __future__ import annotations

import heapq
import math

from arena.games.blox import SIZE, BloxState, Brick
from arena.render.svg import View
from arena.render.svg.draw import caption, circle, document, group, legend, legend_width, num, points, polygon, text
from arena.render.svg.palette import HIGHLIGHT, INK, PAPER, seat_colour, shade

STUD = 13.0
"""A stud's pitch on the drawing."""
A = STUD * math.sqrt(3) / 2
B = STUD / 2
HEIGHT = 1.2
"""A brick's height in stud pitches (9.6 mm over 8 mm)."""
PLATE = "#9fb5a0"
MARGIN = 18.0

Box = tuple[float, float, float, float, float, float]
"""x0, x1, y0, y1, z0, z1 in stud pitches."""


def project(x: float, y: float, z: float) -> tuple[float, float]:
    return (x - y) * A, (x + y) * B - z * 2 * B


def _box(state: BloxState, brick: Brick) -> Box:
    x, y = state.geo.coords(brick.position)
    w, d = SIZE[brick.orientation]
    return x, x + w, y, y + d, brick.level * HEIGHT, (brick.level + 1) * HEIGHT


def _brick_shape(seat: int, orientation: str) -> str:
    """A brick with its lowest corner at the origin: top, the two faces in view, studs."""
    w, d = SIZE[orientation]
    colour = seat_colour(seat)
    edge = shade(colour, 0.45)

    def at(x: float, y: float, z: float) -> tuple[float, float]:
        return project(x, y, z)

    h = HEIGHT
    parts = [
        polygon([at(0, 0, h), at(w, 0, h), at(w, d, h), at(0, d, h)], colour, edge, stroke_width=0.7),
        polygon([at(w, 0, h), at(w, d, h), at(w, d, 0), at(w, 0, 0)], shade(colour, 0.8), edge, stroke_width=0.7),
        polygon([at(0, d, h), at(w, d, h), at(w, d, 0), at(0, d, 0)], shade(colour, 0.65), edge, stroke_width=0.7),
    ]
    for i in range(w):
        for j in range(d):
            cx, cy = at(i + 0.5, j + 0.5, h)
            size = f"rx=\"{num(A * 0.34)}\" ry=\"{num(B * 0.34)}\""
            parts.append(f"<ellipse cx=\"{num(cx)}\" cy=\"{num(cy + 1)}\" {size} fill=\"{shade(colour, 0.75)}\"/>"
                         f"<ellipse cx=\"{num(cx)}\" cy=\"{num(cy - 0.6)}\" {size} fill=\"{shade(colour, 1.18)}\"/>")
    return group(parts, id=f"bx-{seat}{orientation}")


def _plate(state: BloxState) -> str:
    """The base plate with its studs and edge names, under everything."""
    w, h = state.geo.width, state.geo.height
    parts = [polygon([project(0, 0, 0), project(w, 0, 0), project(w, h, 0), project(0, h, 0)], PLATE, INK,
                     stroke_width=0.8),
             polygon([project(w, 0, 0), project(w, h, 0), project(w, h, -0.4), project(w, 0, -0.4)],
                     shade(PLATE, 0.8), INK, stroke_width=0.6),
             polygon([project(0, h, 0), project(w, h, 0), project(w, h, -0.4), project(0, h, -0.4)],
                     shade(PLATE, 0.65), INK, stroke_width=0.6)]
    stud = shade(PLATE, 1.15)
    for x in range(w):
        for y in range(h):
            cx, cy = project(x + 0.5, y + 0.5, 0)
            parts.append(f"<ellipse cx=\"{num(cx)}\" cy=\"{num(cy)}\" rx=\"{num(A * 0.3)}\" ry=\"{num(B * 0.3)}\" "
                         f"fill=\"{stud}\"/>")
    return group(parts, id="bx-plate")


def _compass(state: BloxState) -> str:
    """The edges' names, drawn over everything on a white disc: a brick standing at the
    back edges (W, S) would hide a name drawn with the plate. Not in a level's class,
    so no choice of levels hides them."""
    w, h = state.geo.width, state.geo.height
    parts = []
    for label, (ex, ey) in (("W", (-1.2, h / 2)), ("E", (w + 1.2, h / 2)), ("S", (w / 2, -1.2)),
                            ("N", (w / 2, h + 1.2))):
        lx, ly = project(ex, ey, 0)
        parts.append(circle(lx, ly, 8, PAPER, INK, stroke_width=0.6, fill_opacity=0.9))
        parts.append(text(lx, ly + 4, label, 12, INK, "middle", font_weight="bold", class_="edge", data_edge=label))
    return group(parts, class_="compass")


def defs(state: BloxState, view: View) -> str:
    shapes = [_brick_shape(seat, o) for seat in range(state.num_seats) for o in SIZE]
    return _plate(state) + "".join(shapes)


def _screen_ranges(box: Box) -> tuple[tuple[float, float], ...]:
    """The box's outline on the drawing as ranges along the normals of its three edge
    directions (two such outlines overlap when all three ranges do)."""
    x0, x1, y0, y1, z0, z1 = box
    corners = [project(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    normals = ((-B, A), (B, A), (1.0, 0.0))
    ranges = []
    for nx, ny in normals:
        values = [sx * nx + sy * ny for sx, sy in corners]
        ranges.append((min(values), max(values)))
    return tuple(ranges)


def _in_front(a: Box, b: Box) -> bool | None:
    """True when b is in front of a (drawn after it), False when behind, None when a
    plane along no axis separates them (they overlap: cannot happen for placed bricks)."""
    for axis in range(3):
        lo, hi = 2 * axis, 2 * axis + 1
        if a[hi] <= b[lo]:
            return True
        if b[hi] <= a[lo]:
            return False
    return None


def drawing_order(boxes: list[Box]) -> list[int]:
    """Indices of `boxes` back to front: a topological order of "is in front of" over
    the pairs whose outlines overlap on the drawing (a sweep along the screen's x keeps
    the pairs few); ties go to the nearer corner last."""
    ranges = [_screen_ranges(b) for b in boxes]
    by_left = sorted(range(len(boxes)), key=lambda i: ranges[i][2][0])
    after: list[list[int]] = [[] for _ in boxes]
    before = [0] * len(boxes)
    open_: list[int] = []
    for i in by_left:
        left = ranges[i][2][0]
        open_ = [j for j in open_ if ranges[j][2][1] > left]
        for j in open_:
            if all(ranges[i][k][0] < ranges[j][k][1] and ranges[j][k][0] < ranges[i][k][1] for k in range(2)):
                front = _in_front(boxes[j], boxes[i])
                if front is True:
                    after[j].append(i)
                    before[i] += 1
                elif front is False:
                    after[i].append(j)
                    before[j] += 1
        open_.append(i)

    def depth(i: int) -> tuple[float, int]:
        x0, _, y0, _, z0, _ = boxes[i]
        return x0 + y0 + z0, i

    ready = [depth(i) for i in range(len(boxes)) if before[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for j in after[i]:
            before[j] -= 1
            if before[j] == 0:
                heapq.heappush(ready, depth(j))
    if len(order) < len(boxes):  # a cycle (three bricks in a pinwheel): the rest by depth
        order += sorted((i for i in range(len(boxes)) if i not in set(order)), key=depth)
    return order


def _last_index(state: BloxState, view: View) -> int | None:
    if not view.last or view.last == "pass":
        return None
    names = [state.brick_name(b) for b in state.bricks]
    return len(names) - 1 - names[::-1].index(view.last) if view.last in names else None


def spot(state: BloxState, action: str) -> str | None:
    """The lowest stud and level of a placement (an H and a V brick may share it)."""
    if action == "pass" or action[:1] not in SIZE:
        return None
    return action[1:]


def _outline(box: Box) -> list[tuple[float, float]]:
    x0, x1, y0, y1, z0, z1 = box
    return [project(*c) for c in ((x0, y0, z1), (x1, y0, z1), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y1, z1))]


def draw(state: BloxState, view: View) -> str:
    boxes = [_box(state, b) for b in state.bricks]
    geo = state.geo
    corners = [(0.0, 0.0, -0.4), (geo.width, geo.height, -0.4), (geo.width, 0.0, 0.0), (0.0, geo.height, 0.0),
               (-2.0, geo.height / 2, 0.0), (geo.width + 2.0, geo.height / 2, 0.0), (geo.width / 2, -2.0, 0.0),
               (geo.width / 2, geo.height + 2.0, 0.0)]
    for x0, x1, y0, y1, z0, z1 in boxes:
        corners += [(x0, y0, z1), (x1, y1, z0), (x1, y0, z0), (x0, y1, z0)]
    screen = [project(*c) for c in corners]
    sx0, sx1 = min(x for x, _ in screen), max(x for x, _ in screen)
    sy0, sy1 = min(y for _, y in screen), max(y for _, y in screen)
    parts = ["<use href=\"#bx-plate\"/>"]
    starts = {i for pair in state.starts for i in pair}
    for i in drawing_order(boxes):
        brick = state.bricks[i]
        x0, _, y0, _, z0, _ = boxes[i]
        px, py = project(x0, y0, z0)
        parts.append(f"<use href=\"#bx-{brick.owner}{brick.orientation}\" x=\"{num(px)}\" y=\"{num(py)}\" "
                     f"class=\"l{brick.level}\"/>")
        if brick.level:
            w, d = SIZE[brick.orientation]
            lx, ly = project(x0 + w / 2, y0 + d / 2, boxes[i][5])
            parts.append(text(lx, ly + 4, str(brick.level), 10, INK, "middle", font_weight="bold",
                              class_=f"l{brick.level}"))
        if i in starts:
            parts.append(polygon(_outline(boxes[i]), "none", INK, stroke_width=2, stroke_dasharray="4 2",
                                 class_=f"l{brick.level}"))
    last = _last_index(state, view)
    if last is not None:
        ring = points(_outline(boxes[last]))
        level = state.bricks[last].level
        parts.append(f"<polygon points=\"{ring}\" fill=\"none\" stroke=\"{HIGHLIGHT}\" stroke-width=\"3.5\" "
                     f"class=\"last l{level}\"/><polygon points=\"{ring}\" fill=\"none\" stroke=\"{INK}\" "
                     f"stroke-width=\"1\" class=\"l{level}\"/>")
    for name in view.spots:
        x, y, z = (int(v) for v in name.split(","))
        cx, cy = project(x + 0.5, y + 0.5, z * HEIGHT)
        parts.append(f"<circle cx=\"{num(cx)}\" cy=\"{num(cy)}\" r=\"4\" fill=\"#ffffff\" fill-opacity=\"0.6\" "
                     f"stroke=\"{INK}\" class=\"spot l{z}\" data-spot=\"{name}\"/>")
    notes = [f"{state.left[seat]} bricks left" for seat in range(state.num_seats)]
    width = max(sx1 - sx0 + 2 * MARGIN, legend_width(view.names, notes) + 2 * MARGIN)
    ox = (width - (sx1 - sx0)) / 2 - sx0
    legend_y = sy1 - sy0 + 2 * MARGIN
    to_move = state.current()
    names, height = legend(view.names, MARGIN, legend_y, notes, to_move if to_move >= 0 else None)
    total = legend_y + height + (22 if view.status else 4)
    body = [f"<rect width=\"{num(width)}\" height=\"{num(total)}\" fill=\"{PAPER}\"/>",
            group(parts, transform=f"translate({num(ox)},{num(MARGIN - sy0)})"),
            group([_compass(state)], transform=f"translate({num(ox)},{num(MARGIN - sy0)})"), *names]
    if view.status:
        body.append(caption(MARGIN, total - 8, view.status))
    return document(width, total, body, title=f"Blox, {geo.width} x {geo.height}")
