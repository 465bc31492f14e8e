"""`arena check`: passes on the shipped bots and fails, with the right check named, on
each misbehaving bot of the zoo; its report names the failing line; --json for CI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena import games
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec, Limits
from arena.referee.player import Timing
from arena.session.check import Checker, Report
from arena.timecontrol import TimeControl

ZOO = {
    "bad_utf8": "valid-lines", "child_keeps_pipes": "stays-up", "close_stdin": "stays-up",
    "close_stdout": "stays-up", "crash": "stays-up", "deaf": "in-time", "deep_nesting": "valid-lines",
    "exit_start": "handshake", "fat_info": "info-within-cap", "fork_loop": "in-time", "garbage": "valid-lines",
    "hang": "in-time", "huge_line": "valid-lines", "huge_number": "valid-lines", "illegal": "legal-actions",
    "memory_hog": "within-limits", "silent": "handshake", "slow": "in-time", "stderr_flood": "stderr-within-cap",
    "unexpected": "one-answer", "wrong_type": "one-answer",
}


def check(*args: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "arena", "check", *args, "--json"], capture_output=True,
                          text=True, timeout=600)
    return done.returncode, json.loads(done.stdout)


def check_in_process(bot: str, game: str = "btt", per_move: float = 0.5) -> Report:
    """The same check without a command's start-up: for the many zoo bots. On the wall
    clock for the bots that must fail `in-time` (they sleep or never read), on the CPU
    basis for every other, and with a start-up limit only the silent bot reaches: a
    loaded machine fails no check here."""
    game_rules = games.get(game)
    spec = resolve_bot(bot, game)
    on_the_wall = ZOO.get(bot.removeprefix("zoo/")) == "in-time"
    control = TimeControl(per_move_s=per_move, basis="wall" if on_the_wall else "cpu")
    startup = 5.0 if bot == "zoo/silent" else 30.0
    return Checker(lambda _: spec, [game_rules], control, Timing(startup_s=startup, grace_s=0.05),
                   Limits(memory_bytes=256 << 20), quick=True).run()


def check_way(way: str, game: str = "btt") -> Report:
    """The check of tests/no_legal_bot.py, which asks for `legal: false`, got right or wrong."""
    spec = BotSpec(f"no-legal-{way}", [sys.executable, str(Path(__file__).parent / "no_legal_bot.py"), way])
    return Checker(lambda _: spec, [games.get(game)], TimeControl(per_move_s=2.0, basis="cpu"),
                   Timing(startup_s=30.0, grace_s=0.05), Limits(memory_bytes=512 << 20), quick=True).run()


def failed(report: dict[str, object]) -> list[str]:
    return [c["name"] for c in report["checks"] if not c["passed"]]  # type: ignore[attr-defined]


RELAXED = ("--time-per-move", "2s", "--startup-time", "60s")
"""Limits no loaded machine breaks (`arena check` has no CPU basis): these checks are of
the protocol, not of speed."""


def test_the_shipped_random_bots_pass_on_every_game() -> None:
    for bot in ("random", "random-js"):
        code, report = check(bot, "--quick", *RELAXED)
        assert code == 0 and report["passed"] is True and failed(report) == [], report
        assert len(report["games"]) == 5  # type: ignore[arg-type]


def test_a_greedy_bot_passes() -> None:
    code, report = check("greedy", "--game", "btt", "--quick", *RELAXED)
    assert code == 0 and failed(report) == []


QUICK_ZOO = ("crash", "deep_nesting", "exit_start", "fat_info", "hang", "illegal", "memory_hog", "stderr_flood",
             "unexpected")
"""One zoo bot per check in the default suite; every one with -m slow."""


@pytest.mark.parametrize("zoo", [z if z in QUICK_ZOO else pytest.param(z, marks=pytest.mark.slow) for z in sorted(ZOO)])
def test_each_zoo_bot_fails_the_right_check(zoo: str) -> None:
    # A memory hog needs time to reach its limit on a loaded machine: it fails on memory, not time.
    report = check_in_process(f"zoo/{zoo}", per_move=5.0 if zoo == "memory_hog" else 0.5)
    failures = {c.name: c for c in report.checks.values() if not c.passed}
    assert not report.passed and ZOO[zoo] in failures, list(failures)
    assert failures[ZOO[zoo]].detail


def test_a_bot_that_asks_for_legal_false_plays_each_setting_without_and_with_the_lists() -> None:
    right = check_way("own")
    assert right.passed, [c for c in right.checks.values() if not c.passed]
    assert right.games == ["btt, 2 seat(s), seat 0, no legal lists", "btt, 2 seat(s), seat 0, legal lists sent"]
    assert "asks for legal: false" in right.notes[0]
    peeks = check_way("peek")  # relies on the lists it asked not to get
    assert not peeks.checks["stays-up"].passed and "no legal lists" in peeks.checks["stays-up"].detail
    strict = check_way("strict")  # cannot bear the lists when they come all the same
    assert not strict.checks["stays-up"].passed and "legal lists sent" in strict.checks["stays-up"].detail
    assert strict.checks["legal-actions"].passed


def test_a_bot_that_takes_the_lists_plays_each_setting_once() -> None:
    report = check_in_process("greedy")
    assert report.passed and report.games == ["btt, 2 seat(s), seat 0"]
    assert "takes the legal lists" in report.notes[0]


def test_the_failing_line_is_quoted() -> None:
    code, report = check("zoo/illegal", "--game", "btt", "--quick", *RELAXED)
    line = next(c["line"] for c in report["checks"] if c["name"] == "legal-actions")  # type: ignore[attr-defined]
    assert "zz-not-legal" in line


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("game", ["btt", "treeblox", "roots", "blox", "the-tree"])
def test_every_shipped_bot_passes_the_full_check(game: str) -> None:
    for bot in ("greedy", "search") if game != "btt" else ("greedy",):
        code, report = check(bot, "--game", game, "--time-per-move", "500ms")
        assert code == 0 and failed(report) == [], (bot, report)


def test_a_missing_bot_is_named_once_without_a_game(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "check", "./missing"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("warning:")]  # no cgroups: one note
    assert lines[0].startswith("error: './missing' does not exist"), done.stderr
