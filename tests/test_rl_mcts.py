"""The search (arena/rl/search.py) and the shipped `mcts` bot: it finds a win on
OpenSpiel's own tic-tac-toe, plays whole actions in every game (paths of several ids
included), repeats its choices exactly under a fixed simulation budget and a seed,
stops early (and says so) when the clock is shorter than the budget, follows each
game's own evaluation where random playouts say nothing (Roots, Blox), plays
sandboxed through the referee, and says how to install the rl extra when OpenSpiel is
missing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

from arena import games  # noqa: E402
from arena.games import CHANCE  # noqa: E402
from arena.process.botnames import BotNameError, resolve_bot  # noqa: E402
from arena.rl import openspiel  # noqa: E402
from arena.rl.search import BudgetError, Searcher, principal  # noqa: E402
from arena.rl.search_eval import guide, terminal_rewards  # noqa: E402
from bots.blox_plan import plan_for  # noqa: E402
from bots.mcts import BUDGET_VARIABLE, game_guide, simulation_budget  # noqa: E402
from bots.mcts import BudgetError as BotBudgetError  # noqa: E402
from tests.helpers.cli import run_cli  # noqa: E402
from tests.helpers.roots import ready, three_in_a_row  # noqa: E402

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


def guided(game_id: str, arena_state: games.State, seed: int) -> tuple[openspiel.ArenaState, Searcher]:
    """An arena position as an OpenSpiel state, and the bot's guided searcher for it."""
    game = openspiel.load(game_id, players=arena_state.num_seats, **dict(arena_state.options))
    return openspiel.ArenaState(game, game.bridge.wrap(arena_state)), Searcher(game, seed=seed,
                                                                               guide=game_guide(game_id))


@pytest.mark.parametrize("game_id,seats,plies,options,budget", [
    ("roots", 2, 12, {"radius": "3"}, 40), ("the-tree", 3, 4, {}, 60), ("btt", 2, 6, {}, 60),
    ("treeblox", 2, 6, {}, 40), ("blox", 2, 6, {"width": "8", "height": "8"}, 6),
])
def test_a_fixed_budget_and_seed_give_the_same_search_every_time(game_id: str, seats: int, plies: int,
                                                                 options: dict[str, str], budget: int) -> None:
    """Chance (Roots' dice) and hidden tiles (The Tree) included: the same seed and
    budget visit the same children the same number of times, whatever the clock."""
    runs = []
    for _ in range(2):
        state = random_position(game_id, seats, plies, seed=3, **options)
        searcher = Searcher(state.get_game(), seed=11, guide=game_guide(game_id))
        result = searcher.search(state, seconds=None, simulations=budget)
        assert result.simulations == budget and not result.stopped_early
        runs.append((result.whole, {a: n.visits for a, n in result.root.children.items()}))
    assert runs[0] == runs[1]
    assert runs[0][0] in state.position.state.legal_actions()


def test_a_budget_the_clock_cannot_pay_stops_early_and_says_so() -> None:
    state = random_position("roots", 2, 12, seed=3, radius="3")
    searcher = Searcher(state.get_game(), seed=1, guide=game_guide("roots"))
    result = searcher.search(state, seconds=0.02, simulations=10**6)
    assert result.stopped_early and result.simulations < 10**6
    assert result.whole in state.position.state.legal_actions()
    plain = Searcher(pyspiel.load_game("tic_tac_toe"), seed=1)
    early = plain.search(pyspiel.load_game("tic_tac_toe").new_initial_state(), seconds=0.0, simulations=10**6)
    assert early.stopped_early and early.simulations <= 1 and early.action in range(9)
    with pytest.raises(BudgetError, match="simulations=N, seconds=S"):
        plain.search(pyspiel.load_game("tic_tac_toe").new_initial_state())


def test_the_id_search_repeats_itself_under_a_budget() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    picks = [Searcher(game, seed=5).search(game.new_initial_state(), simulations=200) for _ in range(2)]
    assert picks[0].action == picks[1].action
    assert [c.visits for c in picks[0].root.children.values()] == [c.visits for c in picks[1].root.children.values()]


