"""One contract for every game, as OpenSpiel runs one random-simulation test on every
game: seeded random games with every seat count and every listed option value, checked
at every decision against the State interface (arena/games/base.py), then written as a
record and replayed through the rules."""

from __future__ import annotations

import functools
import itertools
import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import GAMES, get_game
from arena.games.base import CHANCE, TERMINAL, Game, GameError, State, competition_ranks
from arena.records.record import GameRecord, Ply, format_ranks, format_scores, turn_numbers
from arena.records.replay import verify
from arena.records.writer import write_record
from tests.helpers.hostile_actions import (
    DIGITS,
    EDGES,
    HUGE,
    check_verdict,
    hostile_strings,
    listed_actions,
    positions,
    renumbered_strings,
    snapshot,
)

MAX_PLIES = 5000
"""No game of the arena comes near it: BTT has at most 15 pyramids a seat, Roots 12
rounds, The Tree 36 tiles, Blox its bricks and turn cap, Treeblox its cubes."""


def game_settings() -> Iterator[tuple[str, int, dict[str, str]]]:
    """(game, seats, options) for every seat count and every combination of the values
    the options list (options with free values keep their defaults)."""
    for game_id in GAMES:
        game = get_game(game_id)
        listed = [o for o in game.options if o.choices]
        for values in itertools.product(*(o.choices for o in listed)):
            options = {o.name: v for o, v in zip(listed, values, strict=True)}
            for seats in range(game.min_seats, game.max_seats + 1):
                try:
                    game.check_seats(seats, game.resolve_options(options))
                except ValueError:
                    continue  # a variant with its own seat counts (Blox's bridge: 2)
                yield game_id, seats, options


SETTINGS = list(game_settings())
GAMES_PER_SETTING = {"blox": 2, "btt": 12, "roots": 12, "the-tree": 25, "treeblox": 25}
"""Random games per setting in the default suite (Blox's 16 x 16 games are long);
the slow suite plays 20 times as many."""


def near_misses(action: str) -> list[str]:
    """Strings one slip away from a legal action."""
    misses = [action + " ", " " + action, action.upper(), action.lower(), action + action[-1:], action[:-1],
              action + "0", "0" + action, action.replace(",", ", ")]
    if len(action) > 1:
        misses.append(action[1:])
        misses.append(action[0] + chr(ord(action[1]) + 1) + action[2:])
    return [m for m in misses if m != action]


def check_decision(state: State, rng: random.Random) -> None:
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
    hidden = state_game(state).has_hidden_information
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
    """A clone and its original go their own ways."""
    before = snapshot(state)
    twin = state.clone()
    assert snapshot(twin) == before
    twin.apply(rng.choice(twin.legal_actions()) if twin.current() >= 0 else twin.sample_chance(rng))
    assert snapshot(state) == before, "playing on a clone changed the original"
    twin_view = snapshot(twin)
    other = state.clone()
    other.apply(rng.choice(other.legal_actions()) if other.current() >= 0 else other.sample_chance(rng))
    assert snapshot(twin) == twin_view, "playing on the original's copy changed another clone"


def check_hidden(state: State) -> None:
    """The Tree: a seat's observation holds its own hand and nothing of the others' hands
    or the supply's order, so shuffling those leaves every other seat's view unchanged."""
    from arena.games.the_tree import TheTreeState

    assert isinstance(state, TheTreeState)
    if not state.dealt:
        return
    for seat in range(state.num_seats):
        view = json.dumps(state.observation(seat), sort_keys=True)
        hidden = [tile for other, hand in enumerate(state.hands) if other != seat for tile in hand] + state.supply
        shuffled = state.clone()
        assert isinstance(shuffled, TheTreeState)
        tiles = list(hidden)
        random.Random(len(tiles)).shuffle(tiles)
        for other in range(state.num_seats):
            if other != seat:
                size = len(shuffled.hands[other])
                shuffled.hands[other], tiles = list(tiles[:size]), tiles[size:]
        shuffled.supply = tiles
        assert json.dumps(shuffled.observation(seat), sort_keys=True) == view
        assert sorted(state.observation(seat)["hand"]) == sorted(
            json.loads(view)["hand"]), "a seat sees its own hand"


def state_game(state: State) -> Game:
    return get_game(STATE_GAMES[type(state).__name__])


STATE_GAMES = {"TreebloxState": "treeblox", "TheTreeState": "the-tree", "RootsState": "roots",
               "BloxState": "blox", "BTTState": "btt"}


