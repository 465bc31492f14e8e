"""The ceiling experiment (bots/the_tree_ceiling.py): each sight hides what it should,
and a short run plays whole games."""

from __future__ import annotations

import random
from collections import Counter

from arena.games.the_tree import TheTreeState
from bots.the_tree_ceiling import guesses, play_game


def dealt(seed: int) -> TheTreeState:
    state = TheTreeState(2)
    state.apply(state.sample_chance(random.Random(seed)))
    state.play(state.moves()[0])  # the start tile
    return state


def test_sight_none_keeps_only_what_the_mover_sees() -> None:
    state = dealt(1)
    seat = state.current()
    other = 1 - seat
    beliefs = guesses(state, "none", 30, random.Random(2))
    assert all(sorted(b.hands[seat]) == sorted(state.hands[seat]) and b.tiles == state.tiles for b in beliefs)
    assert all(len(b.hands[other]) == len(state.hands[other]) for b in beliefs)
    assert any(sorted(b.hands[other]) != sorted(state.hands[other]) for b in beliefs)


def test_sight_hand_keeps_the_opponent_hand_and_shuffles_the_supply() -> None:
    state = dealt(3)
    beliefs = guesses(state, "hand", 30, random.Random(4))
    assert all(b.hands == state.hands for b in beliefs)
    assert all(Counter(b.supply) == Counter(state.supply) for b in beliefs)
    assert any(b.supply != state.supply for b in beliefs)
    assert all(b.supply is not state.supply for b in beliefs)


def test_sight_all_is_the_true_position() -> None:
    state = dealt(5)
    assert all(b is state for b in guesses(state, "all", 3, random.Random(6)))


def test_a_run_is_reproducible_and_full_sight_wins_games() -> None:
    """Same seed, same game at every sight (the experiment's figures can be re-run), and
    the player who sees everything wins some of a handful of games against random."""
    for sight in ("none", "hand", "all"):
        first = [play_game(seed, seed % 2, sight, 3) for seed in range(3)]
        assert [play_game(seed, seed % 2, sight, 3) for seed in range(3)] == first
    results = Counter(play_game(seed, seed % 2, "all", 10) for seed in range(8))
    assert results[0] >= 1, results
