"""One RL-bridge loop measured with whatever arena the running interpreter has
installed, printed as one JSON object: what `arena bench --only rl` runs for this tree
and, with --compare REV, for a revision built in its own virtual environment.

Run as a script (`python -I rl_driver.py JOB`) or imported (this tree's figures without
--compare): it imports nothing of the arena at load time and uses only the public API
every revision with the RL bridges has (`arena.rl.pettingzoo.env`, `arena.rl.openspiel.load`,
the environments' and states' own methods), so both sides run the same loop.

JOB is a JSON object {"loop": L, "game": ID, "players": N, "options": {...}, "seconds": S,
"decisions": D, "seed": K}: seeded uniformly random play, games one after another, until
S seconds or D decisions (whichever first; at least one decision). L is one of
  pettingzoo          env.last() before every step (the observation and its mask; the
                      random agent reads the 0/1 int8 mask as booleans, where numpy finds
                      the ones ~8x faster, so that the loop measures the environment
                      rather than the agent: 130 us a decision for The Tree's 42,690 ids);
  openspiel           state.observation_tensor(player) before every decision;
  openspiel-bare      no observation (the game and its legal ids alone);
  connect_four        PettingZoo's connect_four_v3, as `pettingzoo`;
  tic_tac_toe         pyspiel's tic_tac_toe, as `openspiel`.
It prints decisions, wall_s (the loop), cpu_s (the loop's processor time in this
process: on a machine others load too, the figure that moves least) and observe_s (the
time inside the observation calls alone).
"""

from __future__ import annotations

import importlib
import json
import random
import sys
import time
import types
import warnings
from typing import Any


def _stand_in_for_pygame() -> None:
    """connect_four_v3 imports pygame for its pictures alone: an empty module stands in
    where pygame is not installed (the loop never renders)."""
    try:
        importlib.import_module("pygame")
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")


def _pettingzoo_env(job: dict[str, Any]) -> Any:
    if job["loop"] == "connect_four":
        _stand_in_for_pygame()
        with warnings.catch_warnings():  # its module name's version suffix is "deprecated"
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env()
    from arena.rl.pettingzoo import env

    return env(job["game"], job.get("players"), **job.get("options", {}))


def _pettingzoo(job: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    environment = _pettingzoo_env(job)
    rng = random.Random(job.get("seed", 1))
    decisions, observe, seed = 0, 0.0, int(job.get("seed", 1))
    seconds, limit = float(job["seconds"]), int(job["decisions"])
    begin, cpu = time.perf_counter(), time.process_time()
    while decisions < limit and (time.perf_counter() - begin < seconds or not decisions):
        environment.reset(seed=seed)
        seed += 1
        for _agent in environment.agent_iter():
            start = time.perf_counter()
            observation, _reward, terminated, truncated, _info = environment.last()
            observe += time.perf_counter() - start
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"].view(np.bool_)))))
            decisions += 1
            if decisions >= limit:
                break
    return {"decisions": decisions, "wall_s": time.perf_counter() - begin, "cpu_s": time.process_time() - cpu,
            "observe_s": observe}


def _openspiel_game(job: dict[str, Any]) -> Any:
    if job["loop"] == "tic_tac_toe":
        import pyspiel

        return pyspiel.load_game("tic_tac_toe")
    from arena.rl import openspiel

    return openspiel.load(job["game"], job.get("players"), **job.get("options", {}))


def _openspiel(job: dict[str, Any]) -> dict[str, Any]:
    game = _openspiel_game(job)
    observing = job["loop"] != "openspiel-bare"
    rng = random.Random(job.get("seed", 1))
    decisions, observe = 0, 0.0
    seconds, limit = float(job["seconds"]), int(job["decisions"])
    begin, cpu = time.perf_counter(), time.process_time()
    while decisions < limit and (time.perf_counter() - begin < seconds or not decisions):
        state = game.new_initial_state()
        while not state.is_terminal() and decisions < limit:
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes())  # Roots rolls 6 dice: 8,008 outcomes
                state.apply_action(rng.choices(outcomes, chances)[0])
                continue
            if observing:
                start = time.perf_counter()
                state.observation_tensor(state.current_player())
                observe += time.perf_counter() - start
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return {"decisions": decisions, "wall_s": time.perf_counter() - begin, "cpu_s": time.process_time() - cpu,
            "observe_s": observe}


LOOPS = {"pettingzoo": _pettingzoo, "connect_four": _pettingzoo, "openspiel": _openspiel,
         "openspiel-bare": _openspiel, "tic_tac_toe": _openspiel}


def measure(job: dict[str, Any]) -> dict[str, Any]:
    """Run one loop of JOB (see the module) and return its figures."""
    loop = LOOPS.get(job["loop"])
    if loop is None:
        raise SystemExit(f"unknown loop {job['loop']!r}: one of {', '.join(LOOPS)}")
    return loop(job)


def main(argv: list[str]) -> int:
    result = measure(json.loads(argv[1]))
    result["python"] = sys.version.split()[0]
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
