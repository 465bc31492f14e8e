"""Roots: the planet (rules/roots.md): the hex discs' regions, sides and surface, the
radius option, and map files, loaded or refused naming the problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.games import GameError
from arena.games.roots import RootsState
from arena.games.roots_map import build_map, hex_disc, load_map, map_to_json, side_angle
from tests.helpers.roots import GAME, new


def test_radius_4_has_61_regions_54_surface_segments_and_shared_sides() -> None:
    planet = hex_disc(4)
    assert planet.size == 61 and len(planet.surface) == 54
    assert hex_disc(3).size == 37 and len(hex_disc(3).surface) == 42 == 6 * (2 * 3 + 1)
    shared = 0
    for i, row in enumerate(planet.neighbours):
        for k, j in enumerate(row):
            if j >= 0:
                assert planet.neighbours[j][(k + 3) % 6] == i  # side k here is side k+3 there
                shared += 1
    assert shared == 61 * 6 - 54  # every inner side counted once from each of its two regions


def test_sides_are_numbered_clockwise_from_north_with_the_rules_directions() -> None:
    planet = hex_disc(4)
    names = [planet.names[j] for j in planet.neighbours[planet.index["0,0"]]]
    assert names == ["0,-1", "1,-1", "1,0", "0,1", "-1,1", "-1,0"]  # (q, r) + D[k]
    top = planet.neighbours[planet.index["0,-4"]]
    assert [k for k in range(6) if top[k] < 0] == [0, 1, 5]  # N, NE and NW face the surface


def test_surface_segments_run_clockwise_from_the_top_regions_north_side() -> None:
    for radius in (3, 4):
        planet = hex_disc(radius)
        top = planet.index[f"0,{-radius}"]
        assert planet.surface[0] == (top, 0)
        assert planet.surface[1] == (top, 1) and planet.surface[-1] == (top, 5)
        angles = [side_angle(*planet.axial[r], k)[0] for r, k in planet.surface]
        assert angles == sorted(angles) and len(set(angles)) == len(angles)
        assert {planet.segment_of[rk] for rk in planet.surface} == set(range(6 * (2 * radius + 1)))
    planet = hex_disc(4)
    assert planet.surface[2] == (planet.index["1,-4"], 0)
    assert planet.surface[27] == (planet.index["0,4"], 3)  # straight down from segment 0


def test_the_radius_option_takes_3_or_4_and_defaults_to_4() -> None:
    assert GAME.new_state(2).planet.size == 61  # type: ignore[attr-defined]
    assert new(3).planet.size == 37
    for bad in ("5", "2", "four"):
        with pytest.raises(GameError, match="radius"):
            GAME.new_state(2, {"radius": bad})
    with pytest.raises(GameError, match="2 seats"):
        GAME.new_state(3)


def test_a_map_file_loads_and_plays(tmp_path: Path) -> None:
    good = tmp_path / "disc.json"
    good.write_text(map_to_json(hex_disc(2)))
    state = GAME.new_state(2, {"map": str(good)})
    assert isinstance(state, RootsState) and state.planet.size == 19
    assert len(state.legal_actions()) == 30  # 30 surface segments on a radius-2 disc
    unordered = tmp_path / "unordered.json"
    data = json.loads(good.read_text())
    del data["surface"]  # numbered clockwise from the top by default
    unordered.write_text(json.dumps(data))
    assert load_map(str(unordered)).surface == hex_disc(2).surface


def broken_map(tmp_path: Path, name: str, change: object) -> str:
    data = json.loads(map_to_json(hex_disc(2)))
    if callable(change):
        change(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data) if not isinstance(change, str) else change)
    return str(path)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("not-json", "{sides", "not JSON"),
    ("no-sides", lambda d: d.pop("sides"), "needs an object with \"sides\""),
    ("unknown-key", lambda d: d.update(extra=1), "unknown key 'extra'"),
    ("five-sides", lambda d: d["sides"]["0,0"].pop(), "region 0,0 has 5 entries; give a list of exactly 6"),
    ("one-way", lambda d: d["sides"]["0,0"].__setitem__(0, "2,-2"), "a shared side must name each region"),
    ("stranger", lambda d: d["sides"]["0,0"].__setitem__(0, "9,9"), "'9,9', which is not a region"),
    ("number", lambda d: d["sides"]["0,0"].__setitem__(0, 7), "write a neighbour as \"q,r\" or null"),
    ("bad-name", lambda d: d["sides"].update({"x": [None] * 6}), "region 'x' is not written q,r"),
    ("missing-surface", lambda d: d["surface"].pop(), "missing 0,-2/5"),
    ("inner-surface", lambda d: d["surface"].append(["0,0", 1]), "0,0/1 has a neighbour"),
    ("bad-surface", lambda d: d.update(surface=[["0,0", "N"]]), "list of \\[\"q,r\", side\\] pairs"),
])
def test_a_broken_map_file_is_refused_naming_the_problem(tmp_path: Path, name: str, change: object,
                                                         message: str) -> None:
    path = broken_map(tmp_path, name, change)
    with pytest.raises(GameError, match=message) as caught:
        GAME.new_state(2, {"map": path})
    assert path in str(caught.value)


def test_a_map_needs_room_for_two_trees_and_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(GameError, match="6 surface segments.*at least 10"):
        build_map({"0,0": [None] * 6})
    with pytest.raises(GameError, match="cannot read"):
        GAME.new_state(2, {"map": str(tmp_path / "none.json")})
