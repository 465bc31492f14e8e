"""Where every seed and seating of a match or league comes from, in one place.

Games of one seat rotation share a seed, so chance is the same for every seating
(duplicate play) and first-move advantage cancels over the rotation; each bot gets its
own seed for its own randomness."""

from __future__ import annotations

from collections.abc import Sequence

MAX_SEED = (1 << 53) - 1
"""Largest seed a user may give: every game's seed (seed * 1000 + cycle) stays a 64-bit
integer, which the league's database and every JSON reader can hold."""


def bot_seed(seed: int, bot_index: int) -> int:
    """The ARENA_BOT_SEED of the bot at `bot_index` in a match or league."""
    return seed * 100 + bot_index


def cycle_seed(seed: int, cycle: int) -> int:
    """The chance seed of every game of rotation cycle `cycle`."""
    return seed * 1000 + cycle


def rotated(bots: Sequence[int], shift: int) -> tuple[int, ...]:
    """Which bot sits in each seat when the seating moves on by `shift` seats."""
    n = len(bots)
    return tuple(bots[(seat + shift) % n] for seat in range(n))
