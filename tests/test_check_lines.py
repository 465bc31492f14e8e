"""`arena check` quotes the line that failed: the bot's line beyond its answer, its
answer to a message it should have ignored, and for a bot that died, the messages it
was sent after its last line."""

from __future__ import annotations

import sys
from pathlib import Path

from arena import games
from arena.process.spec import BotSpec, Limits
from arena.referee.player import Timing
from arena.session.check import Checker, Report
from arena.timecontrol import TimeControl

BOT = Path(__file__).parent / "newcomer_bot.py"


def check(habit: str) -> Report:
    spec = BotSpec(habit, [sys.executable, str(BOT), habit])
    return Checker(lambda _: spec, [games.get("btt")], TimeControl(per_move_s=2.0, basis="cpu"),
                   Timing(startup_s=30.0, grace_s=0.05), Limits(memory_bytes=512 << 20, sandbox=False),
                   quick=True).run()


def test_a_second_line_for_one_request_is_quoted_not_the_ready_line() -> None:
    report = check("two-lines")
    one_answer = report.checks["one-answer"]
    assert not one_answer.passed
    assert "second thoughts" in one_answer.line and '"ready"' not in one_answer.line
    assert "second thoughts" in one_answer.detail  # the fault's own detail quotes it too


def test_an_answer_to_an_unknown_message_is_quoted() -> None:
    report = check("answers-unknown")
    unknown = report.checks["ignores-unknown"]
    assert not unknown.passed, report.checks
    assert '"what"' in unknown.line and "x-news" in unknown.line, unknown.line
    assert report.checks["one-answer"].passed and report.checks["valid-lines"].passed


def test_a_bot_that_dies_says_which_message_it_followed() -> None:
    report = check("dies-on-unknown")
    unknown = report.checks["ignores-unknown"]
    assert not unknown.passed, report.checks
    assert "after it was sent: start, x-news" in unknown.detail
    assert '"ready"' not in unknown.line
