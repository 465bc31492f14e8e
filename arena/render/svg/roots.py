"""Roots drawn as the planet sheet: a round planet of hexagonal regions, each tree
standing on the surface where it was planted, its roots drawn as curves from region to
region in its pencil's colour.

A stroke is a curve from the middle of its entry side through the region to each
exit (a fork is a Y of two or three curves). An open root tip is a ring on its side.
Regions each seat controls (rules/roots.md: occupied by it alone, or empty and reached
by it alone) are shaded in its colour. Beside the planet: the twelve suns with the
round circled, the regular and special dice pools, each seat's kept die and the
power-ups it has used (struck through). The planet, its region names and the surface
segment numbers (the `plant` notation) are drawn once per page (`defs`); a frame holds
only what changes, so a 200-ply page stays small.
"""

from __future__ import annotations

import math

from arena.games.roots import RootsState
from arena.games.roots_pieces import PLANT_WIDTH, ROUNDS
from arena.render.svg import View
from arena.render.svg.draw import caption, document, group, legend, legend_width, num, polygon, text
from arena.render.svg.palette import HIGHLIGHT, INK, MUTED, PAPER, seat_colour, shade

R = 22.0
"""A region's radius (centre to corner)."""
EARTH = "#d8c3a0"
SPACE = "#1d2b44"
DIE = 18.0
TREE_ROOM = 24.0
"""Room beyond space's edge for the trees."""
POWER_NAMES = (("reroll", "reroll"), ("fast", "fast growth"), ("cross", "cross root"))


def _centre(q: int, r: int) -> tuple[float, float]:
    return 1.5 * q * R, math.sqrt(3) * (r + q / 2) * R


def _corner(cx: float, cy: float, k: int) -> tuple[float, float]:
    angle = math.radians(60 * k)
    return cx + R * math.cos(angle), cy + R * math.sin(angle)


def _midpoint(cx: float, cy: float, side: int) -> tuple[float, float]:
    """The middle of side 0 (N) .. 5 (NW), clockwise on screen."""
    angle = math.radians(-90 + 60 * side)
    d = R * math.sqrt(3) / 2
    return cx + d * math.cos(angle), cy + d * math.sin(angle)


def _int(value: float) -> str:
    return str(round(value))


def _surface_point(state: RootsState, segment: int, out: float) -> tuple[float, float]:
    """A point `out` beyond the middle of surface segment `segment`, away from the centre."""
    region, side = state.planet.surface[segment]
    cx, cy = _centre(*state.planet.axial[region])
    mx, my = _midpoint(cx, cy, side)
    d = math.hypot(mx, my) or 1.0
    return mx + mx / d * out, my + my / d * out


def _planet(state: RootsState) -> str:
    """Space and the planet's earth (`#rt-planet`, under the shading), then the regions'
    outlines and names, the surface and its segment numbers (`#rt-planet-lines`, over it)."""
    planet = state.planet
    radius = max(math.hypot(*_centre(q, r)) for q, r in planet.axial) + R * 1.2
    ground = [f"<circle r=\"{_int(radius + 30)}\" fill=\"{SPACE}\"/>"]
    lines = []
    for region, (q, r) in enumerate(planet.axial):
        cx, cy = _centre(q, r)
        hexagon = [_corner(cx, cy, k) for k in range(6)]
        ground.append(polygon(hexagon, EARTH))
        lines.append(polygon(hexagon, "none", shade(EARTH, 0.55), stroke_width=0.8))
        lines.append(text(cx, cy + R * 0.62, planet.names[region], 6.5, shade(EARTH, 0.4), "middle"))
    surface = []
    for segment, (region, side) in enumerate(planet.surface):
        cx, cy = _centre(*planet.axial[region])
        a, b = _corner(cx, cy, (side + 4) % 6), _corner(cx, cy, (side + 5) % 6)
        surface.append(f"M{_int(a[0])} {_int(a[1])}L{_int(b[0])} {_int(b[1])}")
        lx, ly = _surface_point(state, segment, 11)
        lines.append(text(lx, ly + 3, str(segment), 7, "#c9d3e6", "middle"))
    lines.append(f"<path d=\"{''.join(surface)}\" stroke=\"#7a5a2a\" stroke-width=\"3\" fill=\"none\" "
                 f"stroke-linecap=\"round\"/>")
    return group(ground, id="rt-planet") + group(lines, id="rt-planet-lines")


