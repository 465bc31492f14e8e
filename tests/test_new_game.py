"""A game is registered once: a tiny game made here (Nim with options, and a variant
with a chance outcome) and registered with one line gets, with no other edit, the
game contract, an RL codec, OpenSpiel's random_sim_test, a PettingZoo environment, a
replay page, `arena bench` figures and `arena check` for a bot playing it.

The games live in this file only: arena/rl, arena/render and the tests' hooks have no
entry for them, so each of these is found through the registry and the game's own
attributes (arena/games/base.py), or is the default every game gets."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest

from arena import games
from arena.games import CHANCE, GAMES, TERMINAL, Game, IllegalAction, Option, Result, State
from arena.games.numbers import canonical_int
from tests.helpers.cli import run_cli
from tests.helpers.contract import (
    check_any_string,
    check_hostile_numbers,
    check_option_values,
    play_and_check,
    settings_of,
)
from tests.helpers.game_hooks import hooks_for
from tests.helpers.games import random_game_record
from tests.helpers.hostile_actions import listed_actions, positions

HEAPS = {"small": (1, 2, 3), "large": (3, 4, 5)}


class NimState(State):
    """Heaps of stones; a seat takes 1 to `take` stones from one heap (`H,C`: C stones
    from heap H); who takes the last stone wins. The chance variant first adds a stone
    to one heap, heap k with a weight of k + 1."""

    game_id: ClassVar[str] = "tiny-nim"
    copied = {"heaps": list.copy}

    def __init__(self, num_seats: int, options: Mapping[str, str], chance: bool = False) -> None:
        super().__init__(num_seats, options)
        self.heaps = list(HEAPS[options["heaps"]])
        self.take = int(options["take"])
        self.moves = 0
        self.winner = -1
        self.dealt = not chance

    def current(self) -> int:
        if not self.dealt:
            return CHANCE
        if sum(self.heaps) == 0:
            return TERMINAL
        return self.moves % self.num_seats

    def legal_actions(self) -> list[str]:
        if self.current() < 0:
            return []
        return sorted(f"{h},{c}" for h, size in enumerate(self.heaps) for c in range(1, min(size, self.take) + 1))

    def apply(self, action: str) -> None:
        if not self.dealt:
            if action not in dict(self.chance_outcomes()):
                raise IllegalAction(action, "not a chance outcome")
            self.heaps[int(action[1:])] += 1
            self.dealt = True
            return
        if not self.is_legal(action):
            raise IllegalAction(action)
        heap, count = (canonical_int(part, 0, 99) for part in action.split(","))
        assert heap is not None and count is not None
        self.heaps[heap] -= count
        if sum(self.heaps) == 0:
            self.winner = self.moves % self.num_seats
        self.moves += 1

    def result(self) -> Result:
        return Result(tuple(1 if seat == self.winner else 2 for seat in range(self.num_seats)),
                      tuple(1.0 if seat == self.winner else 0.0 for seat in range(self.num_seats)))

    def observation(self, seat: int) -> dict[str, Any]:
        current = self.current()
        return {"seat": seat, "heaps": list(self.heaps), "to_move": current if current >= 0 else None,
                "rule": f"take 1 to {self.take}"}

    def chance_outcomes(self) -> list[tuple[str, float]]:
        weights = range(1, len(self.heaps) + 1)
        return [(f"+{k}", w / sum(weights)) for k, w in enumerate(weights)]

    def sample_chance(self, rng: random.Random) -> str:
        names, weights = zip(*self.chance_outcomes(), strict=True)
        return str(rng.choices(names, weights)[0])


class TinyNim(Game):
    id = "tiny-nim"
    name = "Tiny Nim"
    min_seats = 2
    max_seats = 3
    options = (Option("heaps", "small", "small: heaps of 1, 2, 3 stones; large: 3, 4, 5", ("small", "large")),
               Option("take", "2", "the most stones taken at once", ("2", "3")))
    quick_options = {"heaps": "small"}
    midgame_ply = 2

    def _initial_state(self, seats: int, options: dict[str, str]) -> State:
        return NimState(seats, options)

    def action_space(self, seats: int, options: Mapping[str, str]) -> tuple[str, ...]:
        most = max(HEAPS[options["heaps"]]) + 1
        return tuple(f"{h},{c}" for h in range(3) for c in range(1, min(most, int(options["take"])) + 1))


class DiceNimState(NimState):
    game_id: ClassVar[str] = "dice-nim"


class DiceNim(TinyNim):
    id = "dice-nim"
    name = "Dice Nim"
    has_chance = True

    def _initial_state(self, seats: int, options: dict[str, str]) -> State:
        return DiceNimState(seats, options, chance=True)

    def chance_space(self, seats: int, options: Mapping[str, str]) -> tuple[str, ...]:
        return ("+0", "+1", "+2")


NEW_GAMES = (TinyNim(), DiceNim())


@pytest.fixture(params=[game.id for game in NEW_GAMES])
def new_game(request: pytest.FixtureRequest) -> Iterator[str]:
    """One of the games, registered with one line and removed afterwards."""
    game = next(g for g in NEW_GAMES if g.id == request.param)
    assert game.id not in GAMES
    GAMES[game.id] = game  # the one line
    try:
        yield game.id
    finally:
        del GAMES[game.id]
    assert game.id not in GAMES


def test_the_game_is_registered_by_one_line_and_removed_again(new_game: str) -> None:
    assert games.get(new_game) is GAMES[new_game] and list(GAMES)[-1] == new_game
    assert games.get(new_game).new_state(2).game is GAMES[new_game]
    with pytest.raises(ValueError, match="registered as"):
        GAMES["another-id"] = GAMES[new_game]


def test_the_game_contract_holds(new_game: str) -> None:
    settings = settings_of(new_game)
    assert {seats for seats, _ in settings} == {2, 3} and len(settings) == 8  # 2 seat counts x 2 x 2 options
    hooks = hooks_for(new_game)
    for seats, options in settings:
        for seed in range(hooks.games):
            play_and_check(new_game, seats, options, seed, thorough=seed < hooks.thorough)
    states = positions(new_game, settings)
    check_any_string(states, listed_actions(states))
    check_hostile_numbers(states)
    check_option_values(games.get(new_game))


def test_the_contract_catches_a_broken_game() -> None:
    """The contract can fail: a state that shares its heaps with its clones is caught."""

    class LeakyState(NimState):
        copied = {}

    class Leaky(TinyNim):
        def _initial_state(self, seats: int, options: dict[str, str]) -> State:
            return LeakyState(seats, options)

    GAMES["tiny-nim"] = Leaky()
    try:
        with pytest.raises(AssertionError, match="heaps"):
            for seed in range(hooks_for("tiny-nim").thorough):
                play_and_check("tiny-nim", 2, {}, seed, thorough=True)
    finally:
        del GAMES["tiny-nim"]


def test_the_generic_codec_numbers_the_actions_and_reads_the_observation(new_game: str) -> None:
    from arena.rl import codec
    from arena.rl.bridge import Bridge

    c = codec(new_game, 3, {"heaps": "large", "take": "3"})
    assert c.names == [f"{h},{n}" for h in range(3) for n in range(1, 4)]
    assert [name for name, _ in c.pieces.pieces] == ["heaps", "seat", "to_move"]  # text (`rule`) left out
    bridge = Bridge(new_game, 3, {"heaps": "large", "take": "3"})
    rng = random.Random(4)
    for _ in range(20):
        position = bridge.new_position()
        while not position.is_terminal():
            if position.current() == CHANCE:
                outcomes = position.outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0) and len(outcomes) == 3
                position.sample_chance(rng)
                continue
            legal = position.state.legal_actions()
            assert [c.names[i] for i in position.legal()] == legal
            seat = position.current()
            vector = position.tensor(seat)
            heaps = position.state.observation(seat)["heaps"]
            assert vector.tolist() == [*heaps, seat, seat]
            position.apply(rng.choice(position.legal()))
        assert position.tensor(0).tolist()[-1] == -1.0  # nobody to move: null
        assert sorted(position.utilities()) == [-0.5, -0.5, 1.0]  # the winner beat two


def test_openspiel_random_sim_test_passes(new_game: str) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")
    from arena.rl import openspiel

    for game in (openspiel.load(new_game, players=3, heaps="large", take=3),
                 pyspiel.load_game(f"arena_{new_game.replace('-', '_')}(players=2)")):
        pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    kinds = pyspiel.GameType
    chance = kinds.ChanceMode.EXPLICIT_STOCHASTIC if GAMES[new_game].has_chance else kinds.ChanceMode.DETERMINISTIC
    assert openspiel.load(new_game).get_type().chance_mode == chance
    assert openspiel.load(new_game, players=2).num_distinct_actions() == 6


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_test_passes(new_game: str) -> None:
    pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")
    from pettingzoo.test import api_test

    from arena.rl.pettingzoo import env

    api_test(env(new_game, players=3), num_cycles=60)


def test_a_replay_page_draws_every_ply(new_game: str) -> None:
    from arena.render import text_state
    from arena.web.frames import record_film
    from arena.web.replay import replay_page

    record = random_game_record(new_game, 2, 3, {"heaps": "large"})
    film = record_film(record)
    assert len(film.frames) == len(record.plies) + 1
    last = "\n".join(film.chunks[k] for k in film.frames[-1].parts)
    winner = record.players[record.tags["Ranks"].split(",").index("1")]
    assert f"last: {winner}: {record.plies[-1].action}" in last, last  # who took the last stone
    assert "heaps: [0,0,0]" in last and "result: 1st random-" in last  # who came where
    assert "heaps: [3,4,5]" in "\n".join(film.chunks[k] for k in film.frames[0].parts)
    page = replay_page(record)
    assert f"{GAMES[new_game].name}: random-0 v random-1" in page
    assert json.loads(text_state(new_game, GAMES[new_game].new_state(2)))["heaps"] == [1, 2, 3]


def test_bench_figures(new_game: str) -> None:
    from arena.bench.games import engine_figures, midgame_state

    figures = engine_figures(GAMES[new_game], budget_s=0.02)
    assert figures.games_per_s > 0 and figures.legal_count > 0
    found = midgame_state(GAMES[new_game], 2, 1)
    assert found is not None and isinstance(found[0], NimState)
    assert found[0].moves == 1  # the second placement is the game's midgame_ply


def test_arena_check_passes_a_random_bot_and_fails_an_illegal_one() -> None:
    """`arena check` on the registered game through the command itself (in this
    process, where the game is registered): the random bot passes, a bot sending an
    illegal action fails `legal-actions`."""
    GAMES["tiny-nim"] = NEW_GAMES[0]
    try:
        relaxed = ["--quick", "--time-per-move", "2s", "--startup-time", "60s", "--json"]
        result = run_cli("check", "random", "--game", "tiny-nim", *relaxed)
        report = json.loads(result.stdout[result.stdout.index("{"):])
        assert result.exit_code == 0 and report["passed"] is True, result.output
        assert report["games"] == ["tiny-nim, 2 seat(s), seat 0"]
        result = run_cli("check", "zoo/illegal", "--game", "tiny-nim", *relaxed)
        report = json.loads(result.stdout[result.stdout.index("{"):])
        failed = [c["name"] for c in report["checks"] if not c["passed"]]
        assert result.exit_code == 1 and failed == ["legal-actions"], result.output
    finally:
        del GAMES["tiny-nim"]
