"""What each game adds to the game contract (tests/helpers/contract.py): the settings
it is played in beyond every seat count and listed option value, how many seeded
random games the default and the slow suites play, and its own invariants, checked
after every ply, at the end, and (in thorough games) at chance and at decisions.
These replace the per-game self-play loops the game tests once had. A game with no
entry here gets the contract alone (`hooks_for`)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from arena.games import CHANCE, State
from arena.records.record import GameRecord

Setting = tuple[int, dict[str, str]]
"""(seats, options)."""


@dataclass(frozen=True)
class GameHooks:
    games: int
    """Seeded random games per setting in the default suite."""
    thorough: int
    """Of those, the games checked against the whole interface at every decision."""
    slow_games: int
    """Games per setting under `pytest -m slow` (20 times the thorough ones too)."""
    settings: tuple[Setting, ...] = ()
    """Settings played besides every seat count with every listed option value."""

    def chance(self, state: State, outcome: str) -> None:
        """A chance outcome about to be applied (thorough games)."""

    def decision(self, state: State, rng: random.Random) -> None:
        """A seat's decision (thorough games)."""

    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        """After each ply: cheap invariants of the position."""

    def at_end(self, state: State, record: GameRecord) -> None:
        """The finished game and its record (read back and verified already)."""


class TreebloxHooks(GameHooks):
    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        from arena.games.treeblox import TreebloxState

        assert isinstance(state, TreebloxState)
        assert sum(map(sum, state.stock)) + len(state.cubes) == 64, "every cube is in a stock or on the board"

    def at_end(self, state: State, record: GameRecord) -> None:
        from arena.games.treeblox import STOCK, TreebloxState

        assert isinstance(state, TreebloxState)
        assert 4 <= len(record.plies) <= 2 + 3 * 64
        for seat in (0, 1):
            for kind in (0, 1):
                on_board = sum(1 for code in state.cubes.values() if code == seat * 2 + kind)
                assert state.stock[seat][kind] + on_board == STOCK
            leaves = sum(1 for cell in state.top.values() if state.cubes[cell] == seat * 2)
            assert state.active[seat] == leaves == len(state.active_leaf_cells(seat))


class TheTreeHooks(GameHooks):
    def chance(self, state: State, outcome: str) -> None:
        """Each seat sees its own nine tiles of the deal, in dealt order, and no other."""
        from arena.games.the_tree_tiles import DEAL_PREFIX, HAND

        dealt = outcome.split(",")
        for seat in range(state.num_seats):
            seen = state.visible_action(outcome, CHANCE, seat)
            assert seen is not None and seen.startswith(DEAL_PREFIX)
            assert seen.removeprefix(DEAL_PREFIX).split(",") == dealt[seat * HAND:(seat + 1) * HAND]

    def decision(self, state: State, rng: random.Random) -> None:
        """A seat's observation holds its own hand and nothing of the others' hands or
        the supply's order: shuffling those leaves its view unchanged."""
        from arena.games.the_tree import TheTreeState

        assert isinstance(state, TheTreeState)
        if rng.random() >= 0.2:
            return
        for seat in range(state.num_seats):
            view = json.dumps(state.observation(seat), sort_keys=True)
            tiles = [tile for other, hand in enumerate(state.hands) if other != seat for tile in hand] + state.supply
            random.Random(len(tiles)).shuffle(tiles)
            shuffled = state.clone()
            for other in range(state.num_seats):
                if other != seat:
                    size = len(shuffled.hands[other])
                    shuffled.hands[other], tiles = tiles[:size], tiles[size:]
            shuffled.supply = tiles
            assert json.dumps(shuffled.observation(seat), sort_keys=True) == view
            assert sorted(json.loads(view)["hand"]) == sorted(f"{a}{b}" for a, b in state.hands[seat])

    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        from arena.games.the_tree import TheTreeState

        assert isinstance(state, TheTreeState)
        held = sum(map(len, state.hands)) + len(state.supply)
        assert held + len(state.tiles) == 36, "every tile is in a hand, the supply or the tree"

    def at_end(self, state: State, record: GameRecord) -> None:
        assert record.plies[0].chance and sum(p.chance for p in record.plies) == 1, "one chance ply: the deal"
        assert len(record.plies) <= 1 + 36 + 27 + 4 * 37


class RootsHooks(GameHooks):
    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        from arena.games.roots import RootsState

        assert isinstance(state, RootsState)
        assert 0 <= state.round <= 12
        assert all(1 <= v <= 5 for v in state.regular) and all(1 <= v <= 6 for v in state.special)

    def at_end(self, state: State, record: GameRecord) -> None:
        from arena.games.roots import RootsState

        assert isinstance(state, RootsState)
        assert state.round == 12 and state.phase() == "over"
        assert record.tags.get("Termination") == "normal"


class BloxHooks(GameHooks):
    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        from arena.games.blox import BloxState

        assert isinstance(state, BloxState)
        bricks = int(state.options["bricks"])
        assert sum(state.left) + len(state.bricks) == bricks * state.num_seats, "every brick is in a pile or built"

    def at_end(self, state: State, record: GameRecord) -> None:
        """The winner's chain joins its goal (the four edges, or its two starting
        bricks); in a draw, nobody's does."""
        from arena.games.blox import BloxState

        assert isinstance(state, BloxState)
        for seat in range(state.num_seats):
            reached = state.joined(seat) if state.starts else any(
                edges == 0b1111 for _, edges in state.chain_edges(seat))
            assert reached == (state.winner == seat), seat


class BTTHooks(GameHooks):
    def after_ply(self, state: State, actor: int, action: str, plies: int) -> None:
        if not state.is_terminal():
            assert state.current() == plies % state.num_seats, "seats take turns, one action each"

    def at_end(self, state: State, record: GameRecord) -> None:
        from arena.games.btt import BTTState
        from arena.games.btt_board import EMPTY

        assert isinstance(state, BTTState)
        seats = state.num_seats
        assert len(record.plies) == 16 * seats, "a null or root and 15 pyramids a seat"
        assert EMPTY not in state.owner and state.left == [0] * (3 * seats)


HOOKS: dict[str, GameHooks] = {
    "treeblox": TreebloxHooks(games=300, thorough=25, slow_games=4000),
    "the-tree": TheTreeHooks(games=75, thorough=25, slow_games=1500),
    "roots": RootsHooks(games=150, thorough=6, slow_games=2000),
    "blox": BloxHooks(games=4, thorough=2, slow_games=300, settings=(
        *((seats, {"width": "8", "height": "8"}) for seats in (2, 3, 4)),
        (2, {"variant": "bridge", "width": "14", "height": "14"}))),
    "btt": BTTHooks(games=40, thorough=12, slow_games=800),
}
"""Per game: the default suite plays a few hundred games each (Blox: 32, its games
are long), the slow suite thousands."""

DEFAULT = GameHooks(games=300, thorough=25, slow_games=3000)
"""A game without hooks of its own: the contract alone, a few hundred games per setting."""


def hooks_for(game_id: str) -> GameHooks:
    """The game's hooks, or the contract alone for a game that has none (a new game)."""
    return HOOKS.get(game_id, DEFAULT)