def _die_shape(value: int, special: bool) -> str:
    """A die face, its corner at the origin: white regular dice, golden special ones."""
    face = "#f4c542" if special else "#ffffff"
    parts = [f"<rect width=\"{_int(DIE)}\" height=\"{_int(DIE)}\" rx=\"3\" fill=\"{face}\" stroke=\"{INK}\"/>"]
    pips = {1: [(2, 2)], 2: [(1, 1), (3, 3)], 3: [(1, 1), (2, 2), (3, 3)], 4: [(1, 1), (3, 1), (1, 3), (3, 3)],
            5: [(1, 1), (3, 1), (2, 2), (1, 3), (3, 3)], 6: [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)]}
    for px, py in pips[value]:
        parts.append(f"<circle cx=\"{num(px * DIE / 4)}\" cy=\"{num(py * DIE / 4)}\" r=\"1.7\" fill=\"{INK}\"/>")
    return group(parts, id=f"rt-{'s' if special else 'r'}{value}")


def _sun(lit: bool) -> str:
    rays = "".join(f"M{num(6 * math.cos(a))} {num(6 * math.sin(a))}L{num(9 * math.cos(a))} {num(9 * math.sin(a))}"
                   for a in (math.radians(45 * k) for k in range(8)))
    colour = "#f2a900" if lit else "#c8c8c8"
    return group([f"<circle r=\"4.5\" fill=\"{colour}\"/>", f"<path d=\"{rays}\" stroke=\"{colour}\" "
                  "stroke-width=\"1.5\"/>"], id=f"rt-sun{'1' if lit else '0'}")


