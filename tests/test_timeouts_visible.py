"""Time-outs are visible (issue #35): matches and leagues count the games decided by
time per bot, warn when there are more than a few percent of them or they come in a
burst (naming the machine's possible overload and the remedies), and a progress line
says who timed out and by how much."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.process.faults import SeatFault
from arena.records.record import GameRecord
from arena.referee.outcome import GameOutcome
from arena.referee.timeouts import (
    BURST_WINDOW,
    TIME_OUT_SHARE,
    TimedGame,
    TimeOutCount,
    count_outcomes,
    short_time_out,
    termination_text,
    time_out_kind,
)
from arena.termination import Termination
from tests.helpers.cli import run_cli

WALL = "answered after 419 ms (limit 100 ms; it used 20 ms of CPU)"
SILENT = "no answer in time (limit 100 ms; it used 0 ms of CPU)"
CPU = "used 130 ms of CPU (limit 100 ms, CPU basis; 140 ms of wall time)"
BACKSTOP = ("no answer in time: answered after 2003 ms of wall time, using 3 ms of CPU: past the CPU basis's wall "
            "backstop of 2000 ms (limit 100 ms of CPU)")


def outcome(names: tuple[str, str], timed_out: int | None = None, detail: str = WALL) -> GameOutcome:
    """A finished 2-seat game: seat `timed_out` lost on time (None: a normal game)."""
    tags = {"Player0": names[0], "Player1": names[1], "Round": "1"}
    if timed_out is None:
        return GameOutcome(GameRecord(tags), (1, 2), None, [], Termination.NORMAL, 10)
    fault = SeatFault(timed_out, Termination.TIME_OUT, detail, 7)
    ranks = (2, 1) if timed_out == 0 else (1, 2)
    return GameOutcome(GameRecord(tags), ranks, None, [fault], Termination.TIME_OUT, 6)


def games(count: int, time_outs_at: set[int], detail: str = WALL) -> list[GameOutcome]:
    """`count` games of greedy and search, greedy losing on time at the given places."""
    return [outcome(("greedy", "search"), 0 if k in time_outs_at else None, detail) for k in range(count)]


@pytest.mark.parametrize(("detail", "short"), [
    (WALL, "greedy answered after 419 ms, limit 100 ms"),
    (SILENT, "greedy gave no answer within 100 ms"),
    (CPU, "greedy used 130 ms of CPU, limit 100 ms"),
    (BACKSTOP, "greedy took 2003 ms of wall time, past the 2000 ms backstop"),
    ("the bot did not read its input in time (limit 100 ms)", "greedy did not read its request within 100 ms"),
    ("its game clock had run out before this decision", "greedy's game clock ran out"),
])
def test_a_time_out_is_told_in_a_few_words(detail: str, short: str) -> None:
    assert short_time_out("greedy", detail) == short


def test_the_progress_text_of_a_game_names_who_timed_out_and_by_how_much() -> None:
    assert termination_text(outcome(("greedy", "search"), 0)) == \
        "time-out: greedy answered after 419 ms, limit 100 ms"
    assert termination_text(outcome(("greedy", "search"))) == "normal"


def test_kinds_of_time_out() -> None:
    assert time_out_kind(WALL) == "wall"
    assert time_out_kind(CPU, "cpu") == "cpu"
    assert time_out_kind(BACKSTOP, "cpu") == "backstop"
    assert time_out_kind("its game clock had run out before this decision", "cpu") == "cpu"


def test_the_count_per_bot() -> None:
    count = count_outcomes(games(96, set(range(0, 96, 9))), names=["greedy", "search"])
    assert count.line() == "time-outs: greedy 11 of 96 games, search 0"
    assert count.decided == 11 and count.bots["greedy"].time_outs == 11 and count.bots["search"].games == 96
    assert count_outcomes(games(4, set())).line() == "time-outs: none in 4 game(s)"


def test_a_void_game_counts_for_nothing() -> None:
    void = GameOutcome(GameRecord({"Player0": "greedy", "Player1": "search"}), (1, 1), None, [],
                       Termination.INFRASTRUCTURE_ERROR, 0)
    assert count_outcomes([void, *games(2, {1})]).games == 2


def test_more_than_three_percent_draws_the_warning_with_its_remedies() -> None:
    spread = set(range(0, 100, 25))  # 4 of 100, never 3 within 10 games
    warning = count_outcomes(games(100, spread)).warning("match")
    assert warning is not None
    assert warning.startswith("4 of 100 games (4.0%) were decided by time-outs (more than 3% of the games)")
    assert "the machine may be overloaded" in warning
    assert "--time-basis cpu" in warning and "a lower --concurrency" in warning
    assert "unless greedy is too slow for its limit" in warning  # every time-out is greedy's
    league = count_outcomes(games(100, spread)).warning("league")
    assert league is not None and 'basis = "cpu" under [time]' in league and "lower concurrency" in league


def test_few_time_outs_spread_out_draw_no_warning() -> None:
    assert TIME_OUT_SHARE == 0.03
    assert count_outcomes(games(100, {5, 40, 80})).warning("match") is None


def test_a_burst_draws_the_warning_however_few_the_time_outs() -> None:
    count = count_outcomes(games(1000, {500, 503, 500 + BURST_WINDOW - 1}))
    assert count.share < TIME_OUT_SHARE and count.burst() == (501, 510)
    warning = count.warning("match")
    assert warning is not None and "3 of them within 10 games in a row: games 501 to 510" in warning
    assert count_outcomes(games(1000, {500, 503, 500 + BURST_WINDOW})).warning("match") is None


def test_both_bots_timing_out_do_not_blame_one() -> None:
    played = [outcome(("greedy", "search"), k % 2) for k in range(4)] + games(6, set())
    warning = count_outcomes(played).warning("match")
    assert warning is not None and "unless" not in warning


def test_on_the_cpu_basis_a_bot_out_of_its_own_cpu_is_no_sign_of_overload() -> None:
    count = count_outcomes(games(20, set(range(10)), CPU), "cpu")
    assert count.decided == 10 and count.warning("match") is None
    assert count.line() == "time-outs: greedy 10 of 20 games, search 0"


def test_on_the_cpu_basis_the_warning_names_the_wall_backstop() -> None:
    count = count_outcomes(games(20, {3, 12}, BACKSTOP), "cpu")
    assert count.line() == "time-outs: greedy 2 of 20 games (2 past the wall backstop), search 0"
    warning = count.warning("match")
    assert warning is not None
    assert warning.startswith("2 of 20 games (10.0%) were decided by the CPU basis's wall backstop (10x the limit")
    assert "a lower --concurrency" in warning and "--time-basis" not in warning


def test_the_json_of_the_count() -> None:
    document = count_outcomes(games(10, {0, 1}), names=["greedy", "search"]).document("match")
    assert document["decided_by_time"] == 2 and document["games"] == 10
    assert document["bots"] == [{"bot": "greedy", "games": 10, "time_outs": 2, "backstop": 0},
                                {"bot": "search", "games": 10, "time_outs": 0, "backstop": 0}]
    assert isinstance(document["warning"], str)


def test_games_of_more_seats() -> None:
    count = TimeOutCount.of([TimedGame(("a", "b", "c"), ((0, WALL), (2, SILENT))), TimedGame(("a", "b", "c"))])
    assert count.decided == 1 and count.line() == "time-outs: a 1 of 2 games, b 0, c 1 of 2 games"


# ---- the command line ---------------------------------------------------------------------------

SLOW = ["zoo/slow", "random", "--game", "btt", "--time-per-move", "100ms", "--seed", "1", "--bot-seed", "1"]
"""zoo/slow sleeps 2 s at its third request: a time-out at 100 ms, whatever the load."""


def test_a_match_counts_its_time_outs_and_warns() -> None:
    result = run_cli("match", *SLOW, "--games", "2")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "game 1 (zoo/slow vs random): [time-out: zoo/slow gave no answer within 100 ms]" in text
    assert "game 2 (random vs zoo/slow): [time-out: zoo/slow gave no answer within 100 ms]" in text
    assert "time-outs: zoo/slow 2 of 2 games, random 0" in text
    flat = " ".join(text.split())
    assert ("warning: 2 of 2 games (100.0%) were decided by time-outs (more than 3% of the games): the machine may "
            "be overloaded") in flat
    assert "use --time-basis cpu (each bot is charged its own CPU time) or a lower --concurrency" in flat


def test_the_sprt_verdict_and_the_json_say_how_many_games_time_decided() -> None:
    result = run_cli("match", *SLOW, "--games", "2", "--sprt", "--json", "-q")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "no decision after 2 games (raise --games) (2 of 2 games were decided by time-outs)" in flat
    document, _ = json.JSONDecoder().raw_decode(result.output[result.output.index("\n{") + 1:])
    assert document["time_outs"]["decided_by_time"] == 2
    assert document["time_outs"]["warning"].startswith("2 of 2 games (100.0%) were decided by time-outs")
    assert [b["time_outs"] for b in document["bots"]] == [2, 0]


def test_a_quiet_match_prints_no_progress_line() -> None:
    result = run_cli("match", *SLOW, "--games", "2", "-q")
    assert result.exit_code == 0 and "[time-out:" not in result.output
    assert "time-outs: zoo/slow 2 of 2 games, random 0" in result.output


def test_play_names_the_time_out_in_its_game_line() -> None:
    result = run_cli("play", "btt", *SLOW[:2], *SLOW[4:])
    assert result.exit_code == 0, result.output
    assert "[time-out: zoo/slow gave no answer within 100 ms]" in result.output
    assert "time-outs: zoo/slow 1 of 1 games, random 0" in result.output


def test_a_league_counts_its_time_outs_and_warns(tmp_path: Path) -> None:
    league = tmp_path / "night.toml"
    league.write_text('name = "night"\ngame = "btt"\ngames_per_pairing = 2\nconcurrency = 1\nseed = 1\n'
                      '[time]\nper_move = "100ms"\n'
                      '[[bots]]\nname = "slow"\ncommand = "zoo/slow"\n'
                      '[[bots]]\nname = "random"\ncommand = "random"\n')
    result = run_cli("league", "run", str(league))
    assert result.exit_code == 0, result.output
    text = result.output
    assert "[time-out: slow gave no answer within 100 ms]" in text  # the progress line
    assert "time-outs: slow 2 of 2 games, random 0" in text
    flat = " ".join(text.split())
    assert 'use basis = "cpu" under [time] in the league file' in flat
    assert "or a lower concurrency in the league file" in flat
    exported = run_cli("league", "table", str(league), "--format", "json")
    document, _ = json.JSONDecoder().raw_decode(exported.output[exported.output.index("{"):])
    assert document["time_outs"]["decided_by_time"] == 2
    assert document["time_outs"]["bots"][0] == {"bot": "slow", "games": 2, "time_outs": 2, "backstop": 0}
    assert any("were decided by time-outs" in w for w in document["warnings"])
    markdown = run_cli("league", "table", str(league), "--format", "markdown").output
    assert "time-outs: slow 2 of 2 games, random 0" in markdown and "**Warning:** 2 of 2 games" in markdown
