"""The game contract, game by game: a seeded random game checked against the State
interface (arena/games/base.py), with the game's own invariants (tests/helpers/
game_hooks.py) after every ply and at the end, then written as a record, read back
byte for byte and replayed through the rules; and any string, at points of real
games, a legal or an illegal action and never an error. Every function takes a game
id, so any registered game gets the whole contract (tests/test_game_contract.py for
the arena's games, tests/test_new_game.py for one made in a test)."""

from __future__ import annotations

import itertools
import json
import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import games
from arena.games import CHANCE, TERMINAL, Game, GameError, State
from arena.games.base import competition_ranks
from arena.records.reader import read_text
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.records.replay import verify
from arena.records.writer import write_all
from arena.referee.outcome import GameSetup, game_tags
from arena.termination import Termination
from arena.timecontrol import TimeControl
from tests.helpers.game_hooks import GameHooks, hooks_for
from tests.helpers.hostile_actions import (
    DIGITS,
    EDGES,
    HUGE,
    check_verdict,
    hostile_strings,
    listed_actions,
    renumbered_strings,
    snapshot,
)

Setting = tuple[int, dict[str, str]]
"""(seats, options)."""

STRINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])
"""Hypothesis settings of the any-string checks."""

MAX_PLIES = 5000
"""No game of the arena comes near it: BTT has at most 15 pyramids a seat, Roots 12
rounds, The Tree 36 tiles, Blox its bricks and turn cap, Treeblox its cubes."""
CLONE_CHECKS = 0.15
"""Share of a thorough game's decisions where clones are checked."""


def near_misses(action: str) -> list[str]:
    """Strings one slip away from a legal action."""
    misses = [action + " ", " " + action, action.upper(), action.lower(), action + action[-1:], action[:-1],
              action + "0", "0" + action, action.replace(",", ", ")]
    if len(action) > 1:
        misses.append(action[1:])
        misses.append(action[0] + chr(ord(action[1]) + 1) + action[2:])
    return [m for m in misses if m != action]


def check_decision(state: State, rng: random.Random) -> None:
    """A seat's decision: sorted, distinct legal actions that is_legal agrees with
    (near misses too), JSON-able views, and what each seat sees of an action: all of
    it, or in a game with hidden information, the actor at least the action itself
    and the others the action or nothing."""
    seat = state.current()
    legal = state.legal_actions()
    assert legal, "a seat to move has at least one legal action"
    assert legal == sorted(legal) and len(set(legal)) == len(legal), "sorted in ASCII order, no duplicates"
    listed = set(legal)
    for action in rng.sample(legal, min(len(legal), 40)):
        assert state.is_legal(action), action
    for action in rng.sample(legal, min(len(legal), 3)):
        for miss in near_misses(action):
            assert state.is_legal(miss) == (miss in listed), (action, miss)
    hidden = state.game.has_hidden_information
    for viewer in range(state.num_seats):
        json.dumps(state.observation(viewer))
        for action in legal[:5]:
            seen = state.visible_action(action, seat, viewer)
            if not hidden:
                assert seen == action
            elif viewer == seat:  # the actor sees its action, perhaps with what it alone learns
                assert seen is not None and (seen == action or seen.startswith(action + " ")), (action, seen)
            else:  # the others see the action itself, never more
                assert seen in (action, None), (action, seen)


def check_clone(state: State, rng: random.Random) -> None:
    """A clone and its original go their own ways: the clone has every attribute of the
    original, copies what its class declares copied and shares no other public list,
    dict or set (private ones are caches, replaced rather than changed)."""
    before = snapshot(state)
    twin = state.clone()
    assert type(twin) is type(state) and twin.__dict__.keys() == state.__dict__.keys()
    for name, value in state.__dict__.items():
        if name in type(state).copied:
            assert twin.__dict__[name] is not value, f"{name} is declared copied but is shared"
            assert twin.__dict__[name] == value, f"{name} is copied wrong"
        elif isinstance(value, list | dict | set) and not name.startswith("_") and name != "options":
            raise AssertionError(f"{type(state).__name__}.{name} holds a {type(value).__name__} that clone shares: "
                                 "declare it in `copied`")
    assert snapshot(twin) == before
    twin.apply(rng.choice(twin.legal_actions()) if twin.current() >= 0 else twin.sample_chance(rng))
    assert snapshot(state) == before, "playing on a clone changed the original"
    twin_view = snapshot(twin)
    other = state.clone()
    other.apply(rng.choice(other.legal_actions()) if other.current() >= 0 else other.sample_chance(rng))
    assert snapshot(twin) == twin_view, "playing on the original's copy changed another clone"


def check_chance_visibility(state: State, outcome: str) -> None:
    """What each seat learns of a chance outcome: all of it in a perfect-information
    game; in a game with hidden information, a part or nothing (the game's hook says
    which part)."""
    for seat in range(state.num_seats):
        seen = state.visible_action(outcome, CHANCE, seat)
        if not state.game.has_hidden_information:
            assert seen == outcome
        else:
            assert seen is None or isinstance(seen, str)


def check_chance_outcomes(state: State, drawn: str) -> None:
    """Where a game lists its chance outcomes (for the generic RL codec): distinct, each
    with a probability above 0, together 1, the one drawn among them."""
    try:
        outcomes = state.chance_outcomes()
    except GameError:
        return  # the game leaves them to a codec of its own
    names = [name for name, _ in outcomes]
    assert len(set(names)) == len(names) and drawn in names, (drawn, names)
    assert all(p > 0 for _, p in outcomes) and math.isclose(sum(p for _, p in outcomes), 1.0)


