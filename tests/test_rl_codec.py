"""The RL numbering, observation vectors and chance models (arena/rl/, numpy only):
random play never meets an action outside the numbering, every action round-trips,
perft through the ids equals the arena's, observation vectors hold exactly what the
JSON observation holds, and the chance outcomes are the referee's distribution."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from arena import games
from arena.games import CHANCE
from arena.games.perft import perft as arena_perft
from arena.rl import RLError, codec
from arena.rl.bridge import Bridge, Position, complete_moves, perft
from arena.rl.roots import ROLLS, roll_name, roll_outcomes
from arena.rl.the_tree import TILES

SETTINGS = [
    ("btt", 2, {}), ("btt", 3, {}), ("btt", 4, {}), ("btt", 5, {}), ("btt", 6, {}), ("btt", 5, {"board": "rect"}),
    ("treeblox", 2, {}),
    ("the-tree", 1, {}), ("the-tree", 2, {}), ("the-tree", 3, {}), ("the-tree", 4, {}),
    ("roots", 2, {}), ("roots", 2, {"radius": "3"}),
    ("blox", 2, {"width": "8", "height": "8"}), ("blox", 3, {"width": "8", "height": "8"}),
    ("blox", 4, {"width": "8", "height": "8"}), ("blox", 2, {"width": "14", "height": "14", "variant": "bridge"}),
]
GAMES_PER_SETTING = {"btt": 12, "treeblox": 8, "the-tree": 12, "roots": 1, "blox": 1}


def random_game(position: Position, rng: random.Random, seen: set[str] | None = None) -> int:
    """Play `position` out at random through the ids, checking at every decision that
    each legal arena action has a path in the numbering that maps back to it, and that
    the ids offered are exactly the first steps of those paths; the decisions made."""
    c = position.codec
    decisions = 0
    while not position.is_terminal():
        if position.current() == CHANCE:
            position.sample_chance(rng)
            continue
        actions = position.state.legal_actions()
        firsts = set()
        for action in actions:
            path = c.path(action)
            assert c.action(path) == action
            assert all(0 <= i < c.num_actions for i in path)
            firsts.add(path[0])
            if seen is not None:
                seen.add(action)
        assert position.legal() == sorted(firsts)
        while True:  # one arena action, step by step
            position.apply(rng.choice(position.legal()))
            decisions += 1
            if not position.pending:
                break
    return decisions


@pytest.mark.parametrize("game_id,seats,options", SETTINGS)
def test_random_play_stays_inside_the_numbering(game_id: str, seats: int, options: dict[str, str]) -> None:
    bridge = Bridge(game_id, seats, options)
    rng = random.Random(f"{game_id}{seats}{options}")
    for _ in range(GAMES_PER_SETTING[game_id]):
        decisions = random_game(bridge.new_position(), rng)
        assert decisions <= bridge.codec.max_decisions()


@pytest.mark.slow
@pytest.mark.parametrize("game_id,seats,options", SETTINGS)
def test_thousands_of_random_games_stay_inside_the_numbering(game_id: str, seats: int,
                                                              options: dict[str, str]) -> None:
    bridge = Bridge(game_id, seats, options)
    rng = random.Random(7)
    games = {"btt": 2000, "treeblox": 1000, "the-tree": 2000, "roots": 100, "blox": 30}[game_id]
    seen: set[str] = set()
    for _ in range(games):
        assert random_game(bridge.new_position(), rng, seen) <= bridge.codec.max_decisions()
    assert len(seen) <= bridge.codec.num_actions


def test_the_numbering_sizes_are_the_documented_ones() -> None:
    sizes = {(g, s, tuple(sorted(o.items()))): codec(g, s, o).num_actions for g, s, o in SETTINGS}
    assert sizes[("btt", 2, ())] == 377  # 32 nulls, 32 roots, 3 x 104 pyramids, pass
    assert sizes[("btt", 6, ())] == 2 * 96 + 3 * 2 * (6 * 24 + 6 * 4) + 1
    assert sizes[("treeblox", 2, ())] == 2 * 5168 + 1
    assert sizes[("the-tree", 3, ())] == 666 * 64 + 2
    assert codec("roots").num_actions == 13_615
    assert codec("blox", 2).num_actions == 2 * 16 * 29 * 31 + 1


@pytest.mark.parametrize("game_id", ["btt", "treeblox", "the-tree", "roots", "blox"])
def test_every_id_has_one_label_and_the_simple_ones_round_trip(game_id: str) -> None:
    c = codec(game_id)
    assert len(set(c.names)) == c.num_actions
    for action, index in c.index.items():
        assert c.names[index] == action and c.path(action) == (index,) and c.action((index,)) == action


def test_actions_outside_the_numbering_are_refused() -> None:
    with pytest.raises(RLError, match="outside the numbering"):
        codec("btt").path("4c3>c4")
    with pytest.raises(RLError, match="outside the numbering"):
        codec("treeblox").path("L20,0,0")  # 17 steps from the board: 16 branches cannot reach it
    with pytest.raises(RLError, match="outside the numbering"):
        codec("roots").path("reroll r1,r7")


def test_roots_rerolls_and_fast_growth_are_paths_of_steps() -> None:
    c = codec("roots")
    path = c.path("reroll r1,r3,r3,s6")
    assert [c.names[i] for i in path] == ["reroll pick r1", "reroll pick r3", "reroll pick r3",
                                          "reroll pick s6", "reroll done"]
    assert c.action(path) == "reroll r1,r3,r3,s6" and c.action(path[:2]) is None
    fast = c.path("fast r1 0,-4/0 r2 1,-4/5")
    assert [c.names[i] for i in fast] == ["fast half r1 0,-4/0", "fast half r2 1,-4/5"]
    assert c.action(fast) == "fast r1 0,-4/0 r2 1,-4/5"


@pytest.mark.parametrize("game_id,seats,options,depth,seed", [
    ("btt", 2, {}, 3, 0), ("btt", 3, {}, 2, 0), ("treeblox", 2, {}, 3, 0), ("the-tree", 2, {}, 4, 5),
    ("the-tree", 4, {}, 3, 2), ("roots", 2, {"radius": "3"}, 3, 1), ("blox", 2, {"width": "8", "height": "8"}, 2, 0),
])
def test_perft_through_the_ids_equals_arena_perft(game_id: str, seats: int, options: dict[str, str], depth: int,
                                                  seed: int) -> None:
    bridge = Bridge(game_id, seats, options)
    expected = arena_perft(games.get(game_id).new_state(seats, options), depth, seed)
    assert perft(bridge.new_position(), depth, seed) == expected


def test_a_roots_turn_with_power_ups_counts_the_same_through_the_steps() -> None:
    """Deep in a game both power-ups are open: the steps of rerolls and fast growths
    must add up to the arena's count of whole actions."""
    bridge = Bridge("roots", 2, {"radius": "3"})
    rng = random.Random(4)
    position = bridge.new_position()
    checked = 0
    while not position.is_terminal() and checked < 30:
        if position.current() == CHANCE:
            position.sample_chance(rng)
            continue
        actions = position.state.legal_actions()
        assert len(complete_moves(position)) == len(actions)
        checked += any(a.startswith(("reroll", "fast")) for a in actions)
        plain = [a for a in actions if not a.startswith(("reroll", "fast"))] or actions
        position.apply_action(rng.choice(plain))
    assert checked >= 10


