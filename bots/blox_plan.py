"""Path planning for Blox bots: how many bricks a seat still needs to win, and which.

A winning chain alternates level-0 and level-1 bricks (a level-1 brick joins the
level-0 bricks under it), so the planner works on brick *positions* at levels 0 and
1, four classes (H or V, level 0 or 1). A position costs 0 when the seat already has a
brick there, 1 when a brick could still go there (its footprint is empty at its level
and nothing above would forbid it), and is closed otherwise. Distances from each board
edge are found by a 0-1 breadth-first search run on bitsets, one layer per brick, the
same shifts the rules engine uses. The plan is a Steiner tree estimate: the position
(the hub) whose distances to the four edges add up to the least, and the four
shortest paths from it. Its length is the *need*: the bricks still missing. In the
bridge variant the terminals are the seat's two starting bricks instead of the edges.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from dataclasses import dataclass

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.blox import ORIENTATIONS, BloxState

LEVELS = 3
"""Levels the plans use: a level-2 brick can bridge two level-1 bricks over an obstacle."""
CLASSES = tuple((o, z) for z in range(LEVELS) for o in ORIENTATIONS)
"""(orientation, level) of the position classes, indexed by level then orientation."""
K = len(CLASSES)
EMPTY = [0] * K
UNREACHABLE = 99
"""The need of a seat that can no longer connect the four edges."""

Node = tuple[int, int]
"""(class index, position bit index)."""
Layers = list[list[int]]
"""Per distance: per class, the positions at exactly that distance."""


@dataclass
class Plan:
    """A seat's cheapest estimated winning chain."""

    need: int
    """Bricks still to place (0: the seat has won; UNREACHABLE: it cannot)."""
    missing: list[Node]
    """The positions of the plan without a brick yet, level 0 first."""