@pytest.mark.parametrize("game_id", ["btt", "the-tree"])
def test_the_bot_with_a_budget_and_a_seed_answers_the_same_every_time(game_id: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's own path (tracking the game, or rebuilding The Tree from its
    observation), a minute on the clock and a budget of 40: the same answers twice."""
    from bots.mcts import Player

    monkeypatch.setenv("ARENA_BOT_SEED", "17")
    state = games.get(game_id).new_state(2, {})
    rng = random.Random(4)
    events = []
    for ply in range(1, 5):
        while state.current() == CHANCE:
            state.apply(state.sample_chance(rng))
        action = rng.choice(state.legal_actions())
        state.apply(action)
        events.append({"ply": ply, "action": action})
    while state.current() == CHANCE:
        state.apply(state.sample_chance(rng))
    seat = state.current()
    start = {"type": "start", "game": game_id, "seats": 2, "seat": seat, "options": dict(state.options),
             "match_game": 0}
    request = {"type": "request", "legal": state.legal_actions(), "observation": state.observation(seat),
               "events": [] if games.get(game_id).has_hidden_information else events, "clock": {"move_ms": 60_000}}
    answers = []
    for _ in range(2):
        player = Player(simulations=40)
        player.start(start)
        answers.append(player.choose(request, start))
    assert answers[0] == answers[1]
    choice = answers[0]
    assert isinstance(choice, tuple)
    action, info = choice
    assert action in state.legal_actions() and info["nodes"] == 40 and "budget" not in info


def test_the_bot_reads_its_budget_from_the_command_line_or_the_environment() -> None:
    assert simulation_budget([], {}) is None
    assert simulation_budget([], {BUDGET_VARIABLE: "300"}) == 300
    assert simulation_budget(["--simulations", "50"], {BUDGET_VARIABLE: "300"}) == 50
    assert simulation_budget(["--simulations=7"], {}) == 7
    with pytest.raises(BotBudgetError, match="whole number >= 1"):
        simulation_budget(["--simulations", "0"], {})


@pytest.mark.parametrize("make,expected", [
    # B is reachable by both seats, so nobody's; r2 from A makes it unreachable for seat 1
    (lambda: _with_pool(three_in_a_row(), [2, 4]), "draw r2 0,0/0"),
    # r3 south towards the free middle, not r2 or r4 along the rim
    (lambda: ready([2, 3, 4], tips0=("0,-4/0",), tips1=("0,4/3",)), "draw r3 0,-4/0"),
])
def test_roots_search_follows_the_regions_where_random_playouts_say_nothing(make: Any, expected: str) -> None:
    state, searcher = guided("roots", make(), seed=1)
    result = searcher.search(state, simulations=60)
    assert result.whole == expected
    ids, action = principal(result, state.clone(), random.Random(1))
    assert action == expected and ids == list(state.position.codec.path(expected))


def _with_pool(state: Any, regular: list[int]) -> Any:
    state.regular = regular
    state._legal = None
    return state


def test_blox_search_blocks_an_opponent_one_brick_from_winning() -> None:
    # Seat 1 joins W, N and E along the top and has a floor brick on the south edge
    # (V0,4,0); a bridge V-1,1,1 or V0,1,1 would win. Seat 0 is to move.
    board = games.get("blox").new_state(2, {"width": "8", "height": "8"})
    for action in ("H3,4,0", "H0,0,0", "H3,6,0", "H4,0,0", "V7,4,0", "H2,0,1", "H3,2,0", "V0,4,0"):
        board.apply(action)
    assert plan_for(board, 1).need == 1  # type: ignore[arg-type]
    state, searcher = guided("blox", board, seed=2)
    result = searcher.search(state, simulations=8)
    after = board.clone()
    assert result.whole is not None
    after.apply(result.whole)
    assert plan_for(after, 1).need >= 2  # type: ignore[arg-type]


def test_rewards_are_the_result_at_the_end_and_a_lead_before() -> None:
    state = random_position("roots", 2, 12, seed=3, radius="3").position.state
    rewards = guide("roots").rewards(state)
    assert all(0.0 < r < 1.0 for r in rewards)
    ended = games.get("btt").new_state(3, {})
    rng = random.Random(1)
    while ended.current() >= 0:
        ended.apply(rng.choice(ended.legal_actions()))
    values = terminal_rewards(ended)
    ranks = ended.result().ranks
    assert sorted(values, reverse=True) == [values[i] for i in sorted(range(3), key=lambda i: ranks[i])]
    assert guide("btt").rewards(ended) == values


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
