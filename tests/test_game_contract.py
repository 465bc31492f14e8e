"""One contract for every game, as OpenSpiel runs one random-simulation test on every
game: seeded random games with every seat count and every listed option value (and
the settings a game adds), each checked against the State interface (arena/games/
base.py) and the game's own invariants (tests/helpers/game_hooks.py), then written as
a record, read back and replayed through the rules; and any string, at points of real
games, a legal or an illegal action and never an error."""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from arena import games
from arena.games import GAMES, GameError, State
from tests.helpers.contract import (
    STRINGS,
    check_any_string,
    check_hostile_numbers,
    check_option_values,
    play_and_check,
    settings_of,
)
from tests.helpers.game_hooks import hooks_for
from tests.helpers.hostile_actions import listed_actions, positions

Setting = tuple[str, int, dict[str, str]]
"""(game, seats, options)."""


def game_settings() -> Iterator[Setting]:
    """(game, seats, options) for every registered game: every seat count and every
    combination of the values the options list, then the settings each game adds."""
    for game_id in GAMES:
        for seats, options in settings_of(game_id):
            yield game_id, seats, options


SETTINGS = list(game_settings())


def setting_id(setting: Setting) -> str:
    game_id, seats, options = setting
    return "-".join([game_id, f"{seats}p", *options.values()])


@pytest.mark.parametrize("setting", SETTINGS, ids=setting_id)
def test_random_games_keep_the_contract_and_the_games_invariants(setting: Setting) -> None:
    game_id, seats, options = setting
    hooks = hooks_for(game_id)
    for seed in range(hooks.games):
        play_and_check(game_id, seats, options, seed, thorough=seed < hooks.thorough)


@pytest.mark.slow
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("setting", SETTINGS, ids=setting_id)
def test_thousands_of_random_games_keep_the_contract(setting: Setting) -> None:
    game_id, seats, options = setting
    hooks = hooks_for(game_id)
    for seed in range(1000, 1000 + hooks.slow_games):
        play_and_check(game_id, seats, options, seed, thorough=seed < 1000 + 20 * hooks.thorough)


def test_every_game_and_seat_count_is_covered_and_plays_hundreds_of_games() -> None:
    covered = {(game_id, seats) for game_id, seats, _ in SETTINGS}
    for game_id in GAMES:
        game = games.get(game_id)
        assert {(game_id, s) for s in range(game.min_seats, game.max_seats + 1)} <= covered
        settings_of_game = sum(1 for g, _, _ in SETTINGS if g == game_id)
        assert hooks_for(game_id).games * settings_of_game >= (30 if game_id == "blox" else 290), game_id


def test_importing_the_registry_loads_no_game_and_a_game_loads_alone() -> None:
    import subprocess
    import sys

    probe = ("import sys, arena.games as g; before = sorted(m for m in sys.modules if m.startswith('arena.games.')); "
             "g.get('btt'); after = sorted(m for m in sys.modules if m.startswith('arena.games.')); "
             "print(before, after)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    before, after = out.strip().split("] [")
    assert before == "['arena.games.base', 'arena.games.copying'"
    assert "arena.games.btt" in after and "roots" not in after and "tree" not in after and "blox" not in after


def test_a_state_knows_its_game() -> None:
    for game_id in GAMES:
        state = games.get(game_id).new_state(games.get(game_id).min_seats)
        assert state.game is games.get(game_id) and state.clone().game is state.game


# ---- any string is a legal or an illegal action ----------------------------------------------


@functools.cache
def game_positions(game_id: str) -> list[State]:
    return positions(game_id, [(seats, options) for g, seats, options in SETTINGS if g == game_id])


@functools.cache
def every_listed_action() -> list[str]:
    """Real actions of every game, so each game also meets the others' notation."""
    return sorted({a for game_id in GAMES for a in listed_actions(game_positions(game_id))})


def fuzz_game(game_id: str, examples: settings) -> None:
    check_any_string(game_positions(game_id), every_listed_action(), examples)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_any_string_is_a_legal_or_an_illegal_action(game_id: str) -> None:
    fuzz_game(game_id, STRINGS)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", list(GAMES))
def test_ten_thousand_strings_per_game_get_a_clean_verdict(game_id: str) -> None:
    fuzz_game(game_id, settings(STRINGS, max_examples=10_000))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_hostile_number_in_real_actions_gets_a_clean_verdict(game_id: str) -> None:
    """Exhaustively, not by chance (tests/helpers/contract.py)."""
    check_hostile_numbers(game_positions(game_id))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_any_option_value_is_accepted_or_a_game_error(game_id: str) -> None:
    check_option_values(games.get(game_id))


def test_a_roots_map_option_that_is_not_a_map_is_a_game_error() -> None:
    """Every way a map file can be wrong is a GameError: a missing file, a folder, a
    NUL in the name, a JSON number past int()'s digit limit, region names with huge
    or unicode numbers."""
    game = games.get("roots")
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
first two did): a number past int()'s 4300 digits, a digit int() refuses. Another
game gets a number past the limit."""


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_bot_sending_a_hostile_action_loses_by_illegal_action_and_the_game_is_not_void(game_id: str) -> None:
    """Through the real referee: the attacker's game is scored, the attacker last."""
    from arena.process.botnames import resolve_bot
    from arena.termination import Termination
    from arena.timecontrol import TimeControl
    from tests.helpers.botmatch import run_match

    attacker = resolve_bot("zoo/illegal", game_id)
    attacker.env.update({"ZOO_PLY": "1", "ZOO_ACTION": HOSTILE_FIRST_ACTIONS.get(game_id, "9" * 5000)})
    result = run_match(game_id, [attacker, resolve_bot("random", game_id)], TimeControl(per_move_s=5.0),
                       options=dict(games.get(game_id).quick_options), seed=1, games=1)
    outcome = result.outcomes[0]
    assert not outcome.void and outcome.termination == Termination.ILLEGAL_ACTION, outcome.error
    attacker_seat = result.seatings[0].index(0)
    assert outcome.ranks[attacker_seat] == 2 and outcome.faults[0].seat == attacker_seat