class Planner:
    """Distances for one seat in one position."""

    def __init__(self, state: BloxState, seat: int) -> None:
        self.state = state
        self.geo = state.geo
        self.own = list(EMPTY)
        self.seat = seat
        self.free = [self._free(k) for k in range(K)]
        for brick in state.bricks:
            if brick.owner == seat and brick.level < LEVELS:
                self.own[CLASSES.index((brick.orientation, brick.level))] |= 1 << brick.position
        self.open = [self.own[k] | self.free[k] for k in range(K)]

    def _studs(self, k: int, positions: int) -> int:
        """Studs covered by bricks of class k at `positions`."""
        studs = 0
        for offset in self.geo.offsets[CLASSES[k][0]]:
            studs |= positions << offset
        return studs

    def _touching(self, k: int, studs: int) -> int:
        """Positions of class k whose footprint meets `studs`."""
        return self.state._blocked(CLASSES[k][0], studs)

    def _free(self, k: int) -> int:
        """Positions of class k where a brick could still be placed."""
        o, z = CLASSES[k]
        occupied = self.state.occupied
        free = self.geo.valid[o] & ~self._touching(k, occupied[z]) & ~self._touching(k, occupied[z + 1])
        if z == 0:
            return free & self.geo.on_board[o]
        exact = 0
        for brick in self.state.bricks:
            if brick.orientation == o and brick.level == z - 1 and brick.owner != self.seat:
                exact |= 1 << brick.position
        return free & ~exact

    def neighbours(self, sets: list[int]) -> list[int]:
        """Per class: positions one connection away from any position in `sets`."""
        studs = [self._studs(2 * z, sets[2 * z]) | self._studs(2 * z + 1, sets[2 * z + 1]) for z in range(LEVELS)]
        near = []
        for k, (_, z) in enumerate(CLASSES):
            touching = studs[z - 1] if z else 0
            if z + 1 < LEVELS:
                touching |= studs[z + 1]
            near.append(self._touching(k, touching))
        return near

    def terminals(self) -> list[list[int]]:
        """What the chain must join, each as the positions per class that touch it: the
        four board edges (level 0), or in the bridge variant the two starting bricks."""
        if self.state.starts:
            ends = []
            for index in self.state.starts[self.seat]:
                brick = self.state.bricks[index]
                target = list(EMPTY)
                target[CLASSES.index((brick.orientation, brick.level))] = 1 << brick.position
                ends.append(target)
            return ends
        return [[self._touching(k, self.geo.edge_studs[side]) if k < 2 else 0 for k in range(K)] for side in range(4)]

    def layers_from(self, target: list[int]) -> Layers:
        """Positions by distance (bricks to place) from a terminal."""
        sources = [target[k] & self.open[k] for k in range(K)]
        reached = list(EMPTY)
        layers: Layers = []
        current = [sources[k] & self.own[k] for k in range(K)]
        pending = [sources[k] & self.free[k] for k in range(K)]
        while any(current) or any(pending):
            frontier = current
            while any(frontier):  # own bricks join at no cost
                reached = [reached[k] | frontier[k] for k in range(K)]
                near = self.neighbours(frontier)
                frontier = [near[k] & self.own[k] & ~reached[k] for k in range(K)]
                current = [current[k] | frontier[k] for k in range(K)]
            layers.append(current)
            near = self.neighbours(current)
            current = [(pending[k] | (near[k] & self.free[k])) & ~reached[k] for k in range(K)]
            pending = list(EMPTY)
        return layers

    def plan(self) -> Plan:
        """The cheapest hub and its paths to every terminal."""
        terminals = self.terminals()
        per_terminal = [self.layers_from(target) for target in terminals]
        distance: list[dict[Node, int]] = []
        for layers in per_terminal:
            table: dict[Node, int] = {}
            for d, sets in enumerate(layers):
                for k in range(K):
                    bits = sets[k]
                    while bits:
                        low = bits & -bits
                        table[(k, low.bit_length() - 1)] = d
                        bits ^= low
            distance.append(table)
        best: tuple[int, Node] | None = None
        extra = len(terminals) - 1
        first, *rest = distance
        for node, total in first.items():
            for table in rest:
                away = table.get(node)
                if away is None:
                    break
                total += away
            else:
                if not self.own[node[0]] >> node[1] & 1:
                    total -= extra
                if best is None or total < best[0]:
                    best = (total, node)
        if best is None:
            return Plan(UNREACHABLE, [])
        missing: set[Node] = set()
        for target, table, layers in zip(terminals, distance, per_terminal):
            missing.update(self._path(best[1], table, layers, target))
        ordered = sorted(missing, key=lambda node: CLASSES[node[0]][1])
        return Plan(best[0], ordered)

    def _cost(self, node: Node) -> int:
        return 0 if self.own[node[0]] >> node[1] & 1 else 1

    def _path(self, hub: Node, table: dict[Node, int], layers: Layers, target: list[int]) -> list[Node]:
        """Positions without a brick on a shortest path from `hub` to a terminal: a
        breadth-first search that only steps to a neighbour exactly one brick closer (or
        as close, through an own brick), found among the positions at that distance."""
        parent: dict[Node, Node | None] = {hub: None}
        queue = deque([hub])
        while queue:
            node = queue.popleft()
            k, bit = node
            cost = self._cost(node)
            if table[node] == cost and target[k] >> bit & 1:
                path = []
                step: Node | None = node
                while step is not None:
                    if self._cost(step):
                        path.append(step)
                    step = parent[step]
                return path
            want = table[node] - cost
            if want < 0:
                continue
            sets = list(EMPTY)
            sets[k] = 1 << bit
            near = self.neighbours(sets)
            closer = layers[want]
            for j in range(K):
                for b in _bits(near[j] & closer[j]):
                    if (j, b) not in parent:
                        parent[(j, b)] = node
                        queue.append((j, b))
        return []


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def node_action(state: BloxState, node: Node) -> str:
    """The action that places a brick at `node`."""
    o, z = CLASSES[node[0]]
    x, y = state.geo.coords(node[1])
    return f"{o}{x},{y},{z}"


def plan_for(state: BloxState, seat: int) -> Plan:
    """The plan of `seat` in `state` (0 when it has already won)."""
    if state.winner == seat:
        return Plan(0, [])
    return Planner(state, seat).plan()
