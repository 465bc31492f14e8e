"""OpenSpiel's Python ISMCTSBot plays The Tree against a uniform random bot: every
simulation starts from `resample_from_infostate`, whose state ISMCTS checks has the
root's information state (arena/rl/infostate.py)."""

from __future__ import annotations

from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

import arena.rl.openspiel  # noqa: E402, F401  (registers the arena_* games)

SIMULATIONS = 20


def ismcts_against_random(games: int, simulations: int = SIMULATIONS, world_samples: int = -1,
                          seeded_worlds: bool = False) -> Counter[str]:
    """ISMCTS's wins, draws and losses against random, seats alternating. ISMCTSBot
    draws each world with a fresh `UniformProbabilitySampler` (seeded by the OS);
    `seeded_worlds` passes seeds from the game's generator instead, so the games repeat."""
    game = pyspiel.load_game("arena_the_tree(players=2)")
    results: Counter[str] = Counter()
    for number in range(games):
        seat = number % 2
        chance = np.random.RandomState(number)
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1000 + number))
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                               max_world_samples=world_samples, random_state=np.random.RandomState(number))
        if seeded_worlds:
            worlds = np.random.RandomState(3000 + number)
            bot.set_resampler(lambda state, player, w=worlds:
                              state.resample_from_infostate(player, int(w.randint(1 << 30))))
        other = uniform_random.UniformRandomBot(1 - seat, np.random.RandomState(2000 + number))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(chance.choice(outcomes, p=odds)))
            elif state.current_player() == seat:
                state.apply_action(int(bot.step(state)))
            else:
                state.apply_action(int(other.step(state)))
        mine = state.returns()[seat]
        results["win" if mine > 0 else "draw" if mine == 0 else "loss"] += 1
    return results


def test_ismcts_plays_the_tree_through_resampled_information_states() -> None:
    assert sum(ismcts_against_random(2, simulations=8).values()) == 2


def test_ismcts_with_a_fixed_set_of_worlds_clones_them() -> None:
    assert sum(ismcts_against_random(1, simulations=8, world_samples=3).values()) == 1


@pytest.mark.slow
def test_ismcts_wins_more_than_random_does_over_20_games() -> None:
    results = ismcts_against_random(20, seeded_worlds=True)
    assert results["win"] > results["loss"], results
