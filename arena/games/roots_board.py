"""What the Roots board tells, apart from the rules that change it: tip names, stroke
exits and crossings, the regions each seat controls or can still reach (rules/roots.md
scoring). RootsState inherits these queries; bots call them to rate positions."""

from __future__ import annotations

from arena.games.roots_map import SIDES, PlanetMap
from arena.games.roots_pieces import CROSSES, EXITS_KNOWN, EXITS_KNOWN_MAX, SIDES_IN, Stroke, Tip


class RootsBoard:
    """Queries on the board of a RootsState (the attributes are set by RootsState)."""

    planet: PlanetMap
    used: list[int]
    """Per region, a 6-bit mask of the sides used."""
    strokes: list[list[Stroke]]
    tips: list[set[Tip]]
    _exits: list[tuple[int, int, tuple[int, ...]] | None]
    _open: list[int]

    def tip_name(self, tip: Tip) -> str:
        return f"{self.planet.names[tip[0]]}/{tip[1]}"

    @staticmethod
    def exits_of(stroke: Stroke) -> list[int]:
        """A stroke's exits clockwise from its entry."""
        return [(stroke.entry + o) % SIDES for o in range(1, SIDES) if stroke.mask >> ((stroke.entry + o) % SIDES) & 1]

    def crossings(self, region: int, mask: int) -> int:
        """How many strokes in `region` a new stroke with side mask `mask` would cross."""
        return sum(1 for s in self.strokes[region] if CROSSES[s.mask][mask])

    def stroke_crossings(self, tip: Tip, offsets: tuple[int, ...]) -> int:
        """-1 when the side rules forbid the stroke; else how many strokes it crosses."""
        region, entry = tip
        neighbours = self.planet.neighbours[region]
        used = self.used[region]
        mask = 1 << entry
        for offset in offsets:
            side = (entry + offset) % SIDES
            if used >> side & 1 or neighbours[side] < 0 or mask >> side & 1:
                return -1
            mask |= 1 << side
        return self.crossings(region, mask)

    def scores(self, reach: tuple[set[int], set[int]] | None = None) -> tuple[int, int]:
        """Regions controlled by each seat on the board as it stands; `reach` passes
        both seats' reach when the caller has it already (it is the costly part)."""
        occupied = [0] * self.planet.size
        for region, strokes in enumerate(self.strokes):
            for s in strokes:
                occupied[region] |= 1 << s.owner
        if reach is None:
            reach = (self.reach(0), self.reach(1))
        score = [0, 0]
        for region in range(self.planet.size):
            owners = occupied[region]
            if owners in (1, 2):
                score[owners - 1] += 1
            elif owners == 0:
                can = [region in reach[0], region in reach[1]]
                if can[0] != can[1]:
                    score[0 if can[0] else 1] += 1
        return score[0], score[1]

    def reach(self, seat: int) -> set[int]:
        """Regions a seat could still draw in with perfect rolls (rules/roots.md)."""
        return set(self.reach_distances(seat))

    def reach_distances(self, seat: int) -> dict[int, int]:
        """Each region the seat reaches, with the strokes it must draw before it can
        draw there: a breadth-first search over (region, entry) from its tips through
        legal regular-die strokes, its own hypothetical strokes ignored."""
        neighbours = self.planet.neighbours
        frontier = list(self.tips[seat])
        seen = set(frontier)
        found: dict[int, int] = {}
        steps = 0
        while frontier:
            following = []
            for region, entry in frontier:
                exits = self.exits(region)[entry]
                if not exits:
                    continue
                found.setdefault(region, steps)
                across = neighbours[region]
                for side in SIDES_IN[exits]:
                    state = (across[side], (side + 3) % SIDES)
                    if state not in seen:
                        seen.add(state)
                        following.append(state)
            frontier = following
            steps += 1
        return found

    def exits(self, region: int) -> tuple[int, ...]:
        """Per entry side, the side mask a regular one-exit stroke from it may leave by:
        an unused side with a region across, crossing no stroke."""
        used, strokes = self.used[region], self.strokes[region]
        cached = self._exits[region]
        if cached is not None and cached[0] == used and cached[1] == len(strokes):
            return cached[2]
        free = self._open[region] & ~used
        key = (free, tuple(s.mask for s in strokes))
        exits = EXITS_KNOWN.get(key)
        if exits is None:
            exits = tuple(
                sum(1 << side for side in SIDES_IN[free & ~(1 << entry)]
                    if not any(CROSSES[mask][1 << entry | 1 << side] for mask in key[1]))
                for entry in range(SIDES)
            )
            if len(EXITS_KNOWN) >= EXITS_KNOWN_MAX:
                EXITS_KNOWN.clear()
            EXITS_KNOWN[key] = exits
        self._exits[region] = (used, len(strokes), exits)
        return exits
