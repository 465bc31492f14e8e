"""The arena as a library: the public names stay importable, each under one name, with
its types shipped (py.typed) and its errors shown as arena's; `arena.play` and
`arena.match` play through the referee and return typed results, and SimpleBot / Bot
ask one bot for one decision through the referee's launcher, handshake and clock."""

from __future__ import annotations

import importlib
import importlib.resources
import inspect
import json
import os
import pickle
import subprocess
import sys
import tomllib
import traceback
from pathlib import Path

import pytest
import trio

import arena
from arena import records
from arena.games import get
from arena.games.base import State
from arena.process.bot_process import processes_in_group
from arena.process.botnames import resolve_bot
from arena.process.sandbox import probe
from arena.stats import PairStats
from tests.helpers.cli import run_cli_cleanly

PACKAGES = ("arena", "arena.games", "arena.records", "arena.stats")
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_is_importable_and_listed_once(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert len(names) == len(set(names)), package
    for name in names:
        assert getattr(module, name) is not None, f"{package}.{name}"
        assert name in dir(module)
    namespace: dict[str, object] = {}
    exec(f"from {package} import *", namespace)  # what a user's star import gets
    assert set(names) <= set(namespace)


def test_the_promised_names_are_public() -> None:
    assert {"play", "play_async", "match", "match_async", "Bot", "SimpleBot", "MatchResult", "GameOutcome",
            "SeatFault", "BotFault", "GameRecord", "SetupError"} <= set(arena.__all__)
    assert {"read", "verify", "replay", "write", "append"} <= set(records.__all__)
    assert {"get", "State", "Game"} <= set(importlib.import_module("arena.games").__all__)
    assert {"elo_fit", "openskill_ratings", "SprtParameters", "PairStats"} <= set(arena.stats.__all__)


def test_records_replay_stays_the_function_though_its_module_is_imported() -> None:
    importlib.import_module("arena.records.replay")
    from arena.records.replay import verify  # noqa: F401  (what the referee's modules do)

    assert callable(records.replay) and records.replay.__name__ == "replay"


def test_importing_the_rules_does_not_load_the_referee() -> None:
    code = "import sys, arena.games.btt; print('trio' in sys.modules, 'arena.referee.match' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


# ---- the public surface ------------------------------------------------------------------------


def test_the_public_names_are_the_imports_mypy_reads() -> None:
    """arena/__init__.py writes each public name once, as an import under TYPE_CHECKING
    (what mypy reads); arena.lazy reads the same lines for `__all__` and the lazy loading."""
    from arena.lazy import typing_imports

    source = (ROOT / "arena" / "__init__.py").read_text()
    where = typing_imports(source, "arena")
    assert list(where) == arena.__all__ and "__all__ = [" not in source
    for name, (module, original) in where.items():
        assert getattr(arena, name) is getattr(importlib.import_module(module), original)
    with pytest.raises(TypeError, match="from MODULE import NAME as NAME"):
        typing_imports("if TYPE_CHECKING:\n    import arena.games\n", "example")


def test_one_name_per_function_and_old_names_warn() -> None:
    games = importlib.import_module("arena.games")
    assert (records.read.__name__, records.write.__name__, games.get.__name__) == ("read", "write", "get")
    assert not hasattr(importlib.import_module("arena.records.files"), "iter_record_file")
    assert not hasattr(importlib.import_module("arena.records.writer"), "write_record")
    assert "get_game" not in games.__all__
    with pytest.warns(DeprecationWarning, match=r"arena\.games\.get_game is deprecated: call arena\.games\.get"):
        old = games.get_game("btt")
    assert old is games.get("btt")
    with pytest.raises(DeprecationWarning):  # the suite's filter: the arena's own code never calls it
        games.get_game("btt")


def test_play_and_play_async_take_the_same_parameters() -> None:
    for sync, asynchronous in ((arena.play, arena.play_async), (arena.match, arena.match_async)):
        assert inspect.signature(sync) == inspect.signature(asynchronous)
        assert sync.__name__ + "_async" == asynchronous.__name__
        assert not inspect.iscoroutinefunction(sync) and inspect.iscoroutinefunction(asynchronous)


def test_errors_show_and_pickle_by_their_public_name() -> None:
    """`arena.SetupError`, not the module that defines it, in a traceback and a repr; a
    pickle of one loads in a fresh interpreter (a cluster's worker) through arena's
    lazy names, a BotFault with its reason and detail."""
    errors = [value for name in arena.__all__ if isinstance(value := getattr(arena, name), type)
              and issubclass(value, BaseException)]
    assert {error.__name__ for error in errors} == {"ArenaError", "SetupError", "BotFault", "GameError",
                                                    "IllegalAction"}
    assert all(repr(error) == f"<class 'arena.{error.__name__}'>" for error in errors)
    with pytest.raises(arena.SetupError) as raised:
        arena.play("chess", ["random", "random"])
    assert traceback.format_exception_only(raised.value)[-1].startswith("arena.SetupError: unknown game 'chess'")
    fault = arena.BotFault(arena.Termination.TIME_OUT, "no answer in time")
    values = [raised.value, fault, arena.IllegalAction("zz"), *errors]
    code = ("import pickle, sys; values = pickle.loads(sys.stdin.buffer.read()); "
            "print(repr(values)); print(values[1].reason, values[1].detail, sep='|')")
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(values), capture_output=True, check=True)
    shown, fault_text = done.stdout.decode().splitlines()
    assert shown == repr(values) and fault_text == "time-out|no answer in time"


