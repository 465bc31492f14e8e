"""The fast observation path (`Position.tensor`, each codec's `fast_tensor`, reading the
engine's state) equals the reference encoding from the seat's JSON observation
(`Codec.tensor`, `Position.reference_tensor`) at every decision of seeded random games,
for every seat, in every game and several settings; so do the legal ids read straight
from the engine (`Codec.legal_ids`: Blox, Treeblox, The Tree) and Roots' scores
(`RootsCodec.board_scores`); The Tree's vector never changes with another seat's hand."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.games import CHANCE
from arena.games.roots import RootsState
from arena.rl.bridge import Bridge, Position
from arena.rl.roots import RootsCodec

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
            if checked <= limit:
                check_decision(position)
            position.apply(rng.choice(position.legal()))


FAST_LEGAL = {"blox", "treeblox", "the-tree", "btt"}
"""Games whose codec reads the legal ids from the engine (`Codec.legal_ids`; btt once
setup is over)."""


def check_decision(position: Position) -> None:
    """The legal ids equal the engine's legal actions numbered one by one; Roots' fast
    scores equal the engine's."""
    codec, state = position.codec, position.state
    if not codec.compound:
        if codec.game_id not in FAST_LEGAL:
            assert codec.legal_ids(state) is None
        assert position.legal() == position.numbered_legal()
    if isinstance(codec, RootsCodec):
        assert isinstance(state, RootsState)
        assert codec.board_scores(state) == state.scores()


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


@pytest.mark.parametrize("game", sorted(FAST_LEGAL))
def test_the_fast_legal_path_answers_after_a_few_decisions(game: str) -> None:
    bridge = Bridge(game)
    position = bridge.new_position()
    rng = random.Random(4)
    for _ in range(6):
        if position.current() == CHANCE:
            position.sample_chance(rng)
        position.apply(rng.choice(position.legal()))
    assert bridge.codec.legal_ids(position.state) is not None


def test_a_fast_legal_path_refuses_a_state_it_cannot_read() -> None:
    """A codec's `legal_ids` answers None for another engine's state, and the bridge
    numbers the strings instead."""
    blox = Bridge("blox", 2, {"width": "8", "height": "8"})
    other = Bridge("btt").new_position()
    assert blox.codec.legal_ids(other.state) is None
    assert Bridge("treeblox").codec.legal_ids(other.state) is None
    assert Bridge("the-tree").codec.legal_ids(other.state) is None


def test_blox_legal_ids_at_the_end_and_with_no_brick_left() -> None:
    """Over: no ids; a seat without bricks: only `pass`."""
    bridge = Bridge("blox", 2, {"width": "8", "height": "8", "bricks": "1"})
    position = bridge.new_position()
    position.apply(position.legal()[0])
    position.apply(position.legal()[0])
    assert position.legal() == [bridge.codec.index["pass"]] == position.numbered_legal()
    while not position.is_terminal():
        position.apply(position.legal()[0])
    assert bridge.codec.legal_ids(position.state) == [] == position.legal()


@pytest.mark.parametrize("options", [{"radius": "3"}, {}], ids=["radius-3", "default"])
def test_roots_fast_scores_equal_the_engine_at_every_decision(options: dict[str, str]) -> None:
    bridge = Bridge("roots", 2, options)
    codec = bridge.codec
    assert isinstance(codec, RootsCodec)
    for seed in range(2):
        rng = random.Random(seed)
        position = bridge.new_position()
        while not position.is_terminal():
            if position.current() == CHANCE:
                position.sample_chance(rng)
                continue
            state = position.state
            assert isinstance(state, RootsState)
            assert codec.board_scores(state) == state.scores()
            position.apply(rng.choice(position.legal()))
