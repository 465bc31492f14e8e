"""The search (arena/rl/search.py) and the shipped `mcts` bot: it finds a win on
OpenSpiel's own tic-tac-toe, plays whole actions in every game (paths of several ids
included), plays sandboxed through the referee, and says how to install the rl extra
when OpenSpiel is missing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

from arena import games  # noqa: E402
from arena.games import CHANCE  # noqa: E402
from arena.process.botnames import BotNameError, resolve_bot  # noqa: E402
from arena.rl import openspiel  # noqa: E402
from arena.rl.search import Searcher, principal  # noqa: E402
from tests.helpers.cli import run_cli  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_the_search_takes_a_win_in_one_at_tic_tac_toe() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for cell in (0, 3, 1, 4):  # x: 0 1, o: 3 4; x to move wins at 2
        state.apply_action(cell)
    result = Searcher(game, seed=1).search(state, 0.3)
    assert result.action == 2 and result.simulations > 50


def test_the_search_blocks_a_loss_at_tic_tac_toe() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for cell in (4, 0, 8, 6):  # o threatens 0-3-6 ... x must take 3
        state.apply_action(cell)
    assert Searcher(game, seed=2).search(state, 0.5).action == 3


def random_position(game_id: str, seats: int, plies: int, seed: int, **options: str) -> openspiel.ArenaState:
    game = openspiel.load(game_id, players=seats, **options)
    arena = games.get(game_id).new_state(seats, options)
    rng = random.Random(seed)
    for _ in range(plies):
        if arena.current() == CHANCE:
            arena.apply(arena.sample_chance(rng))
        elif arena.current() >= 0:
            arena.apply(rng.choice(arena.legal_actions()))
    while arena.current() == CHANCE:
        arena.apply(arena.sample_chance(rng))
    return openspiel.ArenaState(game, game.bridge.wrap(arena))


@pytest.mark.parametrize("game_id,seats,plies,options", [
    ("btt", 3, 10, {}), ("treeblox", 2, 6, {}), ("the-tree", 3, 4, {}), ("roots", 2, 12, {"radius": "3"}),
    ("blox", 2, 6, {"width": "8", "height": "8"}),
])
def test_the_search_plays_a_whole_legal_action_in_every_game(game_id: str, seats: int, plies: int,
                                                              options: dict[str, str]) -> None:
    state = random_position(game_id, seats, plies, seed=3, **options)
    legal = state.position.state.legal_actions()
    searcher = Searcher(state.get_game(), seed=4)
    result = searcher.search(state, 0.2)
    ids, action = principal(result, state.clone(), random.Random(5))
    assert action in legal and ids[0] in state.legal_actions()


def test_a_reroll_is_played_as_its_steps() -> None:
    """Roots, with the search's tree steering into a reroll: the principal line walks
    its steps to a whole reroll action."""
    state = random_position("roots", 2, 2, seed=1, radius="3")
    codec = state.position.codec
    first = next(i for i in state.legal_actions() if codec.names[i].startswith("reroll pick"))
    searcher = Searcher(state.get_game(), seed=1)
    result = searcher.search(state, 0.2)
    forced = result.root.children.setdefault(first, type(result.root)(totals=[0.0, 0.0]))
    forced.visits = 10**6
    ids, action = principal(result, state.clone(), random.Random(2))
    assert action.startswith("reroll ") and len(ids) >= 2 and ids[0] == first
    assert action in state.position.state.legal_actions()


def test_mcts_plays_sandboxed_through_the_referee(tmp_path: Path) -> None:
    from arena.records.files import read_record_file

    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "mcts", "random", "--games", "2", "--time-per-move", "200ms",
                     "--time-basis", "cpu", "--seed", "3", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    assert len(records) == 2
    assert all(r.tags["Termination"] == "normal" for r in records), [r.tags for r in records]


def test_mcts_without_the_extra_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspiel" else real(name, *a))
    with pytest.raises(BotNameError, match=r"pip install 'arena\[rl\]'"):
        resolve_bot("mcts", "btt")
    # The script itself, where pyspiel does not import:
    (tmp_path / "pyspiel.py").write_text("raise ImportError('no OpenSpiel here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, str(ROOT / "bots" / "mcts.py")], input="", capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert "pip install 'arena[rl]'" in done.stderr and "Traceback" not in done.stderr
