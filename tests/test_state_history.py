"""A state keeps its history: the actions applied since the game's start (chance outcomes
included), for every game and for games defined later, shared cheaply by clones and
unknown (None) for a position that was guessed or built rather than played; SimpleBot
tells a bot the game so far from it."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from arena.games import GAMES, get
from arena.games.base import CHANCE, TERMINAL, IllegalAction, Result, State
from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import move_name
from arena.games.treeblox import TreebloxState
from arena.session.simplebot import NoHistory, SimpleBot


def _random_game(game_id: str, seats: int, seed: int, plies: int | None = None) -> tuple[State, list[str]]:
    """A state after random play (to the end, or `plies` actions and any chance outcomes
    due, so that a seat decides) and the actions applied."""
    rng = random.Random(seed)
    state = get(game_id).new_state(seats)
    applied: list[str] = []
    while state.current() != TERMINAL and (plies is None or len(applied) < plies or state.current() == CHANCE):
        action = state.sample_chance(rng) if state.current() == CHANCE else rng.choice(state.legal_actions())
        state.apply(action)
        applied.append(action)
    return state, applied


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_games_history_is_the_actions_applied_from_the_start(game_id: str) -> None:
    game = get(game_id)
    for seats in sorted({game.min_seats, max(2, game.min_seats), game.max_seats}):
        state = game.new_state(seats)
        assert state.history == ()
        rng = random.Random(seats)
        applied: list[str] = []
        while state.current() != TERMINAL:
            action = state.sample_chance(rng) if state.current() == CHANCE else rng.choice(state.legal_actions())
            state.apply(action)
            applied.append(action)
            if len(applied) % 7 == 1:
                assert state.history == tuple(applied)
        assert state.history == tuple(applied) and applied
        replayed = game.new_state(seats)
        for action in state.history:
            replayed.apply(action)
        assert replayed.observation(0) == state.observation(0) and replayed.result() == state.result()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_illegal_action_leaves_the_history_as_it_was(game_id: str) -> None:
    state, applied = _random_game(game_id, 2, seed=3, plies=5)
    for junk in ("zz", "", "pass pass", applied[-1] + "x"):
        with pytest.raises(IllegalAction):
            state.apply(junk)
    assert state.history == tuple(applied)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_clones_history_is_its_own_once_both_play_on(game_id: str) -> None:
    state, applied = _random_game(game_id, 2, seed=5, plies=4)
    twin = state.clone()
    assert twin.history == state.history == tuple(applied)
    legal = state.legal_actions()
    first, second = legal[0], legal[-1]
    state.apply(first)
    twin.apply(second)
    assert state.history == (*applied, first) and twin.history == (*applied, second)


def test_a_determinized_or_built_position_has_no_history_and_keeps_none() -> None:
    state, _ = _random_game("the-tree", 3, seed=1, plies=4)
    guess = get("the-tree").determinize(state.observation(1), random.Random(2))
    assert guess.history is None
    guess.apply(guess.legal_actions()[0])
    assert guess.history is None and guess.clone().history is None
    assert TheTreeState.from_observation(state.observation(0), random.Random(3)).history is None
    puzzle = TreebloxState.position(["L0,0,0", "b1,0,0"])
    assert puzzle.history is None


def test_the_trees_fast_path_records_the_same_actions_as_apply() -> None:
    by_apply, applied = _random_game("the-tree", 2, seed=8)
    by_play = get("the-tree").new_state(2)
    assert isinstance(by_play, TheTreeState)
    by_play.apply(applied[0])  # the deal
    for action in applied[1:]:
        placements = {move_name(move): move for move in by_play.moves()}
        by_play.play(placements.get(action))  # None: the draw or pass that is due
    assert by_play.current() == TERMINAL and by_play.history == by_apply.history == tuple(applied)


def test_set_history_declares_the_past_without_replaying_it() -> None:
    state, applied = _random_game("btt", 2, seed=2, plies=6)
    state.set_history(None)
    assert state.history is None
    state.set_history(applied)
    assert state.history == tuple(applied)


def test_pickle_and_deepcopy_keep_the_history_of_a_long_game() -> None:
    state, applied = _random_game("roots", 2, seed=4)
    assert len(applied) > 50
    for other in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert other.history == tuple(applied)
        assert other.observation(0) == state.observation(0)
    guess = TreebloxState.position(["L0,0,0"])
    assert pickle.loads(pickle.dumps(guess)).history is None


class _Counter(State):
    """A game defined after the arena's: seat 0 adds 1 or 2 until 5 or more."""

    game_id = "counter-for-a-test"

    def __init__(self) -> None:
        super().__init__(1, {})
        self.total = 0

    def current(self) -> int:
        return TERMINAL if self.total >= 5 else 0

    def legal_actions(self) -> list[str]:
        return [] if self.total >= 5 else ["1", "2"]

    def apply(self, action: str) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(action)
        self.total += int(action)

    def result(self) -> Result:
        return Result((1,), (float(self.total),))

    def observation(self, seat: int) -> dict[str, Any]:
        return {"total": self.total}


class _Doubled(_Counter):
    """A subclass whose apply calls its superclass's: each action recorded once."""

    def apply(self, action: str) -> None:
        super().apply(action)


def test_a_game_defined_later_records_its_history_once_per_action() -> None:
    for state in (_Counter(), _Doubled()):
        state.apply("2")
        with pytest.raises(IllegalAction):
            state.apply("3")
        state.apply("1")
        assert state.history == ("2", "1")
        twin = state.clone()
        twin.apply("2")
        assert state.history == ("2", "1") and twin.history == ("2", "1", "2")


# ---- SimpleBot: the game so far from the state's history -----------------------------------------


def test_simplebot_tells_a_tracking_bot_the_real_game_from_the_states_history() -> None:
    """The issue's case: greedy asked without moves followed an empty game and answered
    for the wrong position; now the state's history is its events."""
    state, moves = _random_game("btt", 2, seed=11, plies=9)
    with SimpleBot.popen("greedy", game="btt", bot_seed=1) as bot:
        told = bot.play(state, 2.0, moves=moves)
        by_history = bot.play(state, 2.0)
        assert by_history.action == told.action and by_history.info is None  # no "lost track"
        with pytest.raises(ValueError, match="do not lead to the state"):
            bot.play(state, 2.0, moves=[])  # an empty game is refused, not answered
        guess = state.clone()
        guess.set_history(None)
        with pytest.raises(NoHistory, match="moves="):
            bot.play(guess, 2.0)
        assert bot.play(guess, 2.0, moves=moves).action == told.action
        blind = bot.play(guess, 2.0, moves=[])  # the caller's choice: no events at all
        assert blind.action in state.legal_actions() and blind.info is not None  # greedy says it lost track