def tensor_from_json(position: Position, seat: int) -> np.ndarray:
    observation = json.loads(json.dumps(position.state.observation(seat)))
    pending = position.pending if seat == position.current() else ()
    return position.codec.tensor(observation, pending)


@pytest.mark.parametrize("game_id,seats,options", SETTINGS[::2])
def test_the_vector_is_the_json_observation_as_numbers(game_id: str, seats: int, options: dict[str, str]) -> None:
    bridge = Bridge(game_id, seats, options)
    rng = random.Random(3)
    position = bridge.new_position()
    shapes = {name: shape for name, shape in bridge.codec.pieces.pieces}
    plies = 0
    while not position.is_terminal() and plies < 60:
        if position.current() == CHANCE:
            position.sample_chance(rng)
            continue
        for seat in range(seats):
            vector = position.tensor(seat)
            assert vector.dtype == np.float32 and vector.shape == (bridge.codec.pieces.size,)
            assert np.array_equal(vector, tensor_from_json(position, seat))
            views = bridge.codec.pieces.split(vector)
            assert {n: v.shape for n, v in views.items()} == shapes
        position.apply(rng.choice(position.legal()))
        plies += 1
    assert plies


def test_the_tree_vector_hides_what_the_seat_may_not_see() -> None:
    """Two deals that differ only in the other hands and the supply give seat 0 the
    same vector all game long (and seat 1, whose hand differs, a different one)."""
    c = codec("the-tree", 2)
    game = games.get("the-tree")
    rng = random.Random(11)
    for _ in range(5):
        tiles = list(TILES)
        rng.shuffle(tiles)
        at = tiles.index("00")
        tiles[0], tiles[at] = tiles[at], tiles[0]  # seat 0 starts in both deals
        other = tiles[:9] + sorted(tiles[9:], key=lambda t: rng.random())
        if set(other[9:18]) == set(tiles[9:18]):
            continue
        states = [game.new_state(2), game.new_state(2)]
        states[0].apply(",".join(tiles))
        states[1].apply(",".join(other))
        a, b = (Bridge("the-tree", 2).wrap(s) for s in states)
        assert np.array_equal(a.tensor(0), b.tensor(0))
        assert not np.array_equal(a.tensor(1), b.tensor(1))
        # whatever seat 0 plays, its view stays blind to what it cannot see
        for _ in range(6):
            if a.current() != 0 or a.legal() != b.legal():
                break
            pick = rng.choice(a.legal())
            a.apply(pick)
            b.apply(pick)
            assert np.array_equal(a.tensor(0), b.tensor(0))
    assert c.pieces.size == 8 * 1332 + 36 + 36 + 2 + 1 + 4 + 2 + 1


