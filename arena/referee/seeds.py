"""Where every seed and seating of a match or league comes from, in one place.

With duplicate deals (the default) the games of one seat rotation share a seed, so
chance is the same for every seating (duplicate play) and first-move advantage cancels
over the rotation. With fresh deals every game has a seed of its own (no deal is ever
played twice, so no bot process can pass a hand on to a later one); the seats still
rotate. Each bot gets its own seed for its own randomness."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Literal

MAX_SEED = (1 << 53) - 1
"""Largest seed a user may give: every game's seed (seed * 1000 + its deal number, at most
MAX_DEAL_NUMBER) stays a 64-bit integer, which the league's database and every JSON
reader can hold."""


def cycle_seed(seed: int, cycle: int) -> int:
    """The chance seed of the games of deal number `cycle`: with duplicate deals every
    game of rotation cycle `cycle`, with fresh deals the one game numbered `cycle`."""
    return seed * 1000 + cycle


Deals = Literal["duplicate", "fresh"]
"""How chance is dealt: "duplicate", the games of a seat rotation share one seed (the
same dice and hands from every seat, so luck cancels); "fresh", every game has a seed
of its own (no deal is ever played twice)."""

DEALS: tuple[Deals, ...] = ("duplicate", "fresh")

MAX_DEAL_NUMBER = (1 << 63) - 1 - MAX_SEED * 1000
"""Largest deal number (the record's Cycle) any seed may take: seed * 1000 + number
stays below 2^63 (about 2 * 10^17; game numbers never come near it)."""


def deal_number(deals: Deals, cycle: int, game: int) -> int:
    """The number hashed with the seed into a game's chance seed (cycle_seed) and held
    by its record's Cycle tag: its seat rotation `cycle` with duplicate deals (the
    rotation's games share it), the game's own number `game` with fresh deals (a
    match's game number, a league's schedule index: never given to another game)."""
    number = game if deals == "fresh" else cycle
    if not 0 <= number <= MAX_DEAL_NUMBER:
        raise ValueError(f"deal number {number} out of range")
    return number


def fresh_rotation(deals: Deals, cycle: int) -> int | None:
    """What a record's Rotation tag holds: with fresh deals the game's seat rotation
    (its Cycle is then the game's own number), with duplicate deals nothing (its Cycle
    is its rotation)."""
    return cycle if deals == "fresh" else None


def rotated(bots: Sequence[int], shift: int) -> tuple[int, ...]:
    """Which bot sits in each seat when the seating moves on by `shift` seats."""
    n = len(bots)
    return tuple(bots[(seat + shift) % n] for seat in range(n))


def chance_seed(key: bytes, seed: int) -> int:
    """The seed of a game's chance generator: the game's seed hashed with a secret key
    no bot can read, so that no bot can recompute a deal it may not see, even from a
    small seed a user picked (it would have to guess the key, not the seed)."""
    digest = hashlib.sha256(key + b"chance" + seed.to_bytes(16, "big", signed=True)).digest()
    return int.from_bytes(digest[:8], "big")


def derived_bot_seed(key: bytes, bot_index: int) -> int:
    """A bot's ARENA_BOT_SEED from a key of its own: independent of every chance seed."""
    digest = hashlib.sha256(key + b"bot" + bot_index.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def random_seed() -> int:
    """A seed for a user who gave none: drawn at random and recorded, never a default
    every run shares."""
    return secrets.randbelow(MAX_SEED + 1)
