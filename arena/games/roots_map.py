"""Roots planets as data (rules/roots.md): regions with six sides each, every side a
neighbour or a surface segment. The hex disc of any radius is generated; other maps
load from a JSON file (docs/games/roots.md gives the format).

Regions are named by axial coordinates "q,r" (flat-top hexagons, y down on screen);
sides are numbered clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW. Side k of
a region is side (k + 3) mod 6 of its neighbour across it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from arena.games.base import GameError

DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
"""Axial step across each side 0..5."""
SIDES = 6


@dataclass(frozen=True)
class PlanetMap:
    """A planet: region names and axial positions, each region's neighbour across each
    side (-1 on the surface), and the surface segments in clockwise order."""

    names: tuple[str, ...]
    axial: tuple[tuple[int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    surface: tuple[tuple[int, int], ...]
    """Segment number -> (region, side)."""
    segment_of: dict[tuple[int, int], int]
    """(region, side) -> segment number, for surface sides."""
    index: dict[str, int]

    @property
    def size(self) -> int:
        return len(self.names)


def region_name(q: int, r: int) -> str:
    return f"{q},{r}"


def parse_region(text: str) -> tuple[int, int]:
    """"q,r" -> (q, r); GameError otherwise."""
    parts = text.split(",")
    if len(parts) != 2:
        raise GameError(f"region {text!r} is not written q,r")
    try:
        q, r = int(parts[0]), int(parts[1])
    except ValueError:
        raise GameError(f"region {text!r} is not written q,r with whole numbers") from None
    return q, r


def side_angle(q: int, r: int, side: int) -> tuple[float, float]:
    """(clockwise angle from north in degrees, distance) of a side's midpoint seen from
    the centre of the planet, on screen with y down."""
    x = 1.5 * q
    y = math.sqrt(3) * (r + q / 2)
    dq, dr = DIRECTIONS[side]
    x += 0.75 * dq
    y += math.sqrt(3) / 2 * (dr + dq / 2)
    angle = math.degrees(math.atan2(x, -y)) % 360.0
    return round(angle, 9) % 360.0, math.hypot(x, y)


def build_map(sides: dict[str, list[str | None]], surface: list[tuple[str, int]] | None = None) -> PlanetMap:
    """A map from each region's six neighbours (None on the surface), checked: names
    are q,r, neighbours exist and agree both ways. The surface order is given or
    found by the midpoints' angles, clockwise from north."""
    names = tuple(sides)
    index = {name: i for i, name in enumerate(names)}
    axial = tuple(parse_region(name) for name in names)
    neighbours: list[tuple[int, ...]] = []
    for name in names:
        row = sides[name]
        if len(row) != SIDES:
            raise GameError(f"map: region {name} has {len(row)} sides; give exactly 6 (neighbour or null)")
        ids = []
        for k, other in enumerate(row):
            if other is None:
                ids.append(-1)
                continue
            if other not in index:
                raise GameError(f"map: side {k} of {name} names {other!r}, which is not a region of the map")
            back = sides[other][(k + 3) % SIDES]
            if back != name:
                raise GameError(f"map: side {k} of {name} is {other} but side {(k + 3) % SIDES} of {other} is "
                                f"{back!r}; a shared side must name each region from the other")
            ids.append(index[other])
        neighbours.append(tuple(ids))
    open_sides = [(i, k) for i in range(len(names)) for k in range(SIDES) if neighbours[i][k] < 0]
    if surface is None:
        ordered = sorted(open_sides, key=lambda rk: side_angle(axial[rk[0]][0], axial[rk[0]][1], rk[1]))
    else:
        ordered = []
        for name, k in surface:
            if name not in index or not 0 <= k < SIDES:
                raise GameError(f"map: surface segment {name}/{k} is not a side of a region")
            ordered.append((index[name], k))
        if sorted(ordered) != sorted(open_sides) or len(set(ordered)) != len(ordered):
            raise GameError("map: the surface list must name every side without a neighbour exactly once")
    if not ordered:
        raise GameError("map: the planet has no surface segment to plant in")
    return PlanetMap(names, axial, tuple(neighbours), tuple(ordered),
                     {rk: n for n, rk in enumerate(ordered)}, index)


@lru_cache(maxsize=8)
def hex_disc(radius: int) -> PlanetMap:
    """The hex disc of `radius` (61 regions at 4, 37 at 3), regions in row order."""
    cells = [(q, r) for r in range(-radius, radius + 1) for q in range(-radius, radius + 1)
             if max(abs(q), abs(r), abs(q + r)) <= radius]
    inside = set(cells)
    sides: dict[str, list[str | None]] = {}
    for q, r in cells:
        row: list[str | None] = []
        for dq, dr in DIRECTIONS:
            other = (q + dq, r + dr)
            row.append(region_name(*other) if other in inside else None)
        sides[region_name(q, r)] = row
    return build_map(sides)


@lru_cache(maxsize=8)
def load_map(path: str) -> PlanetMap:
    """A map file: {"sides": {"q,r": [6 neighbours or null]}, "surface": [["q,r", side], ...]}
    ("surface" optional). GameError naming the problem otherwise."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise GameError(f"map file {path}: cannot read it ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise GameError(f"map file {path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("sides"), dict) or not data["sides"]:
        raise GameError(f"map file {path}: needs an object with \"sides\": {{\"q,r\": [6 neighbours or null]}}")
    surface = data.get("surface")
    pairs = None
    if surface is not None:
        if not isinstance(surface, list) or not all(
                isinstance(s, list) and len(s) == 2 and isinstance(s[0], str) and isinstance(s[1], int)
                for s in surface):
            raise GameError(f"map file {path}: \"surface\" must be a list of [\"q,r\", side] pairs")
        pairs = [(str(s[0]), int(s[1])) for s in surface]
    return build_map({str(k): list(v) for k, v in data["sides"].items()}, pairs)


def map_to_json(planet: PlanetMap) -> str:
    """A map file's text for `planet` (to start a custom map from the disc)."""
    sides = {name: [planet.names[j] if j >= 0 else None for j in planet.neighbours[i]]
             for i, name in enumerate(planet.names)}
    surface = [[planet.names[i], k] for i, k in planet.surface]
    return json.dumps({"sides": sides, "surface": surface}, indent=1)
