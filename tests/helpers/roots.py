"""Roots positions for tests: a new planet, tips and strokes put down directly, a
round-1 position with given pools, and a three-region planet for scoring."""

from __future__ import annotations

from collections.abc import Sequence

from arena import games
from arena.games.roots import RootsState
from arena.games.roots_map import build_map

GAME = games.get("roots")


def new(radius: int = 4) -> RootsState:
    state = GAME.new_state(2, {"radius": str(radius)})
    assert isinstance(state, RootsState)
    return state


def region(state: RootsState, name: str) -> int:
    return state.planet.index[name]


def tip_of(state: RootsState, text: str) -> tuple[int, int]:
    name, side = text.split("/")
    return region(state, name), int(side)


def add_tip(state: RootsState, seat: int, text: str) -> None:
    """An open tip of `seat`, its side used in both regions it borders."""
    tip = tip_of(state, text)
    state.tips[seat].add(tip)
    state.used[tip[0]] |= 1 << tip[1]
    neighbour = state.planet.neighbours[tip[0]][tip[1]]
    if neighbour >= 0:
        state.used[neighbour] |= 1 << (tip[1] + 3) % 6
    state._legal = None


def add_stroke(state: RootsState, seat: int, text: str, *offsets: int) -> None:
    """A stroke of `seat` already on the board: a tip there, drawn with these offsets."""
    add_tip(state, seat, text)
    state._draw(seat, tip_of(state, text), offsets)
    state._legal = None


def ready(regular: Sequence[int], special: Sequence[int] = (), tips0: Sequence[str] = ("0,0/0",),
          tips1: Sequence[str] = ("-3,3/3",)) -> RootsState:
    """A round-1 position on the radius-4 planet, seat 0 to move: tips and pools given."""
    state = new()
    state.planted, state.round, state.mover = 2, 1, 0
    for seat, tips in enumerate((tips0, tips1)):
        for text in tips:
            add_tip(state, seat, text)
    state.regular, state.special = sorted(regular), sorted(special)
    state._legal = None
    return state


def play(state: RootsState, *actions: str) -> RootsState:
    for action in actions:
        state.apply(action)
    return state


def legal_at(state: RootsState, prefix: str) -> list[str]:
    return [a for a in state.legal_actions() if a.startswith(prefix)]


def tips(state: RootsState, seat: int = 0) -> set[str]:
    return {state.tip_name(t) for t in state.tips[seat]}


def three_in_a_row() -> RootsState:
    """A planet of three regions A = 0,0, B = 1,0, C = 2,0 joined SE-NW (sides 2 and
    5); every other side is surface. Seat 0 waits at A's side 0, seat 1 at C's side 0."""
    planet = build_map({"0,0": [None, None, "1,0", None, None, None],
                        "1,0": [None, None, "2,0", None, None, "0,0"],
                        "2,0": [None, None, None, None, None, "1,0"]})
    state = RootsState(2, {}, planet)
    state.planted, state.round = 2, 1
    for seat, name in enumerate(("0,0", "2,0")):
        state.tips[seat].add((planet.index[name], 0))
        state.used[planet.index[name]] |= 1
    state.regular = [2, 3, 3]
    return state
