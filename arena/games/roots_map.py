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

from arena.errors import excerpt
from arena.games.base import GameError
from arena.games.numbers import canonical_int

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


REGION_MAX = 1000
"""Largest axial coordinate of a map's region (a map is a few KB)."""


def parse_region(text: str) -> tuple[int, int]:
    """"q,r" -> (q, r); GameError otherwise."""
    parts = text.split(",")
    if len(parts) != 2:
        raise GameError(f"region {excerpt(text)} is not written q,r")
    q, r = (canonical_int(part, -REGION_MAX, REGION_MAX) for part in parts)
    if q is None or r is None:
        raise GameError(f"region {excerpt(text)} is not written q,r with whole numbers from {-REGION_MAX} to "
                        f"{REGION_MAX} (like 0,-2)")
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


MIN_SURFACE = 10
"""Two trees of 5 consecutive segments each must fit on the surface."""


def _check_rows(sides: dict[str, list[str | None]]) -> None:
    """Every region has a list of exactly six entries, each a region name or None."""
    for name, row in sides.items():
        if not isinstance(row, list) or len(row) != SIDES:
            count = f"{len(row)} entries" if isinstance(row, list) else f"a {type(row).__name__}"
            raise GameError(f"map: region {name} has {count}; give a list of exactly 6 sides "
                            f"(N, NE, SE, S, SW, NW), each a neighbour \"q,r\" or null")
        for k, other in enumerate(row):
            if other is not None and not isinstance(other, str):
                raise GameError(f"map: side {k} of {name} is {excerpt(str(other))}; "
                                'write a neighbour as "q,r" or null')
            if other == name:
                raise GameError(f"map: side {k} of {name} names the region itself; give another region or null")


def _neighbour_ids(sides: dict[str, list[str | None]], index: dict[str, int]) -> list[tuple[int, ...]]:
    """Each region's neighbour index per side (-1 on the surface): every name a region
    of the map first, then every shared side named from both regions."""
    for name, row in sides.items():
        for k, other in enumerate(row):
            if other is not None and other not in index:
                raise GameError(f"map: side {k} of {name} names {excerpt(str(other))}, which is not a region "
                                "of the map; add it or write null")
    neighbours: list[tuple[int, ...]] = []
    for name, row in sides.items():
        ids = []
        for k, other in enumerate(row):
            if other is None:
                ids.append(-1)
                continue
            back = sides[other][(k + 3) % SIDES]
            if back != name:
                raise GameError(f"map: side {k} of {name} is {other} but side {(k + 3) % SIDES} of {other} is "
                                f"{back!r}; a shared side must name each region from the other")
            ids.append(index[other])
        neighbours.append(tuple(ids))
    return neighbours


def _surface_order(names: tuple[str, ...], index: dict[str, int], axial: tuple[tuple[int, int], ...],
                   neighbours: list[tuple[int, ...]],
                   surface: list[tuple[str, int]] | None) -> list[tuple[int, int]]:
    """The surface segments in number order: as given, or clockwise by angle from north."""
    open_sides = [(i, k) for i in range(len(names)) for k in range(SIDES) if neighbours[i][k] < 0]
    if surface is None:
        return sorted(open_sides, key=lambda rk: side_angle(axial[rk[0]][0], axial[rk[0]][1], rk[1]))
    ordered = []
    for name, k in surface:
        if name not in index or not 0 <= k < SIDES:
            raise GameError(f"map: surface segment {name}/{k} is not a side of a region (sides are 0-5)")
        if neighbours[index[name]][k] >= 0:
            raise GameError(f"map: surface segment {name}/{k} has a neighbour; list only sides that are null")
        ordered.append((index[name], k))
    if len(set(ordered)) != len(ordered) or set(ordered) != set(open_sides):
        missing = sorted(set(open_sides) - set(ordered))
        hint = f" (missing {names[missing[0][0]]}/{missing[0][1]})" if missing else " (one is listed twice)"
        raise GameError("map: the surface list must name every side without a neighbour exactly once" + hint)
    return ordered


def build_map(sides: dict[str, list[str | None]], surface: list[tuple[str, int]] | None = None) -> PlanetMap:
    """A map from each region's six neighbours (None on the surface), checked: names
    are q,r, neighbours exist and agree both ways, at least 10 surface segments. The
    surface order is given or found by the midpoints' angles, clockwise from north."""
    if not sides:
        raise GameError("map: it has no region; give at least one \"q,r\": [6 sides]")
    names = tuple(sides)
    index = {name: i for i, name in enumerate(names)}
    axial = tuple(parse_region(name) for name in names)
    if len(set(axial)) != len(axial):
        raise GameError("map: two region names give the same coordinates q,r; name each region once")
    _check_rows(sides)
    neighbours = _neighbour_ids(sides, index)
    ordered = _surface_order(names, index, axial, neighbours, surface)
    if len(ordered) < MIN_SURFACE:
        raise GameError(f"map: the planet has {len(ordered)} surface segments; both trees need 5 each, "
                        f"so give at least {MIN_SURFACE} sides without a neighbour")
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


MAP_KEYS = ("sides", "surface")


@lru_cache(maxsize=8)
def load_map(path: str) -> PlanetMap:
    """A map file: {"sides": {"q,r": [6 neighbours or null]}, "surface": [["q,r", side], ...]}
    ("surface" optional). GameError naming the file, the problem and the fix otherwise."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MAP_BYTES + 1)
    except OSError as exc:
        raise GameError(f"map file {excerpt(str(path), 200)}: cannot read it ({exc.strerror})") from None
    except ValueError:  # a NUL in the name
        raise GameError(f"map file {excerpt(str(path), 200)}: not a file name (it holds a NUL character)") from None
    if len(raw) > MAX_MAP_BYTES:
        raise GameError(f"map file {path}: larger than {MAX_MAP_BYTES} bytes; a map is a few KB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise GameError(f"map file {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise GameError(f"map file {path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise GameError(f"map file {path}: JSON nested too deep") from None
    except ValueError:  # a number past int()'s 4300 digits
        raise GameError(f"map file {path}: a number in it is far too long") from None
    try:
        return _map_from_json(data)
    except GameError as exc:
        raise GameError(f"map file {path}: {str(exc).removeprefix('map: ')}") from None


def _map_from_json(data: object) -> PlanetMap:
    if not isinstance(data, dict) or not isinstance(data.get("sides"), dict):
        raise GameError("needs an object with \"sides\": {\"q,r\": [6 neighbours or null], ...}")
    unknown = sorted(set(data) - set(MAP_KEYS))
    if unknown:
        raise GameError(f"unknown key {excerpt(unknown[0])}; a map has only \"sides\" and optionally \"surface\"")
    surface = data.get("surface")
    pairs = None
    if surface is not None:
        if not isinstance(surface, list) or not all(
                isinstance(s, list) and len(s) == 2 and isinstance(s[0], str) and type(s[1]) is int
                for s in surface):
            raise GameError("\"surface\" must be a list of [\"q,r\", side] pairs, side 0-5")
        pairs = [(str(s[0]), int(s[1])) for s in surface]
    return build_map(dict(data["sides"]), pairs)


MAX_MAP_BYTES = 1 << 20
"""Largest map file read."""


def map_to_json(planet: PlanetMap) -> str:
    """A map file's text for `planet` (to start a custom map from the disc)."""
    sides = {name: [planet.names[j] if j >= 0 else None for j in planet.neighbours[i]]
             for i, name in enumerate(planet.names)}
    surface = [[planet.names[i], k] for i, k in planet.surface]
    return json.dumps({"sides": sides, "surface": surface}, indent=1)
