"""The pieces of Roots and their notation: dice (regular and special, the roll as one
chance action "roll 1,3,3/6"), strokes as 6-bit side masks with the tables that tell
which strokes cross, tips, parsed moves and each seat's power-ups. The rules engine is
arena.games.roots; the board queries are arena.games.roots_board."""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.base import IllegalAction
from arena.games.roots_map import SIDES

ROUNDS = 12
DICE = 6
PLANT_WIDTH = 5
"""Consecutive surface segments a tree is planted in."""
REGULAR, SPECIAL = "r", "s"
END, LEAVE = "end", "leave"
POWERS = ("reroll", "fast", "cross")

Tip = tuple[int, int]
"""(region, entry side)."""


def special_offsets(value: int) -> tuple[int, ...]:
    """Exit offsets of a special die: {d, 3}, {2, 4} for a 3, {2, 3, 4} for a 6."""
    if value == 3:
        return (2, 4)
    if value == 6:
        return (2, 3, 4)
    return tuple(sorted({value, 3}))


def arcs(mask: int) -> list[int]:
    """The side sets strictly between consecutive sides of a stroke (its arcs)."""
    sides = [k for k in range(SIDES) if mask >> k & 1]
    found = []
    for i, a in enumerate(sides):
        b = sides[(i + 1) % len(sides)]
        arc = 0
        k = (a + 1) % SIDES
        while k != b:
            arc |= 1 << k
            k = (k + 1) % SIDES
        found.append(arc)
    return found


def _cross_table() -> list[list[bool]]:
    table = [[False] * 64 for _ in range(64)]
    for a in range(1, 64):
        its_arcs = arcs(a)
        for b in range(1, 64):
            table[a][b] = not any(b & ~arc == 0 for arc in its_arcs)
    return table


CROSSES = _cross_table()
"""CROSSES[a][b]: a stroke with side mask b crosses one with mask a."""
SIDES_IN: tuple[tuple[int, ...], ...] = tuple(tuple(k for k in range(SIDES) if m >> k & 1) for m in range(1 << SIDES))
"""SIDES_IN[mask]: the sides set in a side mask, in order."""
EXITS_KNOWN: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}
"""(free sides, stroke masks) of a region -> its exits per entry side, shared by every
position: a search's positions differ in few regions, so most regions are known."""
EXITS_KNOWN_MAX = 50_000


def format_roll(regular: list[int], special: list[int]) -> str:
    return "roll " + ",".join(map(str, sorted(regular))) + "/" + ",".join(map(str, sorted(special)))


def parse_roll(action: str, count: int) -> tuple[list[int], list[int]]:
    """The dice of a chance action `roll R/S`; IllegalAction unless canonical and of
    `count` dice."""
    if not action.startswith("roll ") or action.count("/") != 1:
        raise IllegalAction(action, f"a roll of {count} dice is due: roll <regular>/<special>, e.g. roll 1,3/6")
    left, right = action[5:].split("/")
    try:
        regular = [int(v) for v in left.split(",")] if left else []
        special = [int(v) for v in right.split(",")] if right else []
    except ValueError:
        raise IllegalAction(action, "dice values are whole numbers") from None
    if len(regular) + len(special) != count:
        raise IllegalAction(action, f"{count} dice are being rolled")
    if not all(1 <= v <= 5 for v in regular) or not all(1 <= v <= 6 for v in special):
        raise IllegalAction(action, "regular dice show 1-5 (a 6 goes to the special pool), special dice 1-6")
    if format_roll(regular, special) != action:
        raise IllegalAction(action, f"write the roll canonically: {format_roll(regular, special)!r}")
    return regular, special


@dataclass(frozen=True)
class Stroke:
    owner: int
    region: int
    mask: int
    """Entry side and exits."""
    entry: int


@dataclass
class Move:
    """A parsed legal action."""

    kind: str
    value: int = 0
    pool: str = REGULAR
    tip: Tip = (0, 0)
    exits: tuple[int, ...] = ()
    cross: bool = False
    dice: tuple[str, ...] = ()
    second: Move | None = None


@dataclass
class SeatPowers:
    reroll: bool = True
    fast: bool = True
    cross: bool = True

    def copy(self) -> SeatPowers:
        return SeatPowers(self.reroll, self.fast, self.cross)


def copy_powers(powers: list[SeatPowers]) -> list[SeatPowers]:
    """Both seats' power-ups, copied (RootsState.copied)."""
    return list(map(SeatPowers.copy, powers))