def test_typing_still_reads_the_public_classes_annotations() -> None:
    """Only errors are shown as arena's: a dataclass's string annotations resolve in
    its own module, which typing.get_type_hints (pydantic, cattrs...) needs."""
    import typing

    from arena.lazy import public

    for name in arena.__all__:
        value = getattr(arena, name)
        if isinstance(value, type):
            typing.get_type_hints(value)
    with pytest.raises(TypeError, match="not an error"):
        public(arena.Limits)  # type: ignore[type-var]


def test_the_packages_ship_their_types() -> None:
    """py.typed marks arena and protocol as typed for a user's mypy (PEP 561): present
    beside the installed modules, and declared as package data so a wheel has it."""
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package in ("arena", "protocol"):
        assert importlib.resources.files(package).joinpath("py.typed").is_file()
        assert "py.typed" in package_data[package]


def test_the_sprt_decision_is_typed_and_reads_as_the_command_prints_it() -> None:
    sprt = arena.SprtParameters(elo0=0, elo1=10)
    stronger, weaker = PairStats([2, 10, 40, 50, 20]).decision(sprt), PairStats([20, 50, 40, 10, 2]).decision(sprt)
    assert (stronger, weaker) == (arena.SprtDecision.H1, arena.SprtDecision.H0)
    assert isinstance(stronger, arena.SprtDecision) and f"{stronger}" == "H1" and json.dumps(weaker) == '"H0"'
    assert PairStats([1, 1, 1, 1, 1]).decision(sprt) is None
    document = json.loads(run_cli_cleanly("sprt", "--penta", "2", "10", "40", "50", "20", "--json").stdout)
    assert document["sprt"]["decision"] == "H1"


# ---- arena.play and arena.match ---------------------------------------------------------------

ON_CPU = arena.TimeControl(per_move_s=0.5, basis="cpu")
"""Half a second of CPU a move: no loaded machine times out a bot here."""