def check_chance_visibility(state: State, outcome: str) -> None:
    """What each seat learns of a chance outcome: all of it in a perfect-information
    game; in The Tree, its own hand from the deal and nothing of the others'."""
    game = state_game(state)
    for seat in range(state.num_seats):
        seen = state.visible_action(outcome, CHANCE, seat)
        if not game.has_hidden_information:
            assert seen == outcome
        elif seen is not None and outcome.startswith("deal "):
            from arena.games.the_tree_tiles import HAND

            dealt = outcome.removeprefix("deal ").split(",")
            assert seen.removeprefix("deal ").split(",") == dealt[seat * HAND:(seat + 1) * HAND]


def play_and_check(game_id: str, seats: int, options: dict[str, str], seed: int) -> None:
    rng = random.Random(seed)
    state = get_game(game_id).new_state(seats, options)
    actors: list[int] = []
    actions: list[str] = []
    while state.current() != TERMINAL:
        assert len(actions) < MAX_PLIES, "the game must end"
        actor = state.current()
        if actor == CHANCE:
            action = state.sample_chance(rng)
            check_chance_visibility(state, action)
        else:
            check_decision(state, rng)
            action = rng.choice(state.legal_actions())
        if rng.random() < 0.15:
            check_clone(state, rng)
        if state_game(state).has_hidden_information and rng.random() < 0.2:
            check_hidden(state)
        state.apply(action)
        actors.append(actor)
        actions.append(action)
    result = state.result()
    assert len(result.ranks) == len(result.scores) == seats
    if seats == 1:
        assert result.ranks in ((1,), (2,)), "solo: 1 for a win, 2 for a loss (docs/games/the-tree.md)"
    else:
        assert result.ranks == competition_ranks([-r for r in result.ranks]), "ranks are a competition ranking"
    assert state.legal_actions() == []
    plies = [Ply(turn=turn, action=action, chance=actor == CHANCE)
             for turn, action, actor in zip(turn_numbers(actors), actions, actors, strict=True)]
    tags = {"Game": game_id, "Seats": str(seats), "Options": ",".join(f"{k}={v}" for k, v in
                                                                      get_game(game_id).resolve_options(options).items()),
            "Ranks": format_ranks(result.ranks), "Scores": format_scores(result.scores), "Termination": "normal",
            "Plies": str(len(plies))}
    record = GameRecord(tags=tags, plies=plies)
    write_record(record)
    assert verify(record) == []


def setting_id(setting: tuple[str, int, dict[str, str]]) -> str:
    game_id, seats, options = setting
    return "-".join([game_id, f"{seats}p", *options.values()])


@pytest.mark.parametrize("setting", SETTINGS, ids=setting_id)
def test_random_games_keep_the_game_interface_contract(setting: tuple[str, int, dict[str, str]]) -> None:
    game_id, seats, options = setting
    for seed in range(GAMES_PER_SETTING[game_id]):
        play_and_check(game_id, seats, options, seed)


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS, ids=setting_id)
def test_thousands_of_random_games_keep_the_contract(setting: tuple[str, int, dict[str, str]]) -> None:
    game_id, seats, options = setting
    for seed in range(1000, 1000 + 20 * GAMES_PER_SETTING[game_id]):
        play_and_check(game_id, seats, options, seed)


def test_every_game_and_seat_count_is_covered() -> None:
    covered = {(game_id, seats) for game_id, seats, _ in SETTINGS}
    for game_id in GAMES:
        game = get_game(game_id)
        assert {(game_id, s) for s in range(game.min_seats, game.max_seats + 1)} <= covered


def test_importing_the_registry_loads_no_game_and_a_game_loads_alone() -> None:
    import subprocess
    import sys

    probe = ("import sys, arena.games as g; before = sorted(m for m in sys.modules if m.startswith('arena.games.')); "
             "g.get_game('btt'); after = sorted(m for m in sys.modules if m.startswith('arena.games.')); "
             "print(before, after)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    before, after = out.strip().split("] [")
    assert before == "['arena.games.base'"
    assert "arena.games.btt" in after and "roots" not in after and "tree" not in after and "blox" not in after


# ---- any string is a legal or an illegal action ----------------------------------------------


@functools.cache
def game_positions(game_id: str) -> list[State]:
    return positions(game_id, [(seats, options) for g, seats, options in SETTINGS if g == game_id])


@functools.cache
def every_listed_action() -> list[str]:
    """Real actions of every game, so each game also meets the others' notation."""
    return sorted({a for game_id in GAMES for a in listed_actions(game_positions(game_id))})


STRINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])