def _suns(played: int) -> str:
    """The twelve suns of the sheet, those of the rounds begun lit, the current one
    circled (one shape per round, so a frame names it in a word)."""
    parts = []
    for k in range(ROUNDS):
        sx, sy = 10 + (k % 6) * 22, (k // 6) * 22
        parts.append(f"<use href=\"#rt-sun{1 if k < played else 0}\" x=\"{sx}\" y=\"{sy}\"/>")
        if k + 1 == played:
            parts.append(f"<circle cx=\"{sx}\" cy=\"{sy}\" r=\"10.5\" fill=\"none\" stroke=\"{INK}\" "
                         "stroke-width=\"1.5\"/>")
    return group(parts, id=f"rt-suns{played}")


def _tree(seat: int) -> str:
    """A tree standing on the surface, pointing up from the origin (its roots' foot)."""
    colour = seat_colour(seat)
    return group(["<rect x=\"-3\" y=\"-20\" width=\"6\" height=\"20\" fill=\"#6d4c2f\"/>",
                  f"<circle cy=\"-26\" r=\"12\" fill=\"{colour}\" stroke=\"{INK}\"/>",
                  f"<circle cx=\"-8\" cy=\"-18\" r=\"7\" fill=\"{shade(colour, 0.8)}\" stroke=\"{INK}\"/>",
                  f"<circle cx=\"8\" cy=\"-18\" r=\"7\" fill=\"{shade(colour, 0.8)}\" stroke=\"{INK}\"/>"],
                 id=f"rt-tree{seat}")


def defs(state: RootsState, view: View) -> str:
    planet = state.planet
    hexes = []
    for region, (q, r) in enumerate(planet.axial):
        cx, cy = _centre(q, r)
        corners = " ".join(f"{_int(x)},{_int(y)}" for x, y in (_corner(cx, cy, k) for k in range(6)))
        hexes.append(f"<polygon id=\"rh{region}\" points=\"{corners}\"/>")
    dice = [_die_shape(v, s) for s in (False, True) for v in range(1, 7)]
    return (_planet(state) + "".join(hexes) + "".join(dice) + _sun(True) + _sun(False)
            + "".join(_suns(k) for k in range(ROUNDS + 1)) + _tree(0) + _tree(1)
            + f"<circle id=\"rt-tip\" r=\"3.2\" fill=\"{PAPER}\" stroke-width=\"2\"/>")


def _control(state: RootsState) -> list[list[int]]:
    """The regions each seat controls (rules/roots.md scoring)."""
    occupied = [0] * state.planet.size
    for region, strokes in enumerate(state.strokes):
        for stroke in strokes:
            occupied[region] |= 1 << stroke.owner
    reach = (state.reach(0), state.reach(1))
    control: list[list[int]] = [[], []]
    for region, owners in enumerate(occupied):
        if owners in (1, 2):
            control[owners - 1].append(region)
        elif owners == 0 and (region in reach[0]) != (region in reach[1]):
            control[0 if region in reach[0] else 1].append(region)
    return control


def _roots(state: RootsState) -> list[str]:
    """Each seat's strokes as one path of curves through the regions' centres."""
    paths: list[list[str]] = [[], []]
    for region, strokes in enumerate(state.strokes):
        cx, cy = _centre(*state.planet.axial[region])
        for stroke in strokes:
            ex, ey = _midpoint(cx, cy, stroke.entry)
            for side in state.exits_of(stroke):
                x, y = _midpoint(cx, cy, side)
                # A curve bending through the region, never through its centre exactly,
                # so two roots that meet at the centre stay apart.
                mx, my = cx + (ex + x - 2 * cx) * 0.18, cy + (ey + y - 2 * cy) * 0.18
                paths[stroke.owner].append(f"M{_int(ex)} {_int(ey)}Q{_int(mx)} {_int(my)} {_int(x)} {_int(y)}")
    out = []
    for seat, parts in enumerate(paths):
        if parts:
            out.append(f"<path d=\"{''.join(parts)}\" fill=\"none\" stroke=\"{seat_colour(seat)}\" "
                       f"stroke-width=\"3.2\" stroke-linecap=\"round\" class=\"roots\" data-seat=\"{seat}\" "
                       f"data-strokes=\"{len(parts)}\"/>")
    return out


def _planted(state: RootsState) -> list[list[int]]:
    """The surface segments each tree grew from (used surface sides, by whose root)."""
    seats: list[list[int]] = [[], []]
    for segment, (region, side) in enumerate(state.planet.surface):
        if not state.used[region] >> side & 1:
            continue
        for seat in (0, 1):
            if (region, side) in state.tips[seat] or any(
                    s.owner == seat and s.entry == side for s in state.strokes[region]):
                seats[seat].append(segment)
    return seats


def _trees(state: RootsState) -> list[str]:
    out = []
    count = len(state.planet.surface)
    for seat, segments in enumerate(_planted(state)):
        if not segments:
            continue
        ordered = sorted(segments)
        if ordered[-1] - ordered[0] >= PLANT_WIDTH:  # the five wrap round segment 0
            ordered = sorted(s if s >= count // 2 else s + count for s in segments)
        middle = ordered[len(ordered) // 2] % count
        fx, fy = _surface_point(state, middle, 16)
        angle = math.degrees(math.atan2(fx, -fy))
        feet = [_surface_point(state, s % count, 1) for s in ordered]
        lines = "".join(f"M{_int(fx)} {_int(fy)}L{_int(x)} {_int(y)}" for x, y in feet)
        out.append(f"<path d=\"{lines}\" stroke=\"#6d4c2f\" stroke-width=\"2\" fill=\"none\"/>")
        out.append(f"<use href=\"#rt-tree{seat}\" transform=\"translate({_int(fx)},{_int(fy)}) "
                   f"rotate({angle:.0f})\" class=\"tree\" data-seat=\"{seat}\"/>")
    return out


def _last_marks(state: RootsState, view: View) -> list[str]:
    """The last stroke's region ringed, or the last tree's segments."""
    last = view.last or ""
    words = last.split()
    marks = []
    tips = [w for w in words if "/" in w and "," in w]
    for tip in tips:
        name = tip.split("/")[0]
        region = state.planet.index.get(name)
        if region is not None:
            cx, cy = _centre(*state.planet.axial[region])
            ring = [_corner(cx, cy, k) for k in range(6)]
            marks.append(polygon(ring, "none", HIGHLIGHT, stroke_width=3.5, class_="last"))
            marks.append(polygon(ring, "none", INK, stroke_width=1))
    if words[:1] == ["plant"] and len(words) == 2 and words[1].isdigit():
        count = len(state.planet.surface)
        for i in range(PLANT_WIDTH):
            x, y = _surface_point(state, (int(words[1]) + i) % count, 0)
            marks.append(f"<circle cx=\"{_int(x)}\" cy=\"{_int(y)}\" r=\"5\" fill=\"none\" stroke=\"{HIGHLIGHT}\" "
                         "stroke-width=\"3\" class=\"last\"/>")
    return marks


def spot(state: RootsState, action: str) -> str | None:
    """Where a person clicks for an action: the tip a draw or merge grows from, or the
    first surface segment of a plant (`s<k>`)."""
    words = action.split()
    if words[:1] == ["plant"]:
        return f"s{words[1]}"
    if words[:1] in (["draw"], ["merge"]) and len(words) >= 3:
        return words[2]
    return None


def _spot_marks(state: RootsState, spots: tuple[str, ...]) -> list[str]:
    marks = []
    for name in spots:
        if name.startswith("s"):
            x, y = _surface_point(state, int(name[1:]), 11)
        else:
            region_name, side = name.split("/")
            region = state.planet.index[region_name]
            x, y = _midpoint(*_centre(*state.planet.axial[region]), int(side))
        marks.append(f"<circle cx=\"{_int(x)}\" cy=\"{_int(y)}\" r=\"7\" fill=\"#ffffff\" fill-opacity=\"0.5\" "
                     f"stroke=\"{INK}\" stroke-dasharray=\"2 2\" class=\"spot\" data-spot=\"{name}\"/>")
    return marks


def _side_panel(state: RootsState, x: float, y: float) -> list[str]:
    """The suns (rounds), the dice pools, each seat's kept die and power-ups."""
    out = [text(x, y, f"round {state.round} of {ROUNDS}", 12, INK),
           f"<use href=\"#rt-suns{state.round}\" x=\"{_int(x)}\" y=\"{_int(y + 16)}\"/>"]
    y += 68
    for label, values, special in (("regular pool", state.regular, False), ("special pool", state.special, True)):
        out.append(text(x, y, label, 11, MUTED))
        for i, value in enumerate(values):
            out.append(f"<use href=\"#rt-{'s' if special else 'r'}{value}\" x=\"{_int(x + i * (DIE + 4))}\" "
                       f"y=\"{_int(y + 5)}\" class=\"die\"/>")
        if not values:
            out.append(text(x, y + 18, "empty", 11, MUTED))
        y += DIE + 24
    return [group(out, class_="pools")]


def _seat_notes(state: RootsState, control: list[list[int]]) -> list[str]:
    notes = []
    for seat in (0, 1):
        kept = state.kept[seat]
        powers = state.powers[seat]
        used = [name for attr, name in POWER_NAMES if not getattr(powers, attr)]
        parts = [f"{len(control[seat])} regions", f"kept r{kept}" if kept else "no kept die"]
        if state.left[seat]:
            parts.append("left the round")
        parts.append("used: " + (", ".join(used) if used else "no power-up"))
        notes.append(" · ".join(parts))
    return notes


def draw(state: RootsState, view: View) -> str:
    control = _control(state)
    planet_radius = max(math.hypot(*_centre(q, r)) for q, r in state.planet.axial) + R * 1.2 + 30
    size = 2 * (planet_radius + TREE_ROOM)
    place = f"translate({_int(planet_radius + TREE_ROOM)},{_int(planet_radius + TREE_ROOM)})"
    # Each layer is a line of its own: a page keeps a layer once for all the plies it
    # does not change (a seat's roots while the other draws, the board while dice roll).
    layers = ["<use href=\"#rt-planet\"/>"]
    for seat in (0, 1):
        if control[seat]:
            tint = shade(seat_colour(seat), 1.62)
            layers.append(group([f"<use href=\"#rh{region}\"/>" for region in control[seat]], fill=tint,
                                fill_opacity=0.85, class_="control", data_seat=seat,
                                data_regions=len(control[seat])))
    layers.append("<use href=\"#rt-planet-lines\"/>")
    layers += _roots(state)
    for seat in (0, 1):
        rings = []
        for region, side in sorted(state.tips[seat]):
            x, y = _midpoint(*_centre(*state.planet.axial[region]), side)
            rings.append(f"<use href=\"#rt-tip\" x=\"{_int(x)}\" y=\"{_int(y)}\"/>")
        if rings:
            layers.append(group(rings, stroke=seat_colour(seat), class_="tips", data_seat=seat))
    layers.append(group(_trees(state)))
    layers.append(group(_last_marks(state, view) + _spot_marks(state, view.spots)))
    panel_x = size + 20
    side_panel = _side_panel(state, panel_x, 24)
    notes = _seat_notes(state, control)
    legend_y = size + 12
    to_move = state.current()
    names, height = legend(view.names, 16, legend_y, notes, to_move if to_move >= 0 else None)
    width = max(panel_x + 6 * 22 + 20, legend_width(view.names, notes) + 32)
    total = legend_y + height + (22 if view.status else 4)
    body = [f"<rect width=\"{_int(width)}\" height=\"{_int(total)}\" fill=\"{PAPER}\"/>",
            f"<g transform=\"{place}\" class=\"board\">", *layers, "</g>", *side_panel, *names]
    if view.status:
        body.append(caption(16, total - 8, view.status))
    return document(width, total, body, title="Roots")