def test_play_returns_outcomes_with_faults_and_appends_verifiable_records(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    seen: list[arena.GameOutcome] = []
    result = arena.play("btt", ["random", "zoo/crash"], games=2, seed=3, bot_seed=4, time=ON_CPU, out=out,
                        on_game=seen.append)
    assert isinstance(result, arena.MatchResult)
    assert result.names == ["random", "zoo/crash"] and len(result.outcomes) == 2 and seen == result.outcomes
    for outcome, seats in zip(result.outcomes, result.seatings, strict=True):
        assert outcome.termination == arena.Termination.CRASH
        [fault] = outcome.faults
        assert isinstance(fault, arena.SeatFault) and seats[fault.seat] == 1  # the crashing bot's seat
        assert outcome.ranks[fault.seat] == 2
    games = list(records.read(out))
    assert [g.tags["Seed"] for g in games] == [o.record.tags["Seed"] for o in result.outcomes]
    assert all(records.verify(g) == [] for g in games)


def test_play_refuses_a_mistake_before_any_bot_starts(tmp_path: Path) -> None:
    with pytest.raises(arena.SetupError, match="unknown game 'chess'"):
        arena.play("chess", ["random", "random"])
    with pytest.raises(arena.SetupError, match="btt needs at least 2 bots"):
        arena.play("btt", ["random"])
    with pytest.raises(arena.SetupError, match="3 time controls for 2 bots"):
        arena.play("btt", ["random", "random"], time=[1, 2, 3])
    with pytest.raises(arena.SetupError, match="does not hold game records"):
        (tmp_path / "notes.txt").write_text("my notes\n")
        arena.play("btt", ["random", "random"], out=tmp_path / "notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"


def test_play_async_runs_in_the_callers_trio_loop() -> None:
    async def main() -> arena.MatchResult:
        return await arena.play_async("treeblox", ["random", "random"], seed=1, bot_seed=1, time=ON_CPU)

    result = trio.run(main)
    assert len(result.outcomes) == 1 and result.outcomes[0].termination == arena.Termination.NORMAL


def test_match_plays_pairs_and_counts_the_candidates_points() -> None:
    paired = arena.match("btt", "random", "greedy", games=4, seed=5, bot_seed=1, time=ON_CPU)
    assert isinstance(paired, arena.PairedResult) and paired.stats.pairs == 2
    assert len(paired.result.outcomes) == 4 and paired.decision is None and paired.llr() is None
    points = 0.0
    for outcome, seats in zip(paired.result.outcomes, paired.result.seatings, strict=True):
        greedy = seats.index(1)
        points += 1.0 if outcome.ranks[greedy] < outcome.ranks[1 - greedy] else \
            0.5 if outcome.ranks[greedy] == outcome.ranks[1 - greedy] else 0.0
    assert sum(k * n for k, n in enumerate(paired.stats.counts)) / 2 == points


# ---- one bot, one decision ---------------------------------------------------------------------


def _midgame(plies: int) -> tuple[State, list[str]]:
    state = get("btt").new_state(2)
    moves: list[str] = []
    for _ in range(plies):
        action = state.legal_actions()[len(moves) % len(state.legal_actions())]
        state.apply(action)
        moves.append(action)
    return state, moves


def test_simplebot_answers_a_legal_action_for_a_tracking_bot_given_the_moves() -> None:
    state, moves = _midgame(6)
    with arena.SimpleBot.popen("greedy", game="btt") as bot:
        answer = bot.play(state, 1.0, moves=moves)
        assert isinstance(answer, arena.Answer) and answer.action in state.legal_actions()
        assert answer.info is None  # it followed the game: no "lost track" comment
        again = bot.play(state, 1.0, moves=moves)  # a second game in the same process
        assert again.action == answer.action
        with pytest.raises(ValueError, match="do not lead to the state"):
            bot.play(state, 1.0, moves=moves[:-1])


def test_simplebot_runs_in_the_bots_sandbox() -> None:
    if not probe().sandbox:
        pytest.skip(f"no sandbox here: {probe().why}")
    script = "import json,os,sys\nfor l in sys.stdin:\n m=json.loads(l)\n if m['type']=='hello': " \
             "print(json.dumps({'type':'ready','name':os.environ.get('HOME','')}),flush=True)\n " \
             "elif m['type']=='quit': break"
    with arena.SimpleBot.popen([sys.executable, "-c", script]) as bot:
        assert bot.name == "/scratch"  # the sandbox's home, as under the referee
    with arena.SimpleBot.popen([sys.executable, "-c", script], sandbox=False) as bot:
        assert bot.name == os.environ.get("HOME", "")


def test_simplebot_faults_are_the_referees_and_the_bot_starts_afresh() -> None:
    state, _ = _midgame(0)
    illegal = resolve_bot("zoo/illegal", "btt")
    illegal.env["ZOO_PLY"] = "1"
    with arena.SimpleBot.popen(illegal) as bot:
        for _ in range(2):  # killed after its fault, started again for the next decision
            with pytest.raises(arena.ArenaError) as fault:  # a BotFault is one of arena's errors
                bot.play(state, 1.0)
            assert isinstance(fault.value, arena.BotFault) and fault.value.reason == arena.Termination.ILLEGAL_ACTION
    assert len(bot.pgids) == 2 and all(processes_in_group(p) == [] for p in bot.pgids)
    slow = resolve_bot("zoo/slow", "btt")
    slow.env.update(ZOO_PLY="1", ZOO_SECONDS="5")
    with arena.SimpleBot.popen(slow) as bot:
        with pytest.raises(arena.BotFault) as fault:
            bot.play(state, "100ms")
        assert fault.value.reason == arena.Termination.TIME_OUT


def test_simplebot_that_cannot_start_is_a_startup_fault() -> None:
    with pytest.raises(arena.BotFault) as fault:
        arena.SimpleBot.popen([sys.executable, "-c", "import sys; sys.exit(4)"])
    assert fault.value.reason == arena.Termination.STARTUP_FAILURE
    with pytest.raises(arena.ArenaError, match="a bot per game"):
        arena.SimpleBot.popen("greedy")


def test_bot_is_the_async_face_and_quits_its_process() -> None:
    state, moves = _midgame(2)

    async def main() -> tuple[str, arena.Bot]:
        async with arena.Bot.popen("random", game="btt") as bot:
            answer = await bot.play(state, 1.0, moves=moves)
        return answer.action, bot

    action, bot = trio.run(main)
    assert action in state.legal_actions() and not bot.player.alive
    assert len(bot.pgids) == 1 and processes_in_group(bot.pgids[0]) == []