def fuzz_game(game_id: str, examples: settings) -> None:
    states = game_positions(game_id)
    nearby = listed_actions(states)
    elsewhere = every_listed_action()

    @examples
    @given(st.data())
    def run(data: st.DataObject) -> None:
        state = data.draw(st.sampled_from(states))
        action = data.draw(hostile_strings(state.legal_actions() + nearby, elsewhere))
        check_verdict(state, action)

    run()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_any_string_is_a_legal_or_an_illegal_action(game_id: str) -> None:
    fuzz_game(game_id, STRINGS)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", list(GAMES))
def test_ten_thousand_strings_per_game_get_a_clean_verdict(game_id: str) -> None:
    fuzz_game(game_id, settings(STRINGS, max_examples=10_000))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_hostile_number_in_real_actions_gets_a_clean_verdict(game_id: str) -> None:
    """Exhaustively, not by chance: at 16 or so positions, the first and last two listed
    actions and a spread of the game's other actions, each number swapped for each
    hostile number and each digit for each unicode digit."""
    states = game_positions(game_id)
    spread = listed_actions(states)[::60]
    for state in states[::max(1, len(states) // 16)]:
        before = snapshot(state)
        legal = state.legal_actions()
        for text in sorted(renumbered_strings(legal[:2] + legal[-2:] + spread)):
            check_verdict(state, text, before)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_any_option_value_is_accepted_or_a_game_error(game_id: str) -> None:
    game = get_game(game_id)
    names = [o.name for o in game.options if o.name != "map"] or ["nothing"]
    values = st.text(max_size=12) | st.sampled_from(HUGE + DIGITS + EDGES + ["wedge", "rect", "bridge", "3", "16"])

    @settings(STRINGS, max_examples=150)
    @given(st.dictionaries(st.sampled_from(names) | st.text(max_size=6), values, max_size=3), st.integers(-3, 9))
    def run(options: dict[str, str], seats: int) -> None:
        try:
            state = game.new_state(seats, options)
        except GameError:
            return
        assert state.num_seats == seats

    run()


def test_a_roots_map_option_that_is_not_a_map_is_a_game_error() -> None:
    """Every way a map file can be wrong is a GameError: a missing file, a folder, a
    NUL in the name, a JSON number past int()'s digit limit, region names with huge
    or unicode numbers."""
    game = get_game("roots")
    with tempfile.TemporaryDirectory() as folder:
        files = {"huge.json": '{"sides": {"0,0": [' + "9" * 5000 + ", null, null, null, null, null]}}",
                 "names.json": json.dumps({"sides": {"9" * 5000 + ",0": [None] * 6}}),
                 "big.json": json.dumps({"sides": {"9" * 400 + ",0": [None] * 6}}),
                 "digits.json": json.dumps({"sides": {"²,0": [None] * 6}})}
        for name, text in files.items():
            (Path(folder) / name).write_text(text)
        for path in ["\x00", "a\x00b", folder, str(Path(folder) / "missing.json"), "9" * 5000,
                     *(str(Path(folder) / name) for name in files)]:
            with pytest.raises(GameError):
                game.new_state(2, {"map": path})


HOSTILE_FIRST_ACTIONS = {
    "treeblox": "L" + "9" * 5000 + ",0,0",
    "the-tree": "²0@0,0",
    "roots": "plant " + "9" * 5000,
    "blox": "H" + "9" * 5000 + ",0,0",
    "btt": "N" + "٣" * 3,
}
"""A string per game of the kinds that raised ValueError in the rules' parsing (the
first two did): a number past int()'s 4300 digits, a digit int() refuses."""


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_bot_sending_a_hostile_action_loses_by_illegal_action_and_the_game_is_not_void(game_id: str) -> None:
    """Through the real referee: the attacker's game is scored, the attacker last."""
    import trio

    from arena.referee.botnames import resolve_bot
    from arena.referee.match import MatchConfig, play_match
    from arena.referee.timecontrol import TimeControl
    from arena.termination import Termination

    attacker = resolve_bot("zoo/illegal", game_id)
    attacker.env.update({"ZOO_PLY": "1", "ZOO_ACTION": HOSTILE_FIRST_ACTIONS[game_id]})
    options = {"width": "8", "height": "8"} if game_id == "blox" else {}
    config = MatchConfig(get_game(game_id), options, TimeControl(per_move_s=5.0), seed=1, games=1)
    result = trio.run(play_match, config, [attacker, resolve_bot("random", game_id)])
    outcome = result.outcomes[0]
    assert not outcome.void and outcome.termination == Termination.ILLEGAL_ACTION, outcome.error
    attacker_seat = result.seatings[0].index(0)
    assert outcome.ranks[attacker_seat] == 2 and outcome.faults[0].seat == attacker_seat
