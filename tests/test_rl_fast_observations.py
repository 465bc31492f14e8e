"""The fast observation path (`Position.tensor`, each codec's `fast_tensor`, reading the
engine's state) equals the reference encoding from the seat's JSON observation
(`Codec.tensor`, `Position.reference_tensor`) at every decision of seeded random games,
for every seat, in every game and several settings; The Tree's vector never changes
with another seat's hand."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.games import CHANCE
from arena.rl.bridge import Bridge, Position

SETTINGS = [
    ("btt", 2, {}), ("btt", 3, {}), ("btt", 6, {}), ("btt", 5, {"board": "rect"}),
    ("treeblox", 2, {}),
    ("the-tree", 1, {}), ("the-tree", 2, {}), ("the-tree", 3, {}), ("the-tree", 4, {}),
    ("roots", 2, {"radius": "3"}), ("roots", 2, {}),
    ("blox", 2, {"width": "8", "height": "8"}), ("blox", 3, {"width": "8", "height": "8"}),
    ("blox", 4, {"width": "8", "height": "8", "max_turns": "12"}),
    ("blox", 2, {"width": "14", "height": "14", "variant": "bridge", "max_turns": "15"}),
]
DECISIONS = 40
"""At most this many decisions checked per game (the rest play out unchecked)."""
GAMES = {"btt": 2, "treeblox": 2, "the-tree": 2}
"""Games per setting (one in the others)."""


def check_game(bridge: Bridge, seed: int, limit: int) -> int:
    """Play one seeded random game through the ids; at each of the first `limit`
    decisions (and at chance nodes and the end) every seat's fast vector equals the
    reference. The positions checked."""
    rng = random.Random(seed)
    position = bridge.new_position()
    checked = 0
    while True:
        if checked < limit:
            for seat in range(bridge.seats):
                fast, reference = position.tensor(seat), position.reference_tensor(seat)
                assert fast.dtype == np.float32 and fast.shape == reference.shape
                assert np.array_equal(fast, reference), (
                    f"seat {seat} differs at {np.flatnonzero(fast != reference)[:8].tolist()}")
            checked += 1
        if position.is_terminal():
            return checked
        if position.current() == CHANCE:
            position.sample_chance(rng)
        else:
            position.apply(rng.choice(position.legal()))


@pytest.mark.parametrize(("game", "seats", "options"), SETTINGS,
                         ids=[f"{g}-{n}-{'-'.join(o.values()) or 'default'}" for g, n, o in SETTINGS])
def test_fast_tensor_equals_the_reference(game: str, seats: int, options: dict[str, str]) -> None:
    bridge = Bridge(game, seats, options)
    for seed in range(GAMES.get(game, 1)):
        assert check_game(bridge, seed, DECISIONS) > 0


def test_roots_pending_steps_are_encoded_as_the_reference() -> None:
    """A reroll or a fast growth chosen part way (the ids of a longer action so far)."""
    bridge = Bridge("roots", 2, {"radius": "3"})
    rng = random.Random(5)
    seen_pending = 0
    for _ in range(4):
        position = bridge.new_position()
        while not position.is_terminal() and seen_pending < 6:
            if position.current() == CHANCE:
                position.sample_chance(rng)
                continue
            steps = [i for i in position.legal() if position.completes(i) is None]
            position.apply(rng.choice(steps or position.legal()))
            if position.pending:
                seen_pending += 1
                seat = position.current()
                assert np.array_equal(position.tensor(seat), position.reference_tensor(seat))
    assert seen_pending


def test_the_tree_vector_ignores_the_other_hands() -> None:
    """Swapping two other seats' hands (same sizes) leaves a seat's vector as it was."""
    bridge = Bridge("the-tree", 3)
    position = bridge.new_position()
    position.sample_chance(random.Random(2))
    before = position.tensor(0)
    twin: Position = position.clone()
    state = twin.state
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]  # type: ignore[attr-defined]
    assert np.array_equal(twin.tensor(0), before)
    assert not np.array_equal(twin.tensor(1), position.tensor(1))


def test_a_tensor_is_a_new_array_each_time() -> None:
    """Changing an observation a caller holds changes nothing the bridge keeps."""
    position = Bridge("treeblox").new_position()
    first = position.tensor(0)
    first[:] = 7.0
    assert not np.array_equal(position.tensor(0), first)
    assert np.array_equal(position.tensor(0), position.reference_tensor(0))