def check_result(state: State) -> None:
    result = state.result()
    seats = state.num_seats
    assert len(result.ranks) == len(result.scores) == seats
    if seats == 1:
        assert result.ranks in ((1,), (2,)), "solo: 1 for a win, 2 for a loss (docs/games/the-tree.md)"
    else:
        assert result.ranks == competition_ranks([-r for r in result.ranks]), "ranks are a competition ranking"
    assert state.legal_actions() == []


def play_and_check(game_id: str, seats: int, options: dict[str, str], seed: int, thorough: bool) -> GameRecord:
    """One seeded random game under the contract: thorough, every decision is checked
    against the interface (and clones at some); either way the game's hooks check its
    invariants after every ply and at the end, and its record replays."""
    hooks: GameHooks = hooks_for(game_id)
    rng = random.Random(seed)
    game = games.get(game_id)
    options = game.resolve_options(options)
    state = game.new_state(seats, options)
    assert state.game is game
    actors: list[int] = []
    actions: list[str] = []
    while (actor := state.current()) != TERMINAL:
        assert len(actions) < MAX_PLIES, "the game must end"
        if actor == CHANCE:
            action = state.sample_chance(rng)
            if thorough:
                check_chance_visibility(state, action)
                check_chance_outcomes(state, action)
                hooks.chance(state, action)
        else:
            if thorough:
                check_decision(state, rng)
                hooks.decision(state, rng)
            action = rng.choice(state.legal_actions())
        if thorough and rng.random() < CLONE_CHECKS:
            check_clone(state, rng)
        state.apply(action)
        actors.append(actor)
        actions.append(action)
        hooks.after_ply(state, actor, action, len(actions))
    check_result(state)
    record = game_record(state, seed, actors, actions)
    hooks.at_end(state, record)
    return record


def game_record(state: State, seed: int, actors: list[int], actions: list[str]) -> GameRecord:
    """The finished game's record as the referee writes it, checked: read back byte for
    byte, replayed through the rules to the same result."""
    plies = [Ply(turn, action, actor == CHANCE) for turn, action, actor in zip(turn_numbers(actors), actions, actors,
                                                                              strict=True)]
    result = state.result()
    setup = GameSetup(state.game, dict(state.options), (TimeControl(),) * state.num_seats, seed)
    names = [f"random-{s}" for s in range(state.num_seats)]
    tags = game_tags(setup, names, result.ranks, result.scores, Termination.NORMAL, "", len(plies))
    record = GameRecord(tags=tags, plies=plies)
    text = write_all([record])
    again = read_text(text)
    assert len(again) == 1 and write_all(again) == text, "a record reads back byte for byte"
    assert verify(again[0]) == []
    return again[0]



def settings_of(game_id: str) -> list[Setting]:
    """Every seat count with every combination of the values the options list (options
    with free values keep their defaults), then the settings the game's hooks add."""
    game = games.get(game_id)
    found: list[Setting] = []
    listed = [o for o in game.options if o.choices]
    for values in itertools.product(*(o.choices for o in listed)):
        options = {o.name: v for o, v in zip(listed, values, strict=True)}
        for seats in range(game.min_seats, game.max_seats + 1):
            try:
                game.check_seats(seats, game.resolve_options(options))
            except ValueError:
                continue  # a variant with its own seat counts (Blox's bridge: 2)
            found.append((seats, options))
    found.extend(hooks_for(game_id).settings)
    return found


def check_any_string(states: list[State], elsewhere: list[str], examples: settings = STRINGS) -> None:
    """Strings near the actions of `states` and real actions of other games
    (`elsewhere`), at those positions: each a legal or an illegal action."""
    nearby = listed_actions(states)

    @examples
    @given(st.data())
    def run(data: st.DataObject) -> None:
        state = data.draw(st.sampled_from(states))
        action = data.draw(hostile_strings(state.legal_actions() + nearby, elsewhere))
        check_verdict(state, action)

    run()


def check_hostile_numbers(states: list[State]) -> None:
    """Exhaustively, not by chance: at 8 or so positions, the first and last two listed
    actions and a spread of the game's other actions, each number swapped for each
    hostile number and each digit for each unicode digit."""
    spread = listed_actions(states)[::80]
    for state in states[::max(1, len(states) // 8)]:
        before = snapshot(state)
        legal = state.legal_actions()
        for text in sorted(renumbered_strings(legal[:2] + legal[-2:] + spread)):
            check_verdict(state, text, before)


def check_option_values(game: Game, examples: settings = STRINGS) -> None:
    """Any option names and values with any seat count: a game or a GameError."""
    names = [o.name for o in game.options if o.name != "map"] or ["nothing"]
    values = st.text(max_size=12) | st.sampled_from(HUGE + DIGITS + EDGES + ["wedge", "rect", "bridge", "3", "16"])

    @settings(examples, max_examples=150)
    @given(st.dictionaries(st.sampled_from(names) | st.text(max_size=6), values, max_size=3), st.integers(-3, 9))
    def run(options: dict[str, str], seats: int) -> None:
        try:
            state = game.new_state(seats, options)
        except GameError:
            return
        assert state.num_seats == seats

    run()
