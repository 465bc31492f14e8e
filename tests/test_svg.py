"""Golden checks of the board pictures: for fixed positions of each game, the pieces
drawn (cubes, bricks, root strokes, tiles, pyramids by seat, size and kind) are the
pieces of the position; the legend names the bots; the last action is ringed; a seat's
view of The Tree hides the other hands and the supply; every ply of random games of
every seat count draws well-formed SVG."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import pytest

from arena import games
from arena.games import GAMES
from arena.games.base import State
from arena.records.replay import replay
from arena.render.svg import View, action_spots, svg_defs, svg_state
from arena.web.frames import record_film
from tests.helpers.games import random_game_record

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def uses(root: ET.Element, prefix: str) -> Counter[str]:
    """How many `<use>` of each shape whose id starts with `prefix`."""
    found: Counter[str] = Counter()
    for element in root.iter(f"{SVG}use"):
        href = element.get("href", "")
        if href.startswith("#" + prefix):
            found[href[1:]] += 1
    return found


def played(game_id: str, seats: int, actions: list[str], options: dict[str, str] | None = None) -> Any:
    """The game's own state class after `actions` (typed Any: each test reads its game's fields)."""
    state = games.get(game_id).new_state(seats, options or {})
    for action in actions:
        state.apply(action)
    return state


def picture(game_id: str, state: State, last: str | None = None, seat: int | None = None,
            names: tuple[str, ...] | None = None, spots: tuple[str, ...] = ()) -> ET.Element:
    view = View(names or tuple(f"bot-{k}" for k in range(state.num_seats)), last=last, seat=seat, spots=spots)
    root = parse(svg_state(game_id, state, view))
    ET.fromstring(f"<svg xmlns=\"http://www.w3.org/2000/svg\">{svg_defs(game_id, state, view)}</svg>")
    return root


def legend_names(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "name"]


def test_btt_pyramids_by_seat_size_and_kind() -> None:
    actions = ["Nh4", "Ra1", "1a2>a1", "2b1>a1", "3a3>a2", "1c1>b1", "2b2>a2"]
    state = played("btt", 2, actions)
    root = picture("btt", state, last=actions[-1], names=("alpha", "beta"))
    assert uses(root, "btt-p") == Counter({
        "btt-p01b": 1,  # seat 0's size-1 pyramid at a2 points at the root: a branch
        "btt-p12b": 1,  # seat 1's size-2 at b1 points at the root
        "btt-p03w": 1,  # seat 0's size-3 at a3 points at its own a2: a twig
        "btt-p11w": 1,  # seat 1's size-1 at c1 points at its own b1
        "btt-p02w": 1,  # seat 0's size-2 at b2 points at its own a2
    })
    assert uses(root, "btt-")["btt-null"] == 1 and uses(root, "btt-")["btt-root"] == 1
    assert legend_names(root) == ["alpha", "beta"]
    assert len([e for e in root.iter() if e.get("class") == "last"]) == 1


def test_btt_thorn_is_a_pyramid_pointing_at_another_seats() -> None:
    state = played("btt", 2, ["Nh4", "Ra1", "1a2>a1", "2b1>a1", "3b2>b1"])
    kinds = uses(picture("btt", state), "btt-p")
    assert kinds == Counter({"btt-p01b": 1, "btt-p12b": 1, "btt-p03t": 1})


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_btt_wedge_boards_draw_every_square(seats: int) -> None:
    state = played("btt", seats, [])
    view = View(tuple(f"b{k}" for k in range(seats)))
    defs = parse(f"<svg xmlns=\"http://www.w3.org/2000/svg\">{svg_defs('btt', state, view)}</svg>")
    board = next(g for g in defs.iter(f"{SVG}g") if g.get("id") == "btt-board")
    assert len(list(board.iter(f"{SVG}polygon"))) == 16 * seats


def test_treeblox_cubes_active_leaves_and_four_turns() -> None:
    actions = ["L0,0,0", "L3,3,0", "B1,0,0", "B3,2,0", "L1,0,1"]
    state = played("treeblox", 2, actions)
    root = picture("treeblox", state, last=actions[-1])
    scenes = [g for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("rot rot-")]
    assert [g.get("class") for g in scenes] == [f"rot rot-{k}" for k in range(4)]
    for scene in scenes:
        cubes = uses(scene, "tb-")
        del cubes["tb-board"]
        # Dark: leaf (0,0,0) and leaf (1,0,1) active, branch (1,0,0); Light: active leaf, branch.
        assert cubes == Counter({"tb-dla": 2, "tb-db": 1, "tb-lla": 1, "tb-lb": 1})
        heights = [t.text for t in scene.iter(f"{SVG}text")]
        assert heights == ["1"]  # the one column whose top is above the board
    assert state.active == [2, 1]


def test_treeblox_shaded_leaf_is_not_marked_active() -> None:
    state = played("treeblox", 2, ["L0,0,0", "L3,3,0", "B0,1,0", "L2,2,0", "B0,1,1", "L3,2,0", "B0,0,1"])
    scene = next(g for g in picture("treeblox", state).iter(f"{SVG}g") if g.get("class") == "rot rot-0")
    cubes = uses(scene, "tb-")
    assert cubes["tb-dl"] == 1 and cubes["tb-dla"] == 0  # the leaf under the branch at (0,0,1)


def test_blox_bricks_by_seat_orientation_and_level() -> None:
    actions = ["H0,0,0", "V6,0,0", "H1,1,1", "V6,4,0"]
    state = played("blox", 2, actions, {"width": "8", "height": "8"})
    root = picture("blox", state, last=actions[-1])
    assert uses(root, "bx-") == Counter({"bx-plate": 1, "bx-0H": 2, "bx-1V": 2})
    levels = Counter(u.get("class") for u in root.iter(f"{SVG}use") if (u.get("href") or "").startswith("#bx-0"))
    assert levels == Counter({"l0": 1, "l1": 1})


def test_blox_drawing_order_puts_the_upper_brick_after_the_one_it_stands_on() -> None:
    from arena.render.svg.blox import drawing_order

    lower = (0.0, 4.0, 0.0, 2.0, 0.0, 1.2)
    upper = (1.0, 5.0, 1.0, 3.0, 1.2, 2.4)
    front = (0.0, 4.0, 3.0, 5.0, 0.0, 1.2)  # nearer the viewer (greater y), same level
    order = drawing_order([upper, front, lower])
    assert order.index(2) < order.index(0)
    assert order.index(2) < order.index(1)


def test_roots_strokes_tips_trees_and_control_match_the_position() -> None:
    state = played("roots", 2, ["plant 0", "plant 27"])
    rng = random.Random(3)
    while state.round == 1 and not state.is_terminal():
        action = state.sample_chance(rng) if state.current() < 0 else rng.choice(
            [a for a in state.legal_actions() if a.startswith("draw")] or state.legal_actions())
        state.apply(action)
    root = picture("roots", state)
    strokes = {int(p.get("data-seat", "-1")): int(p.get("data-strokes", "0"))
               for p in root.iter(f"{SVG}path") if p.get("class") == "roots"}
    for seat in (0, 1):
        curves = sum(len(state.exits_of(s)) for strokes_here in state.strokes for s in strokes_here if s.owner == seat)
        assert strokes.get(seat, 0) == curves
        tips = next((g for g in root.iter(f"{SVG}g") if g.get("class") == "tips" and g.get("data-seat") == str(seat)),
                    None)
        assert (0 if tips is None else len(list(tips))) == len(state.tips[seat])
    control = {int(g.get("data-seat", "-1")): len(list(g)) for g in root.iter(f"{SVG}g") if g.get("class") == "control"}
    assert (control.get(0, 0), control.get(1, 0)) == state.scores()
    assert len([u for u in root.iter(f"{SVG}use") if u.get("class") == "tree"]) == 2


def test_roots_pools_show_the_dice() -> None:
    state = played("roots", 2, ["plant 0", "plant 27", "roll 1,2,2,5/4,6"])
    root = picture("roots", state)
    dice = sorted(u.get("href", "") for u in root.iter(f"{SVG}use") if u.get("class") == "die")
    assert dice == ["#rt-r1", "#rt-r2", "#rt-r2", "#rt-r5", "#rt-s4", "#rt-s6"]


def _the_tree_dealt() -> Any:
    from arena.games.the_tree_tiles import TILES, deal_action

    tiles = list(TILES)
    random.Random(7).shuffle(tiles)
    return played("the-tree", 3, [deal_action(tiles)])


def test_the_tree_tiles_hands_and_supply_omniscient() -> None:
    state = _the_tree_dealt()
    rng = random.Random(1)
    for _ in range(6):
        state.apply(rng.choice(state.legal_actions()))
    root = picture("the-tree", state)
    placed = [u for u in root.iter(f"{SVG}use") if u.get("class") == "tile"]
    assert len(placed) == len(state.tiles)
    hand = [u for u in root.iter(f"{SVG}use") if u.get("class") == "hand-tile"]
    assert len(hand) == sum(len(h) for h in state.hands) + len(state.supply)
    assert not uses(root, "tt-back")


def test_the_tree_seat_view_shows_only_its_own_hand() -> None:
    state = _the_tree_dealt()
    root = picture("the-tree", state, seat=1)
    hand = [u for u in root.iter(f"{SVG}use") if u.get("class") == "hand-tile"]
    assert len(hand) == len(state.hands[1])
    backs = uses(root, "tt-back")["tt-back"]
    assert backs == len(state.hands[0]) + len(state.hands[2]) + min(len(state.supply), 12)
    own = {f"#tt{a}{b}" for a, b in state.hands[1]}
    assert {u.get("href") for u in hand} == own


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_spots_are_drawn_where_a_person_may_click(game_id: str) -> None:
    game = GAMES[game_id]
    options = {"radius": "3"} if game_id == "roots" else {"width": "8", "height": "8"} if game_id == "blox" else {}
    state = game.new_state(max(2, game.min_seats), game.resolve_options(options))
    rng = random.Random(2)
    while state.current() < 0 or not action_spots(game_id, state, state.legal_actions()):
        state.apply(state.sample_chance(rng) if state.current() < 0 else rng.choice(state.legal_actions()))
    spots = tuple(sorted(set(action_spots(game_id, state, state.legal_actions()).values())))
    root = picture(game_id, state, spots=spots)
    drawn = {e.get("data-spot") for e in root.iter() if e.get("class", "").startswith("spot")}
    assert drawn == set(spots)


@pytest.mark.parametrize(("game_id", "seats", "options"), [
    ("btt", 2, {}), ("btt", 3, {}), ("btt", 4, {"board": "rect"}), ("btt", 5, {}), ("btt", 6, {}),
    ("treeblox", 2, {}), ("roots", 2, {"radius": "3"}), ("blox", 2, {"width": "8", "height": "8"}),
    ("blox", 3, {"width": "8", "height": "8"}), ("blox", 4, {"width": "8", "height": "8"}),
    ("the-tree", 1, {}), ("the-tree", 2, {}), ("the-tree", 3, {}), ("the-tree", 4, {}),
])
def test_every_ply_of_a_random_game_draws_well_formed_svg(game_id: str, seats: int, options: dict[str, str]) -> None:
    record = random_game_record(game_id, seats, 11, options)
    film = record_film(record)
    assert len(film.frames) == len(record.plies) + 1
    assert [f.ply for f in film.frames] == list(range(len(record.plies) + 1))
    ET.fromstring(f"<svg xmlns=\"http://www.w3.org/2000/svg\">{film.defs}</svg>")
    ids = set(re.findall(r'id="([^"]+)"', film.defs))
    previous = None
    for frame in film.frames:
        svg = "\n".join(film.chunks[k] for k in frame.parts)
        root = parse(svg)
        assert legend_names(root)[:seats] == [n for n in record.players]
        refs = {u.get("href", "")[1:] for u in root.iter(f"{SVG}use")}
        assert refs <= ids, refs - ids
        assert svg != previous or frame.ply == 0
        previous = svg
    assert [s.current() for _, _, s in replay(record)][-1] < 0
