"""BTT positions for tests: new boards, action sequences (the seed's example game and a
peaceful one), adjacency as sets, a plain grid, and random games."""

from __future__ import annotations

import random

from arena.games.btt import BTT, BTTState
from arena.games.btt_board import adjacency

FILES = "abcdefgh"

# A complete two-seat game (null h1, root b3) with exactly five attacks, every one a
# size-1 pyramid pointing at a size-2: White (seat 0) attacks three times, Black twice.
SEED_EXAMPLE = [
    "Nh1", "Rb3", "1c3>b3", "2b2>b3", "1b1>b2", "2c2>b2", "1a2>b2", "1a3>b3", "2c1>b1",
    "1a4>a3", "1d2>c2", "1d1>c1", "1c4>c3", "2b4>b3", "2d3>d2", "1e1>d1", "3e2>d2",
    "3f1>e1", "2d4>d3", "1e4>d4", "3a1>a2", "2f2>f1", "3e3>d3", "3g1>f1", "2f3>e3",
    "2g2>f2", "2g3>f3", "3h2>g2", "3g4>g3", "3f4>e4", "3h4>g4", "3h3>h2",
]

# A complete two-seat game in which nobody ever points at an opponent: 5 all.
PEACEFUL_GAME = [
    "Nh1", "Rb3", "1a3>b3", "1b4>b3", "1a4>a3", "2c4>b4", "1c3>b3", "3d4>c4", "3c2>c3",
    "2d3>d4", "1d2>c2", "2b2>b3", "3c1>c2", "1a2>b2", "3d1>c1", "3e3>d3", "1e2>d2",
    "2b1>b2", "3f2>e2", "2a1>b1", "3f3>f2", "3e4>d4", "2g2>f2", "3f4>e4", "2g3>f3",
    "3g4>f4", "2e1>d1", "1h4>g4", "2g1>g2", "1h3>h4", "2f1>g1", "1h2>h3",
]


def new(seats: int, board: str = "wedge") -> BTTState:
    state = BTT().new_state(seats, {"board": board})
    assert isinstance(state, BTTState)
    return state


def play(seats: int, actions: list[str], board: str = "wedge") -> BTTState:
    state = new(seats, board)
    for action in actions:
        state.apply(action)
    return state


def neighbours(seats: int, board: str = "wedge") -> dict[str, set[str]]:
    return {sq: set(nbs) for sq, nbs in adjacency(seats, board).items()}


def grid(files: int, ranks: int) -> dict[str, set[str]]:
    """Plain orthogonal adjacency of a files x ranks rectangle with chess names."""
    def name(f: int, r: int) -> str:
        return f"{FILES[f]}{r + 1}"
    return {
        name(f, r): {name(f + df, r + dr) for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
                     if 0 <= f + df < files and 0 <= r + dr < ranks}
        for f in range(files) for r in range(ranks)
    }


def random_game(seats: int, board: str, seed: int) -> tuple[BTTState, list[str]]:
    rng = random.Random(seed)
    state = new(seats, board)
    actions = []
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return state, actions
