"""The shipped bots and the bots printed in docs/protocol.md play real games."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from arena.process.bot_process import processes_in_group
from arena.process.botnames import BotNameError, resolve_bot
from arena.process.spec import BotSpec
from arena.records.replay import verify
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match
from tests.helpers.cli import run_cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def doc_block(marker: str) -> str:
    text = DOC.read_text()
    match = re.search(rf"<!-- {marker} -->\n```\w+\n(.*?)```", text, re.S)
    assert match, f"no block after <!-- {marker} --> in docs/protocol.md"
    return match.group(1)


ON_CPU = TimeControl(per_move_s=3.0, basis="cpu")
"""The bots' play is the point here, not the machine's load."""


def play(specs: list[BotSpec], games: int = 1) -> list[str]:
    result = run_match("btt", specs, ON_CPU, seed=3, games=games, timing=Timing(startup_s=30.0))
    for outcome in result.outcomes:
        assert verify(outcome.record) == []
    assert all(processes_in_group(p) == [] for p in result.pgids)
    return [o.termination for o in result.outcomes]


def test_the_ten_line_python_bot_from_the_docs_plays(tmp_path: Path) -> None:
    source = doc_block("ten-line-bot")
    assert len(source.strip().splitlines()) <= 10
    path = tmp_path / "tiny.py"
    path.write_text(source)
    assert play([BotSpec("tiny", [sys.executable, str(path)]), resolve_bot("random", "btt")], 2) == ["normal"] * 2


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_bots_play(tmp_path: Path) -> None:
    path = tmp_path / "tiny.js"
    path.write_text(doc_block("js-bot"))
    node = shutil.which("node")
    assert node
    assert play([BotSpec("tiny-js", [node, str(path)]), resolve_bot("random-js", "btt")]) == ["normal"]


def test_greedy_beats_random_over_the_protocol() -> None:
    result = run_match("btt", [resolve_bot("greedy", "btt"), resolve_bot("random", "btt")], ON_CPU, seed=5, games=10)
    greedy_wins = sum(o.ranks[seats.index(0)] == 1 for o, seats in zip(result.outcomes, result.seatings))
    assert greedy_wins >= 8


def test_bot_names_resolve_or_explain() -> None:
    assert resolve_bot("random", "btt").command[-1].endswith("random_bot.py")
    assert resolve_bot("greedy", "btt").command[-1].endswith("btt_greedy.py")
    assert resolve_bot("btt-greedy", "btt").command[-1].endswith("btt_greedy.py")
    assert resolve_bot("zoo/crash", "btt").command[-1].endswith("crash.py")
    with pytest.raises(BotNameError, match="no search bot for btt"):
        resolve_bot("search", "btt")
    with pytest.raises(BotNameError, match="is not a shipped bot nor a command found on PATH"):
        resolve_bot("definitely-not-a-command-xyz", "btt")
    spec = resolve_bot(f"{sys.executable} -c pass", "btt")
    assert spec.command == [sys.executable, "-c", "pass"]


def test_random_js_replays_a_seeded_match(tmp_path: Path) -> None:
    from arena.records.files import read_record_file

    out = tmp_path / "g.pgn"
    for bot_seed in ("5", "5", "6"):
        result = run_cli("play", "btt", "random-js", "random-js", "--seed", "1", "--bot-seed", bot_seed,
                         "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
    first, again, other = ([p.action for p in r.plies] for r in read_record_file(out))
    assert first == again and first != other
