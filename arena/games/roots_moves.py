"""The legal actions of a Roots position (rules/roots.md), by kind: planting, the
main action (draw, keep, merge, leave), rerolls, fast growth and `end`, each named in
the game's notation with its parsed Move. RootsState inherits them."""

from __future__ import annotations

from itertools import combinations

from arena.games.roots_board import RootsBoard
from arena.games.roots_map import SIDES
from arena.games.roots_pieces import END, LEAVE, PLANT_WIDTH, REGULAR, SPECIAL, Move, SeatPowers, Tip, special_offsets


class RootsMoves(RootsBoard):
    """Legal-action generation for RootsState (the attributes are set by RootsState)."""

    mover: int
    planted: int
    acted: bool
    regular: list[int]
    special: list[int]
    kept: list[int | None]
    powers: list[SeatPowers]
    _legal: dict[str, Move] | None

    # ---- legal actions ------------------------------------------------------------------

    def _moves(self) -> dict[str, Move]:
        if self._legal is None:
            if self.planted < 2:
                self._legal = self._plant_moves()
            else:
                self._legal = self._turn_moves()
        return self._legal

    def _plant_moves(self) -> dict[str, Move]:
        count = len(self.planet.surface)
        moves = {}
        for k in range(count):
            segments = [self.planet.surface[(k + i) % count] for i in range(PLANT_WIDTH)]
            if all(not self.used[r] >> side & 1 for r, side in segments):
                moves[f"plant {k}"] = Move("plant", value=k)
        return moves

    def _turn_moves(self) -> dict[str, Move]:
        moves: dict[str, Move] = {}
        powers = self.powers[self.mover]
        if not self.acted:
            self._main_moves(moves)
        if powers.reroll:
            self._reroll_moves(moves)
        if self.acted:
            if powers.fast:
                self._fast_moves(moves)
            if moves:
                moves[END] = Move(END)
        return moves

    def _strokes_at_tips(self, offsets: tuple[int, ...]) -> list[tuple[Tip, int]]:
        """(tip, strokes crossed) for every tip of the mover where the side rules allow
        a stroke with these exit offsets."""
        found = []
        for tip in self.tips[self.mover]:
            crossed = self.stroke_crossings(tip, offsets)
            if crossed >= 0:
                found.append((tip, crossed))
        return found

    def _add_stroke_moves(self, moves: dict[str, Move], prefix: str, kind: str, pool: str, value: int,
                          offsets: tuple[int, ...]) -> bool:
        """Add draw or merge actions at every tip; whether any (cross root included) exists."""
        cross = self.powers[self.mover].cross
        any_legal = False
        for tip, crossed in self._strokes_at_tips(offsets):
            move = Move(kind, value=value, pool=pool, tip=tip, exits=offsets)
            name = f"{prefix} {self.tip_name(tip)}"
            if crossed == 0:
                moves[name] = move
                any_legal = True
            elif crossed == 1 and cross:
                move.cross = True
                moves[name + " x"] = move
                any_legal = True
        return any_legal

    def _main_moves(self, moves: dict[str, Move]) -> None:
        kept = self.kept[self.mover]
        regular = sorted(set(self.regular))
        can_take_regular = kept is None or len(self.regular) >= 2
        for value in regular:
            if can_take_regular:
                self._add_stroke_moves(moves, f"draw r{value}", "draw", REGULAR, value, (value,))
            if kept is None and len(self.regular) >= 2:
                moves[f"keep r{value}"] = Move("keep", value=value)
        for value in sorted(set(self.special)):
            self._add_stroke_moves(moves, f"draw s{value}", "draw", SPECIAL, value, special_offsets(value))
        merge_exists = False
        if kept is not None:
            for value in regular:
                offsets = tuple(sorted({kept, value}))
                if self._add_stroke_moves(moves, f"merge r{value}", "merge", REGULAR, value, offsets):
                    merge_exists = True
        if kept is None or not merge_exists:
            moves[LEAVE] = Move(LEAVE)

    def _reroll_moves(self, moves: dict[str, Move]) -> None:
        dice = [f"r{v}" for v in self.regular] + [f"s{v}" for v in self.special]
        seen = set()
        for size in range(1, len(dice) + 1):
            for chosen in combinations(dice, size):
                key = tuple(sorted(chosen))
                if key not in seen:
                    seen.add(key)
                    moves["reroll " + ",".join(key)] = Move("reroll", dice=key)

    def _fast_moves(self, moves: dict[str, Move]) -> None:
        halves: list[tuple[str, Move, int]] = []
        for value in sorted(set(self.regular)):
            for tip, crossed in self._strokes_at_tips((value,)):
                if crossed == 0:
                    exit_mask = self._exit_segments(tip, (value,))
                    halves.append((f"r{value} {self.tip_name(tip)}", Move("draw", value=value, tip=tip,
                                                                           exits=(value,)), exit_mask))
        halves.sort(key=lambda h: h[0])
        for (name_a, a, used_a), (name_b, b, used_b) in combinations(halves, 2):
            if a.tip[0] == b.tip[0] or used_a & used_b:
                continue
            if a.value == b.value and self.regular.count(a.value) < 2:
                continue
            moves[f"fast {name_a} {name_b}"] = Move("fast", value=a.value, tip=a.tip, exits=a.exits, second=b)

    def _exit_segments(self, tip: Tip, offsets: tuple[int, ...]) -> int:
        """The segments a stroke's exits use, as one bit per (region, side) pair of the
        lower-numbered region, so two strokes sharing a segment are seen to collide."""
        region, entry = tip
        bits = 0
        for offset in offsets:
            side = (entry + offset) % SIDES
            across = self.planet.neighbours[region][side]
            key = (region, side) if region < across else (across, (side + 3) % SIDES)
            bits |= 1 << (key[0] * SIDES + key[1])
        return bits
