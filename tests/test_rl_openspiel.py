"""The five games pass OpenSpiel's own test: pyspiel.random_sim_test, with and without
serialisation, on every game and seat count; their game types say what the rules are;
states clone, serialise and resample as OpenSpiel expects."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

from arena.rl import openspiel  # noqa: E402

NAMES: list[str] = (
    [f"arena_btt(players={n})" for n in range(2, 7)] + ["arena_btt(board=rect,players=5)"]
    + ["arena_treeblox"]
    + [f"arena_the_tree(players={n})" for n in range(1, 5)]
    + ["arena_roots(radius=3)", "arena_roots"]
    + [f"arena_blox(height=8,players={n},width=8)" for n in range(2, 5)] + ["arena_blox"]
)


def sims(name: str) -> int:
    return 1 if "blox" in name or "roots" in name else 3


@pytest.mark.parametrize("name", NAMES)
def test_random_sim_test_passes(name: str) -> None:
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=sims(name), serialize=False, verbose=False)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_random_sim_test_for_many_games(name: str) -> None:
    game = pyspiel.load_game(name)
    many = 20 if "blox" in name or "roots" in name else 200
    pyspiel.random_sim_test(game, num_sims=many, serialize=False, verbose=False)
    pyspiel.random_sim_test(game, num_sims=many // 10, serialize=True, verbose=False)


def test_game_types_follow_the_rules() -> None:
    kinds = pyspiel.GameType
    tree2 = pyspiel.load_game("arena_the_tree(players=2)")
    assert tree2.get_type().information == kinds.Information.IMPERFECT_INFORMATION
    assert tree2.get_type().chance_mode == kinds.ChanceMode.EXPLICIT_STOCHASTIC
    assert tree2.get_type().utility == kinds.Utility.ZERO_SUM
    assert tree2.max_chance_outcomes() == 36
    btt = openspiel.load("btt", players=4)
    assert btt.get_type().information == kinds.Information.PERFECT_INFORMATION
    assert btt.get_type().chance_mode == kinds.ChanceMode.DETERMINISTIC
    assert btt.get_type().utility == kinds.Utility.GENERAL_SUM
    assert (btt.get_type().min_num_players, btt.get_type().max_num_players) == (2, 6)
    assert btt.num_players() == 4 and btt.num_distinct_actions() == 801
    roots = pyspiel.load_game("arena_roots")
    assert roots.get_type().chance_mode == kinds.ChanceMode.EXPLICIT_STOCHASTIC
    assert roots.max_chance_outcomes() == 12_375 and roots.num_distinct_actions() == 13_615
    assert pyspiel.load_game("arena_blox(width=12)").observation_tensor_shape() == [4 * 16 * 32 * 28 + 6]
    solo = pyspiel.load_game("arena_the_tree(players=1)")
    assert (solo.min_utility(), solo.max_utility()) == (-1.0, 1.0)
    with pytest.raises(Exception, match="2 to 6 seats"):
        pyspiel.load_game("arena_btt(players=7)")
    with pytest.raises(Exception, match="no parameter"):
        openspiel.load("btt", colour="red")


def test_a_state_serialises_clones_and_keeps_its_history() -> None:
    game = pyspiel.load_game("arena_roots(radius=3)")
    state = game.new_initial_state()
    rng = random.Random(5)
    while len(state.history()) < 40:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    assert str(again_game) == str(game)
    twin = state.clone()
    assert twin.history() == state.history() and str(twin) == str(state)
    twin.apply_action(twin.legal_actions()[0])
    assert str(twin) != str(state)
    assert pickle.loads(pickle.dumps(game)).num_distinct_actions() == game.num_distinct_actions()


def test_a_game_pickled_here_unpickles_in_a_fresh_process() -> None:
    data = pickle.dumps(openspiel.load("roots", 2))
    code = "import pickle, sys; game = pickle.loads(sys.stdin.buffer.read()); print(game.num_distinct_actions())"
    done = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()[-500:]
    assert int(done.stdout) == openspiel.load("roots", 2).num_distinct_actions()


def test_the_tree_information_states_hold_what_each_seat_saw() -> None:
    game = pyspiel.load_game("arena_the_tree(players=2)")
    state = game.new_initial_state()
    rng = random.Random(8)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    hands = [state.position.state.observation(seat)["hand"] for seat in range(2)]
    for seat in range(2):
        info = state.information_state_string(seat)
        assert info.startswith(f"seat {seat}: deal ")
        assert all(tile in info for tile in hands[seat])
        assert not any(tile in info.split("|")[0] for tile in hands[1 - seat] if tile not in hands[seat])
    seen = state.resample_from_infostate(0, 3)
    assert seen.observation_string(0) == state.observation_string(0)
    assert np.array_equal(seen.observation_tensor(0), state.observation_tensor(0))
    assert seen.observation_string(1) != state.observation_string(1)


def test_observation_tensors_are_the_codec_pieces() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("arena_btt(players=3)")
    observation = make_observation(game)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[3])
    observation.set_from(state, 1)
    assert set(observation.dict) == {"board", "pyramids_left", "scores", "to_move", "phase", "progress"}
    assert observation.dict["board"].shape == (12, 48)
    assert np.array_equal(np.asarray(state.observation_tensor(1)), observation.tensor)
    assert observation.dict["to_move"].tolist() == [1.0, 0.0, 0.0]  # seat 1 is to move: itself