def test_the_tree_deal_is_36_uniform_chance_nodes_that_make_the_arena_deal() -> None:
    position = Bridge("the-tree", 3).new_position()
    order = list(range(36))
    random.Random(2).shuffle(order)
    for step, tile in enumerate(order):
        outcomes = position.outcomes()
        assert len(outcomes) == 36 - step and all(abs(p - 1 / (36 - step)) < 1e-12 for _, p in outcomes)
        assert tile in dict(outcomes)
        position.apply(tile)
    assert position.current() != CHANCE
    assert position.state.observation(0)["hand"] == sorted(TILES[t] for t in order[:9])
    with pytest.raises(RLError):
        again = Bridge("the-tree", 3).new_position()
        again.apply(5)
        again.apply(5)


def test_roots_roll_probabilities_are_the_referee_dice() -> None:
    for k in range(1, 7):
        assert abs(sum(p for _, p in roll_outcomes(k)) - 1) < 1e-9
    assert len(roll_outcomes(6)) == 8008 and len(ROLLS) == 12_375
    # The first round's six dice: the referee's own rolls against the model.
    state = games.get("roots").new_state(2, {"radius": "3"})
    state.apply("plant 0")
    state.apply("plant 20")
    position = Bridge("roots", 2, {"radius": "3"}).wrap(state)
    outcomes = {roll_name(ROLLS[i]): p for i, p in position.outcomes()}
    rng = random.Random(1)
    draws = Counter(state.sample_chance(rng) for _ in range(20_000))
    assert set(draws) <= set(outcomes)
    for roll in ("roll 1,2,3,4,5,5/", "roll 1,1,2,3,4/6", "roll 3,3,3,3,3,3/"):
        expected = outcomes[roll] * 20_000
        assert abs(draws[roll] - expected) < 5 * expected ** 0.5 + 3, roll
