"""docs/rl.md's train-then-enter path runs as printed: load the environment, train a
policy, wrap it as a bot, play it through the referee; and its OpenSpiel example runs
OpenSpiel's own MCTS on an arena game."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli

pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")
pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")

DOC = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


def block(marker: str) -> str:
    match = re.search(rf"<!-- rl: {marker} -->\n```\w*\n(.*?)```", DOC.read_text(), re.S)
    assert match, f"no block after <!-- rl: {marker} --> in docs/rl.md"
    return match.group(1)


def run_python(code: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_train_then_enter_runs_as_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.records.files import read_record_file

    folder = tmp_path / "bot"  # the bot's folder; the record goes outside it
    folder.mkdir()
    assert "player_0" in run_python(block("random"), folder)
    run_python(block("train"), folder)
    assert (folder / "policy.npy").is_file()
    (folder / "mybot.py").write_text(block("bot"))
    argv = shlex.split(block("play").strip())
    assert argv[:2] == ["arena", "play"]
    monkeypatch.chdir(folder)
    out = tmp_path / "g.pgn"
    result = run_cli(*argv[1:], "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    assert len(records) == 4
    assert all(r.tags["Termination"] == "normal" for r in records), [r.tags for r in records]


def test_the_openspiel_example_runs_openspiels_mcts_on_an_arena_game(tmp_path: Path) -> None:
    printed = run_python(block("openspiel"), tmp_path)
    actions = eval(printed)  # a list of action strings, as printed
    assert len(actions) == 4 and actions[0].startswith("N") and actions[1].startswith("R")


@pytest.mark.parametrize("marker", ["illegal", "gym", "vector", "tiny", "records", "planes"])
def test_each_wrapper_example_runs_as_printed(tmp_path: Path, marker: str) -> None:
    printed = run_python(block(marker), tmp_path)
    assert printed.strip(), f"the {marker} example printed nothing"


def test_the_example_illegal_id_ends_the_game_as_the_offenders_loss(tmp_path: Path) -> None:
    printed = run_python(block("illegal"), tmp_path)
    assert "-1.0" in printed.splitlines()[0] and "0.5" in printed.splitlines()[0]


@pytest.mark.parametrize(("game", "options"), [("the-tree", []), ("roots", ["-o", "radius=3"])])
def test_the_bot_built_on_a_bridge_position_plays_through_the_referee(tmp_path: Path, game: str,
                                                                      options: list[str]) -> None:
    from arena.records.files import read_record_file

    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "mybot.py").write_text(block("bot-position"))
    out = tmp_path / "g.pgn"
    result = run_cli("play", game, f"{sys.executable} {folder / 'mybot.py'}", "random", *options, "--games", "2",
                     "--out", str(out), "-q", "--time-per-move", "5s")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    assert len(records) == 2 and all(r.tags["Termination"] == "normal" for r in records), [r.tags for r in records]


def test_the_ismcts_example_plays_the_tree(tmp_path: Path) -> None:
    scores = eval(run_python(block("ismcts"), tmp_path))  # the list it prints
    assert len(scores) == 2 and all(s in (-1.0, 0.0, 1.0) for s in scores)


def test_the_mcts_budget_example_repeats_its_search(tmp_path: Path) -> None:
    printed = run_python(block("mcts-budget"), tmp_path)
    assert printed.split()[0], printed  # the chosen action, then its ids and the simulations


def test_the_render_example_shows_one_hand(tmp_path: Path) -> None:
    printed = run_python(block("render"), tmp_path)
    own = next(line for line in printed.splitlines() if "seat 0 [" in line)
    other = next(line for line in printed.splitlines() if "seat 1 [" in line)
    assert len(own.split(":")[1].split()) == 9 and "(hidden)" in other
