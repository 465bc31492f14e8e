"""Roots: a plain reference of rules/roots.md, slow and obvious, against the engine's
legal actions, used sides and scores in thousands of positions of random games."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest

from arena.games import CHANCE, TERMINAL
from arena.games.roots import RootsState
from tests.helpers.roots import new

SPECIAL_EXITS = {1: (1, 3), 2: (2, 3), 3: (2, 4), 4: (3, 4), 5: (3, 5), 6: (2, 3, 4)}


def sides_of(mask: int) -> set[int]:
    return {k for k in range(6) if mask >> k & 1}


def reference_used(state: RootsState) -> set[tuple[int, int]]:
    """(region, side) pairs used: every side of every stroke and every tip, both ways."""
    used = set()
    marks = [(r, k) for r, strokes in enumerate(state.strokes) for s in strokes for k in sides_of(s.mask)]
    marks += [tip for seat_tips in state.tips for tip in seat_tips]
    for r, k in marks:
        used.add((r, k))
        other = state.planet.neighbours[r][k]
        if other >= 0:
            used.add((other, (k + 3) % 6))
    return used


def reference_crosses(old: set[int], new_sides: set[int]) -> bool:
    """B crosses A unless all of B's sides lie in one arc between consecutive sides of A."""
    ordered = sorted(old)
    for i, a in enumerate(ordered):
        b = ordered[(i + 1) % len(ordered)]
        arc = {(a + step) % 6 for step in range(1, (b - a) % 6 or 6)}
        if new_sides <= arc:
            return False
    return True


def reference_stroke(state: RootsState, used: set[tuple[int, int]], tip: tuple[int, int],
                     offsets: Sequence[int]) -> int | None:
    """None when the side rules forbid it, else how many strokes it crosses."""
    r, entry = tip
    exits = [(entry + o) % 6 for o in offsets]
    if len(set(exits)) != len(exits):
        return None
    if any((r, e) in used or state.planet.neighbours[r][e] < 0 for e in exits):
        return None
    return sum(reference_crosses(sides_of(s.mask), {entry, *exits}) for s in state.strokes[r])


def reference_main(state: RootsState, used: set[tuple[int, int]], out: set[str]) -> None:
    seat = state.mover
    kept, regular, cross = state.kept[seat], state.regular, state.powers[seat].cross

    def strokes(prefix: str, offsets: Sequence[int]) -> bool:
        found = False
        for tip in state.tips[seat]:
            crossed = reference_stroke(state, used, tip, offsets)
            if crossed == 0 or (crossed == 1 and cross):
                out.add(f"{prefix} {state.tip_name(tip)}" + (" x" if crossed else ""))
                found = True
        return found

    for value in set(regular):
        if kept is None or len(regular) > 1:
            strokes(f"draw r{value}", [value])
        if kept is None and len(regular) > 1:
            out.add(f"keep r{value}")
    for value in set(state.special):
        strokes(f"draw s{value}", SPECIAL_EXITS[value])
    merge = kept is not None and any([strokes(f"merge r{v}", sorted({kept, v})) for v in set(regular)])
    if not merge:
        out.add("leave")


def reference_fast(state: RootsState, used: set[tuple[int, int]], out: set[str]) -> None:
    seat, regular = state.mover, state.regular
    halves = [(v, tip) for v in set(regular) for tip in state.tips[seat]
              if reference_stroke(state, used, tip, [v]) == 0]
    for (a, first), (b, second) in combinations(halves, 2):
        if first[0] == second[0] or (a == b and regular.count(a) < 2):
            continue
        names = sorted([f"r{a} {state.tip_name(first)}", f"r{b} {state.tip_name(second)}"])
        exit_side = (first[1] + a) % 6
        after = used | {(first[0], exit_side),
                        (state.planet.neighbours[first[0]][exit_side], (exit_side + 3) % 6)}
        if reference_stroke(state, after, second, [b]) == 0:
            out.add("fast " + " ".join(names))


def reference_legal(state: RootsState) -> set[str]:
    """The legal actions straight from rules/roots.md, slowly."""
    if state.current() in (CHANCE, TERMINAL):
        return set()
    used = reference_used(state)
    out: set[str] = set()
    count = len(state.planet.surface)
    if state.planted < 2:
        for k in range(count):
            if not any(state.planet.surface[(k + i) % count] in used for i in range(5)):
                out.add(f"plant {k}")
        return out
    seat = state.mover
    if not state.acted:
        reference_main(state, used, out)
    if state.powers[seat].reroll:
        dice = [f"r{v}" for v in state.regular] + [f"s{v}" for v in state.special]
        for size in range(1, len(dice) + 1):
            out.update("reroll " + ",".join(sorted(chosen)) for chosen in combinations(dice, size))
    if state.acted:
        if state.powers[seat].fast:
            reference_fast(state, used, out)
        if out:
            out.add("end")
    return out


def reference_scores(state: RootsState) -> tuple[int, int]:
    used = reference_used(state)
    reach: list[set[int]] = []
    for seat in (0, 1):
        todo, seen, regions = list(state.tips[seat]), set(state.tips[seat]), set()
        while todo:
            r, entry = todo.pop()
            for offset in range(1, 6):
                if reference_stroke(state, used, (r, entry), [offset]) == 0:
                    regions.add(r)
                    side = (entry + offset) % 6
                    step = (state.planet.neighbours[r][side], (side + 3) % 6)
                    if step not in seen:
                        seen.add(step)
                        todo.append(step)
        reach.append(regions)
    score = [0, 0]
    for r in range(state.planet.size):
        owners = {s.owner for s in state.strokes[r]}
        if len(owners) == 1:
            score[owners.pop()] += 1
        elif not owners and (r in reach[0]) != (r in reach[1]):
            score[0 if r in reach[0] else 1] += 1
    return score[0], score[1]


def varied_action(state: RootsState, rng: random.Random) -> str:
    """A random action, its kind (draw, keep, fast...) first, so rare kinds come up."""
    legal = state.legal_actions()
    kinds: dict[str, list[str]] = {}
    for action in legal:
        kinds.setdefault(action.split()[0] + (" x" if action.endswith(" x") else ""), []).append(action)
    if "leave" in kinds and len(kinds) > 1 and rng.random() < 0.8:
        del kinds["leave"]  # stay longer in the round: fuller boards
    return rng.choice(kinds[rng.choice(sorted(kinds))])


@pytest.mark.parametrize("radius", [3, 4])
def test_the_engine_agrees_with_a_plain_reference_of_the_rules(radius: int) -> None:
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = new(radius)
        while state.current() != TERMINAL:
            if state.current() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            assert set(state.legal_actions()) == reference_legal(state)
            used = reference_used(state)
            assert state.used == [sum(1 << k for k in range(6) if (r, k) in used) for r in range(state.planet.size)]
            if checked % 7 == 0:
                assert state.scores() == reference_scores(state)
            checked += 1
            state.apply(varied_action(state, rng))
        assert state.round == 12 and state.result().scores == tuple(map(float, reference_scores(state)))
    assert checked > 2000
