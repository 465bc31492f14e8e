"""Roots (rules/roots.md): two trees grow roots into a hex planet with dice over 12
rounds; each region goes to the seat alone in it, or alone able to reach it. Pure
rules, no I/O, no randomness of its own: every roll is a chance action.

A turn is several decisions: an optional reroll, the main action (draw, keep, merge
or leave), an optional reroll, an optional fast growth, and `end` while a power-up
could still be used. Strokes are kept per region as 6-bit side masks, so side use and
crossing are bit tests against precomputed tables.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import CHANCE, TERMINAL, Game, IllegalAction, Option, Result, State, competition_ranks
from arena.games.copying import copy_lists, copy_sets
from arena.games.roots_map import SIDES, PlanetMap, hex_disc, load_map
from arena.games.roots_moves import RootsMoves
from arena.games.roots_pieces import (
    DICE,
    END,
    LEAVE,
    PLANT_WIDTH,
    POWERS,
    REGULAR,
    ROUNDS,
    Move,
    SeatPowers,
    Stroke,
    Tip,
    copy_powers,
    format_roll,
    parse_roll,
)


class RootsState(RootsMoves, State):
    """A position. `used[region]` is a 6-bit mask of used sides; `strokes[region]`
    the strokes drawn there; `tips[seat]` the open tips; pools are sorted lists."""

    game_id = "roots"
    copied = {"used": list.copy, "strokes": copy_lists, "tips": copy_sets, "regular": list.copy, "special": list.copy,
              "kept": list.copy, "left": list.copy, "powers": copy_powers, "_exits": list.copy}

    def __init__(self, num_seats: int, options: Mapping[str, str], planet: PlanetMap) -> None:
        super().__init__(num_seats, options)
        self.planet = planet
        n = planet.size
        self.used = [0] * n
        self.strokes: list[list[Stroke]] = [[] for _ in range(n)]
        self.tips: list[set[Tip]] = [set(), set()]
        self.planted = 0
        self.round = 0
        self.mover = 0
        self.rolling = 0
        """Dice waiting for a chance roll (0: no roll due)."""
        self.regular: list[int] = []
        self.special: list[int] = []
        self.kept: list[int | None] = [None, None]
        self.left = [False, False]
        self.powers = [SeatPowers(), SeatPowers()]
        self.acted = False
        """The mover has taken its main action this turn."""
        self.over = False
        self._legal: dict[str, Move] | None = None
        self._exits: list[tuple[int, int, tuple[int, ...]] | None] = [None] * n
        """Per region, (used mask, stroke count, exits per entry) as of that used mask and
        stroke count: the reach search asks for the same regions over and over."""
        self._open = [sum(1 << k for k in range(SIDES) if planet.neighbours[r][k] >= 0) for r in range(n)]
        """Per region, the sides with a region across."""

    # ---- the interface ------------------------------------------------------------------

    def current(self) -> int:
        if self.over:
            return TERMINAL
        return CHANCE if self.rolling else self.mover

    def legal_actions(self) -> list[str]:
        if self.over or self.rolling:
            return []
        return sorted(self._moves())

    def is_legal(self, action: str) -> bool:
        return not self.over and not self.rolling and action in self._moves()

    def apply(self, action: str) -> None:
        if self.over:
            raise IllegalAction(action, "the game is over")
        if self.rolling:
            regular, special = parse_roll(action, self.rolling)
            self.rolling = 0
            self.regular = sorted(self.regular + regular)
            self.special = sorted(self.special + special)
            self._legal = None
            if self.acted and not self._power_left():
                self._close_turn()
            return
        move = self._moves().get(action)
        if move is None:
            raise IllegalAction(action, self._why_illegal(action))
        self._legal = None
        self._play(move)

    def result(self) -> Result:
        scores = self.scores()
        return Result(competition_ranks(scores), tuple(float(s) for s in scores))

    def sample_chance(self, rng: random.Random) -> str:
        regular, special = [], []
        for _ in range(self.rolling):
            value = rng.randint(1, 6)
            if value == 6:
                special.append(rng.randint(1, 6))
            else:
                regular.append(value)
        return format_roll(regular, special)

    def observation(self, seat: int) -> dict[str, Any]:
        planet = self.planet
        return {
            "seat": seat,
            "to_move": None if self.over or self.rolling else self.mover,
            "phase": self.phase(),
            "round": self.round,
            "rounds": ROUNDS,
            "starter": (self.round - 1) % 2 if self.round else 0,
            "regular": list(self.regular),
            "special": list(self.special),
            "kept": list(self.kept),
            "left": list(self.left),
            "acted": self.acted,
            "powers": [{name: getattr(p, name) for name in POWERS} for p in self.powers],
            "tips": [sorted(self.tip_name(t) for t in tips) for tips in self.tips],
            "strokes": [[s.owner, planet.names[s.region], [s.entry] + [k for k in self.exits_of(s)]]
                        for region in range(planet.size) for s in self.strokes[region]],
            "score": list(self.scores()),
        }

    # ---- queries ------------------------------------------------------------------------

    def phase(self) -> str:
        if self.over:
            return "over"
        if self.planted < 2:
            return "plant"
        return "roll" if self.rolling else ("after" if self.acted else "turn")

    def _power_left(self) -> bool:
        """After the main action: whether a power-up (hence `end`) is still legal; the
        list is kept as the legal actions, since nothing changes until the next apply."""
        if not self.acted:
            return True
        self._legal = self._turn_moves()
        return bool(self._legal)

    # ---- playing ------------------------------------------------------------------------

    def _play(self, move: Move) -> None:
        seat = self.mover
        kind = move.kind
        if kind == "plant":
            self._plant(move.value)
            return
        if kind == "reroll":
            self.powers[seat].reroll = False
            for die in move.dice:
                (self.regular if die[0] == REGULAR else self.special).remove(int(die[1:]))
            self.rolling = len(move.dice)
            return
        if kind == END:
            self._close_turn()
            return
        if kind == LEAVE:
            kept = self.kept[seat]
            if kept is not None:
                self.regular = sorted(self.regular + [kept])
                self.kept[seat] = None
            self.left[seat] = True
            self._close_turn()
            return
        if kind == "fast":
            self.powers[seat].fast = False
            self._draw(seat, move.tip, move.exits)
            assert move.second is not None
            self._draw(seat, move.second.tip, move.second.exits)
            self._close_turn()
            return
        if kind == "keep":
            self.regular.remove(move.value)
            self.kept[seat] = move.value
        else:  # draw or merge
            (self.regular if move.pool == REGULAR else self.special).remove(move.value)
            if kind == "merge":
                self.kept[seat] = None
            if move.cross:
                self.powers[seat].cross = False
            self._draw(seat, move.tip, move.exits)
        self.acted = True
        if not self._power_left():
            self._close_turn()

    def _plant(self, k: int) -> None:
        count = len(self.planet.surface)
        for i in range(PLANT_WIDTH):
            region, side = self.planet.surface[(k + i) % count]
            self.used[region] |= 1 << side
            self.tips[self.mover].add((region, side))
        self.planted += 1
        self.mover = 1 - self.mover
        if self.planted == 2:
            self._start_round()

    def _draw(self, seat: int, tip: Tip, offsets: tuple[int, ...]) -> None:
        region, entry = tip
        mask = 1 << entry
        self.tips[seat].discard(tip)
        for offset in offsets:
            side = (entry + offset) % SIDES
            across = self.planet.neighbours[region][side]
            mask |= 1 << side
            back = (side + 3) % SIDES
            self.used[region] |= 1 << side
            self.used[across] |= 1 << back
            self.tips[seat].add((across, back))
        self.strokes[region].append(Stroke(seat, region, mask, entry))

    def _start_round(self) -> None:
        self.round += 1
        self.mover = (self.round - 1) % 2
        self.left = [False, False]
        self.regular, self.special = [], []
        self.rolling = DICE

    def _close_turn(self) -> None:
        self.acted = False
        self._legal = None
        pools_empty = not self.regular and not self.special and self.kept == [None, None]
        if pools_empty or all(self.left):
            if self.round == ROUNDS:
                self.over = True
                self.regular, self.special = [], []
            else:
                self._start_round()
            return
        other = 1 - self.mover
        if not self.left[other]:
            self.mover = other

    def _why_illegal(self, action: str) -> str:
        if self.planted < 2:
            return "the trees are being planted: plant <k> (k .. k+4 free surface segments)"
        if action.endswith(" x"):
            return "cross root needs the power-up unused and a stroke crossing exactly one other"
        if self.acted:
            return "the main action is taken: a power-up (reroll, fast) or end"
        return "not legal now: see `arena legal` for the dice, tips and power-ups that apply"


class Roots(Game):
    """Roots: 2 seats, 12 rounds of dice; the most regions controlled wins."""

    id = "roots"
    name = "Roots"
    min_seats = 2
    max_seats = 2
    has_chance = True
    score_name = "regions"
    quick_options = {"radius": "3"}
    midgame_ply = 40
    options = (
        Option("radius", "4", "radius of the hex planet (4: 61 regions, 3: 37)", ("3", "4")),
        Option("map", "", "a map file (JSON, docs/games/roots.md) instead of the hex disc"),
    )

    def resolve_options(self, given: Mapping[str, str]) -> dict[str, str]:
        options = super().resolve_options(given)
        if options["map"]:
            load_map(options["map"])  # a bad file is reported before the game starts
        return options

    def _initial_state(self, seats: int, options: dict[str, str]) -> RootsState:
        planet = load_map(options["map"]) if options["map"] else hex_disc(int(options["radius"]))
        return RootsState(seats, options, planet)
