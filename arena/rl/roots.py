"""Roots for RL code: numbering, observation and the dice as chance (docs/games/
roots.md, section "For RL code").

A tip is a (region, side) pair, so every draw and merge the rules allow is numbered by
its die, tip and cross-root flag. A reroll (any sub-multiset of the pools) and a fast
growth (two draws at once) would need tens of thousands and millions of ids: each is
a path instead, chosen die by die (`reroll pick r3` ... `reroll done`, dice in the
canonical ascending order) or half by half (`fast half r2 0,-4/3` twice, the halves
in canonical order). A roll of k dice is one chance outcome: a multiset of regular
values 1-5 and special values 1-6, with its multinomial probability.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from arena.games import GameError, State
from arena.games.roots import RootsState
from arena.games.roots_map import PlanetMap, hex_disc, load_map
from arena.games.roots_pieces import ROUNDS, SIDES_IN
from arena.rl.spec import ChanceModel, Codec, Path, Pieces, RLError, Tensor, rotate, soft_lead

SIDES = 6
DICE = tuple(f"r{v}" for v in range(1, 6)) + tuple(f"s{v}" for v in range(1, 7))
"""Die kinds in canonical (ascending string) order: regular 1-5, special 1-6."""
DIE_PROBABILITY = tuple([1 / 6] * 5 + [1 / 36] * 6)
"""A rolled die is regular v (1-5) with 1/6 each; a 6 is rolled again as special."""
MAX_DICE = 6
PHASES = ("plant", "turn", "after", "roll", "over")
PAIRS = tuple(combinations(range(SIDES), 2))
PAIR_INDEX = {pair: i for i, pair in enumerate(PAIRS)}
ROLLS: tuple[tuple[int, ...], ...] = tuple(
    roll for k in range(1, MAX_DICE + 1) for roll in combinations_with_replacement(range(len(DICE)), k)
)
"""Every roll of 1 to 6 dice as die-kind indices, by size then in order."""


def roll_name(roll: tuple[int, ...]) -> str:
    regular = [DICE[d][1] for d in roll if d < 5]
    special = [DICE[d][1] for d in roll if d >= 5]
    return "roll " + ",".join(regular) + "/" + ",".join(special)


ROLL_ID = {roll_name(roll): i for i, roll in enumerate(ROLLS)}
SCORE_MEMO = 4096
"""Boards whose scores a codec keeps (then it starts afresh)."""


def roll_probability(roll: tuple[int, ...]) -> float:
    p = float(math.factorial(len(roll)))
    for kind in set(roll):
        count = roll.count(kind)
        p *= DIE_PROBABILITY[kind] ** count / math.factorial(count)
    return p


@lru_cache(maxsize=MAX_DICE)
def roll_outcomes(k: int) -> list[tuple[int, float]]:
    return [(i, roll_probability(roll)) for i, roll in enumerate(ROLLS) if len(roll) == k]


class DiceChance(ChanceModel):
    max_outcomes = len(ROLLS)
    max_nodes = 12 + 2
    """A roll per round and one per reroll power-up."""
    explicit = True

    def outcomes(self, state: State, partial: Path) -> list[tuple[int, float]]:
        return roll_outcomes(dice_due(state))

    def complete(self, state: State, partial: Path) -> str | None:
        if not 0 <= partial[-1] < len(ROLLS):
            raise RLError(f"roots: roll id {partial[-1]} is outside 0..{len(ROLLS) - 1}")
        return roll_name(ROLLS[partial[-1]])

    def encode(self, state: State, action: str) -> Path:
        if action not in ROLL_ID:
            raise RLError(f"roots: {action[:40]!r} is not a roll")
        return (ROLL_ID[action],)

    def label(self, outcome: int) -> str:
        return roll_name(ROLLS[outcome]) if 0 <= outcome < len(ROLLS) else f"roll id {outcome}"


def dice_due(state: State) -> int:
    """How many dice the chance node rolls: the one count whose roll the state accepts
    (6 at a round's start, the rerolled dice after a reroll)."""
    for k in range(MAX_DICE, 0, -1):
        try:
            state.clone().apply(roll_name((0,) * k))
        except GameError:
            continue
        return k
    raise RLError("roots: no roll is due here")


def planet_of(options: Mapping[str, str]) -> PlanetMap:
    return load_map(options["map"]) if options.get("map") else hex_disc(int(options.get("radius", "4")))


class RootsCodec(Codec):
    """Ids: plant k; draw die tip (x); keep r<d>; merge r<d> tip (x); leave; end; the
    reroll steps (pick each die kind, done); the fast-growth halves (r<d> tip). Tips
    are region * 6 + side, regions in the map's order."""

    game_id = "roots"
    compound = True

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        super().__init__(seats, options)
        planet = planet_of(self.options)
        self.regions = list(planet.names)
        self.region_index = {name: i for i, name in enumerate(self.regions)}
        self.tips = [f"{name}/{side}" for name in self.regions for side in range(SIDES)]
        for k in range(len(planet.surface)):
            self._add(f"plant {k}")
        for die in DICE:
            for tip in self.tips:
                self._add(f"draw {die} {tip}")
                self._add(f"draw {die} {tip} x")
        for value in range(1, 6):
            self._add(f"keep r{value}")
        for value in range(1, 6):
            for tip in self.tips:
                self._add(f"merge r{value} {tip}")
                self._add(f"merge r{value} {tip} x")
        self._add("leave")
        self._add("end")
        self.pick = {die: self._add_step(f"reroll pick {die}") for die in DICE}
        self.done = self._add_step("reroll done")
        self.half: dict[str, int] = {}
        for value in range(1, 6):
            for tip in self.tips:
                self.half[f"r{value} {tip}"] = self._add_step(f"fast half r{value} {tip}")
        self.half_name = {i: name for name, i in self.half.items()}
        self.die_of_pick = {i: die for die, i in self.pick.items()}
        self.chance = DiceChance()
        self.surface = [[float(planet.neighbours[r][s] < 0) for s in range(SIDES)] for r in range(len(self.regions))]
        self.pieces = Pieces([
            ("regions", (len(self.regions), 78)),
            ("phase", (len(PHASES),)),
            ("round", (1,)),
            ("starter", (2,)),
            ("regular", (5,)),
            ("special", (6,)),
            ("kept", (2, 6)),
            ("left", (2,)),
            ("acted", (1,)),
            ("powers", (2, 3)),
            ("score", (2,)),
            ("to_move", (2,)),
            ("reroll_picked", (len(DICE) + 1,)),
            ("fast_die", (5,)),
        ])
        self._planet = planet
        self._regions_size = len(self.regions) * 78
        self._start = np.zeros(self.pieces.size, np.float32)
        self._start[:self._regions_size].reshape(len(self.regions), 78)[:, 66:72] = self.surface
        """A vector with the surface sides set, the rest zero (the fast path's start)."""
        self._at = {name: self.pieces.at(name) - self._regions_size for name, _ in self.pieces.pieces}
        self._columns: dict[tuple[int, int], tuple[int, ...]] = {}
        self._score_memo: dict[tuple[Any, ...], tuple[int, int]] = {}
        self._targets = [[tuple(across[side] * SIDES + (side + 3) % SIDES for side in SIDES_IN[mask]
                                if across[side] >= 0) for mask in range(1 << SIDES)] for across in planet.neighbours]
        """Per region and exit-side mask: the (region, entry) numbers a stroke leaving
        by those sides leads on to (region * 6 + entry side across)."""
        self.planes_shape, self.plane_names, self._cell_of = self._plane_layout(planet)

    def _compound_path(self, action: str) -> Path | None:
        if action.startswith("reroll "):
            dice = action[7:].split(",")
            if not all(d in self.pick for d in dice):
                return None
            return tuple(self.pick[d] for d in dice) + (self.done,)
        if action.startswith("fast "):
            words = action[5:].split(" ")
            if len(words) != 4:
                return None
            first, second = " ".join(words[:2]), " ".join(words[2:])
            if first not in self.half or second not in self.half:
                return None
            return (self.half[first], self.half[second])
        return None

    def _compound_action(self, path: Path) -> str | None:
        if len(path) >= 2 and path[-1] == self.done and all(i in self.die_of_pick for i in path[:-1]):
            return "reroll " + ",".join(self.die_of_pick[i] for i in path[:-1])
        if len(path) == 2 and all(i in self.half_name for i in path):
            return f"fast {self.half_name[path[0]]} {self.half_name[path[1]]}"
        return None

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        me = int(observation["seat"])
        regions = views["regions"]
        regions[:, 66:72] = self.surface
        for owner, name, sides in observation["strokes"]:
            r = self.region_index[name]
            base = 33 * rotate(int(owner), me, 2)
            regions[r, base + sides[0]] = 1.0
            for side in sides[1:]:
                regions[r, base + 6 + side] = 1.0
            for a, b in combinations(sorted(sides), 2):
                regions[r, base + 12 + PAIR_INDEX[(a, b)]] = 1.0
        for seat, tips in enumerate(observation["tips"]):
            base = 33 * rotate(seat, me, 2) + 27
            for tip in tips:
                name, _, side = tip.partition("/")
                regions[self.region_index[name], base + int(side)] = 1.0
        views["phase"][PHASES.index(observation["phase"])] = 1.0
        views["round"][0] = observation["round"] / observation["rounds"]
        views["starter"][rotate(int(observation["starter"]), me, 2)] = 1.0
        for value in observation["regular"]:
            views["regular"][value - 1] += 1.0
        for value in observation["special"]:
            views["special"][value - 1] += 1.0
        for seat in range(2):
            k = rotate(seat, me, 2)
            kept = observation["kept"][seat]
            views["kept"][k, 0 if kept is None else int(kept)] = 1.0
            views["left"][k] = float(observation["left"][seat])
            powers = observation["powers"][seat]
            views["powers"][k] = (powers["reroll"], powers["fast"], powers["cross"])
            views["score"][k] = observation["score"][seat]
        views["acted"][0] = float(observation["acted"])
        if observation["to_move"] is not None:
            views["to_move"][rotate(int(observation["to_move"]), me, 2)] = 1.0
        for index in pending:
            if index in self.die_of_pick:
                views["reroll_picked"][DICE.index(self.die_of_pick[index])] += 1.0
                views["reroll_picked"][len(DICE)] = 1.0
            elif index in self.half_name:
                die, _, tip = self.half_name[index].partition(" ")
                name, _, side = tip.partition("/")
                views["fast_die"][int(die[1]) - 1] = 1.0
                regions[self.region_index[name], 72 + int(side)] = 1.0

    def _stroke_columns(self, mask: int, entry: int) -> tuple[int, ...]:
        """A stroke's columns of its region's row (past its owner's base): entry,
        exits, side pairs; found once per (mask, entry)."""
        found = self._columns.get((mask, entry))
        if found is None:
            exits = [(entry + o) % SIDES for o in range(1, SIDES) if mask >> ((entry + o) % SIDES) & 1]
            sides = [entry] + exits
            found = (entry, *(6 + side for side in exits),
                     *(12 + PAIR_INDEX[pair] for pair in combinations(sorted(sides), 2)))
            self._columns[(mask, entry)] = found
        return found

    def _scores(self, state: RootsState) -> tuple[int, int]:
        """`state.scores()`, kept per board (strokes and tips, all a score depends on):
        most decisions (keeps, rolls, leaves, ends) leave the board as it was, and the
        reach search is most of an observation's cost."""
        key = (tuple((region << 10) | (s.owner << 6) | s.mask for region, strokes in enumerate(state.strokes)
                     for s in strokes), tuple(sorted(state.tips[0])), tuple(sorted(state.tips[1])))
        found = self._score_memo.get(key)
        if found is None:
            if len(self._score_memo) >= SCORE_MEMO:
                self._score_memo.clear()
            found = self._score_memo[key] = self.board_scores(state)
        return found

    def board_scores(self, state: RootsState) -> tuple[int, int]:
        """`state.scores()` (held equal by tests), with the engine's reach search done
        as a depth-first walk over (region, entry) numbers in flat arrays: the same
        regions, a few times faster, and each region's exits asked once for both seats."""
        size = len(state.strokes)
        occupied = [0] * size
        for region, strokes in enumerate(state.strokes):
            for stroke in strokes:
                occupied[region] |= 1 << stroke.owner
        exits: list[tuple[int, ...] | None] = [None] * size
        targets = self._targets
        reached = []
        for seat in range(2):
            seen = bytearray(SIDES * size)
            found = bytearray(size)
            stack = []
            for region, entry in state.tips[seat]:
                node = region * SIDES + entry
                if not seen[node]:
                    seen[node] = 1
                    stack.append(node)
            while stack:
                node = stack.pop()
                region, entry = divmod(node, SIDES)
                known = exits[region]
                if known is None:
                    known = exits[region] = state.exits(region)
                mask = known[entry]
                if mask:
                    found[region] = 1
                    for after in targets[region][mask]:
                        if not seen[after]:
                            seen[after] = 1
                            stack.append(after)
            reached.append(found)
        score = [0, 0]
        can, other = reached
        for region, owners in enumerate(occupied):
            if owners == 1 or owners == 2:
                score[owners - 1] += 1
            elif owners == 0 and can[region] != other[region]:
                score[0 if can[region] else 1] += 1
        return score[0], score[1]

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        if not isinstance(state, RootsState) or state.planet.names != self._planet.names:
            return super().fast_tensor(state, seat, pending)
        hot: list[int] = []
        for region, strokes in enumerate(state.strokes):
            for stroke in strokes:
                base = region * 78 + 33 * (stroke.owner ^ seat)
                hot.extend(base + c for c in self._stroke_columns(stroke.mask, stroke.entry))
        for owner, tips in enumerate(state.tips):
            base = 33 * (owner ^ seat) + 27
            hot.extend(region * 78 + base + side for region, side in tips)
        at = self._at
        tail = [0.0] * (self.pieces.size - self._regions_size)
        tail[at["phase"] + PHASES.index(state.phase())] = 1.0
        tail[at["round"]] = state.round / ROUNDS
        tail[at["starter"] + (((state.round - 1) % 2 if state.round else 0) ^ seat)] = 1.0
        for value in state.regular:
            tail[at["regular"] + value - 1] += 1.0
        for value in state.special:
            tail[at["special"] + value - 1] += 1.0
        scores = self._scores(state)
        for owner in range(2):
            k = owner ^ seat
            kept = state.kept[owner]
            tail[at["kept"] + 6 * k + (0 if kept is None else int(kept))] = 1.0
            tail[at["left"] + k] = float(state.left[owner])
            powers = state.powers[owner]
            tail[at["powers"] + 3 * k:at["powers"] + 3 * k + 3] = (powers.reroll, powers.fast, powers.cross)
            tail[at["score"] + k] = scores[owner]
        tail[at["acted"]] = float(state.acted)
        if not state.over and not state.rolling:
            tail[at["to_move"] + (state.mover ^ seat)] = 1.0
        for index in pending:
            if index in self.die_of_pick:
                tail[at["reroll_picked"] + DICE.index(self.die_of_pick[index])] += 1.0
                tail[at["reroll_picked"] + len(DICE)] = 1.0
            elif index in self.half_name:
                die, _, tip = self.half_name[index].partition(" ")
                name, _, side = tip.partition("/")
                tail[at["fast_die"] + int(die[1]) - 1] = 1.0
                hot.append(self.region_index[name] * 78 + 72 + int(side))
        flat = self._start.copy()
        flat[hot] = 1.0
        flat[self._regions_size:] = tail
        return flat

    @staticmethod
    def _plane_layout(planet: PlanetMap) -> tuple[tuple[int, int, int], tuple[str, ...], Any]:
        """(C, H, W), channel names and each region's cell: regions at their axial
        (q, r), row r and column q, offset so the smallest is 0."""
        qs = [q for q, _ in planet.axial]
        rs = [r for _, r in planet.axial]
        width, rows = max(qs) - min(qs) + 1, max(rs) - min(rs) + 1
        cells = np.array([(r - min(rs)) * width + q - min(qs) for q, r in planet.axial], np.intp)
        names = tuple(f"{who} {what}" for who in ("own", "other") for what in (
            *(f"entry {side}" for side in range(SIDES)), *(f"exit {side}" for side in range(SIDES)),
            *(f"pair {a}{b}" for a, b in PAIRS), *(f"tip {side}" for side in range(SIDES))))
        names += tuple(f"surface {side}" for side in range(SIDES)) + tuple(f"fast half {side}" for side in range(SIDES))
        names += ("region",)
        return (len(names), rows, width), names, cells

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """The 78 features of each region (the flat vector's `regions` rows: the
        observer's strokes' entry sides, exit sides, side pairs and open tips, the same
        for the other seat, the surface sides, the first half of a fast growth chosen
        so far) and a 79th channel, 1 on every region; H x W: the planet's axial grid,
        a region (q, r) at row r, column q (from the smallest of each); cells off the
        planet are 0 in every channel."""
        assert self.planes_shape is not None
        channels, rows, width = self.planes_shape
        regions = self.fast_tensor(state, seat, pending)[:self._regions_size].reshape(len(self.regions), 78)
        out = np.zeros((channels, rows * width), np.float32)
        out[:78, self._cell_of] = regions.T
        out[78, self._cell_of] = 1.0
        return out.reshape(self.planes_shape)

    playout_cutoff = 40

    def evaluate(self, observation: Mapping[str, Any]) -> list[float] | None:
        """Regions each seat would control if the game ended now."""
        return soft_lead([float(v) for v in observation["score"]], 4.0)

    def max_decisions(self) -> int:
        # per round and seat at most 6 dice taken, 3 kept, a leave and an end after
        # each; each seat's reroll (7 steps) and fast growth (2) once per game
        return 2 + 12 * 2 * (6 + 3 + 1) * 2 + 2 * (7 + 2)


CODEC = RootsCodec
"""The game's codec (arena/rl/codecs.py finds it by the game's module name)."""
