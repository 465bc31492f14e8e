"""Who plays next at one ladder table: pure, and deterministic given the random generator.

The ladder asks for the next *unit* whenever a table is free: a set of bot versions that
then plays one game per seat rotation (`rotations`), so every version plays every seat
once and seat advantage cancels. The rules:

1. Eligible: a version with fewer than `max_playing` units under way. Never two versions of
   one entrant at one table. No table (None) when fewer than `seats` distinct entrants
   have an eligible version.
2. The focus, the version the unit is for:
   - a new version plays first: among versions with fewer than `min_games` games at this
     table, the one with the fewest games (ties: the highest version id, the newest);
   - otherwise where ratings are least certain: the highest sigma, divided by
     (1 + playing) for versions with units under way, times a random factor within
     `SIGMA_JITTER` so that near-equal uncertainties take turns.
3. Opponents, one seat at a time, each from the eligible versions of entrants not yet at
   the table, drawn with probability proportional to
   (exp(-(Δmu / (2 β))²) + `CLOSENESS_FLOOR`) × sigma / (1 + playing),
   where Δmu is the distance to the focus's mu and β the rating model's performance noise
   (`MODEL_BETA`): close matches teach the most, the floor lets everyone meet everyone
   eventually, and uncertain opponents learn from the game too.
4. The seat order of the unit's first game is shuffled; the rotations balance the rest.

Contenders are considered in version order, so the answer does not depend on the order
the caller lists them in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ladder.ratings import MODEL_BETA, Skill

CLOSENESS_FLOOR = 0.05
"""Added to every opponent's closeness weight (at most 1): a bot far away in skill is still
drawn now and then, so every pair meets eventually and the Elo fit stays connected."""

SIGMA_JITTER = 0.01
"""The focus score is multiplied by a random factor in [1, 1 + SIGMA_JITTER): equal or
nearly equal uncertainties (within 1%) take turns instead of the lowest id always losing."""


@dataclass(frozen=True)
class Contender:
    """A bot version that could play at this table, as the store sees it now."""

    version: int
    """The bot version's id (higher is newer)."""
    entrant: int
    """Its owner: one entrant never has two versions at one table."""
    skill: Skill
    games: int
    """Games this version played at this table."""
    playing: int = 0
    """Units of this version under way now."""


def choose_table(contenders: Sequence[Contender], seats: int, min_games: int, rng: random.Random,
                 max_playing: int = 1) -> tuple[int, ...] | None:
    """The versions of the next unit, in the seat order of its first game (the unit then
    rotates seats: game k seats them rotated by k, see `rotations`), or None when no table
    can be formed. The rules are in the module's docstring."""
    if seats < 1:
        raise ValueError(f"a table of {seats} seats: a table needs at least one seat")
    eligible = sorted((c for c in contenders if c.playing < max_playing), key=lambda c: c.version)
    if len({c.entrant for c in eligible}) < seats:
        return None
    focus = choose_focus(eligible, min_games, rng)
    table = [focus]
    while len(table) < seats:
        taken = {c.entrant for c in table}
        table.append(choose_opponent(focus, [c for c in eligible if c.entrant not in taken], rng))
    rng.shuffle(table)
    return tuple(c.version for c in table)


def choose_focus(eligible: Sequence[Contender], min_games: int, rng: random.Random) -> Contender:
    """The version the next unit is for (rule 2); `eligible` is not empty and in version order."""
    new = [c for c in eligible if c.games < min_games]
    if new:
        return min(new, key=lambda c: (c.games, -c.version))
    return max(eligible, key=lambda c: c.skill.sigma / (1 + c.playing) * (1 + SIGMA_JITTER * rng.random()))


def opponent_weight(focus: Skill, candidate: Contender) -> float:
    """How strongly `candidate` is drawn to face `focus` (rule 3)."""
    closeness = math.exp(-(((candidate.skill.mu - focus.mu) / (2 * MODEL_BETA)) ** 2))
    return (closeness + CLOSENESS_FLOOR) * candidate.skill.sigma / (1 + candidate.playing)


def choose_opponent(focus: Contender, candidates: Sequence[Contender], rng: random.Random) -> Contender:
    """One opponent for `focus` drawn from `candidates` (not empty) by `opponent_weight`."""
    weights = [opponent_weight(focus.skill, c) for c in candidates]
    if sum(weights) <= 0:  # every candidate has sigma 0: fall back to an even draw
        weights = [1.0] * len(candidates)
    return rng.choices(candidates, weights=weights)[0]


def rotations(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The seatings of one unit, game k seating `table` rotated left by k:
    (a, b, c) -> [(a, b, c), (b, c, a), (c, a, b)]. Every version plays every seat once."""
    return [table[k:] + table[:k] for k in range(len(table))]
