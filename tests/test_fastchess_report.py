"""`arena match`'s fastchess and cutechess lines give the figures fastchess printed for
the same counts (published fastchess reports, #39)."""

from __future__ import annotations

import pytest

from arena.stats.fastchess_text import FastchessFigures
from arena.stats.sprt import PairStats, SprtParameters


def figures(pentanomial: list[int], wins: int, losses: int, draws: int, wl_pairs: int) -> FastchessFigures:
    return FastchessFigures("new", "old", PairStats(list(pentanomial), [wins, losses, draws], wl_pairs))


# (pentanomial, W, L, D, WL pairs) and the lines fastchess printed for them.
REPORTS = [
    (([55, 99, 182, 96, 68], 377, 354, 269, 145), [
        "Elo: 7.99 +/- 17.86, nElo: 9.65 +/- 21.53",
        "LOS: 81.01 %, DrawRatio: 36.40 %, PairsRatio: 1.06",
        "Games: 1000, Wins: 377, Losses: 354, Draws: 269, Points: 511.5 (51.15 %)",
        "Ptnml(0-2): [55, 99, 182, 96, 68], WL/DD Ratio: 3.92"]),
    (([388, 1758, 3124, 1802, 439], 4541, 4395, 6086, 1859), [
        "Elo: 3.38 +/- 3.76, nElo: 5.00 +/- 5.56",
        "LOS: 96.10 %, DrawRatio: 41.59 %, PairsRatio: 1.04",
        "Games: 15022, Wins: 4541, Losses: 4395, Draws: 6086, Points: 7584.0 (50.49 %)",
        "Ptnml(0-2): [388, 1758, 3124, 1802, 439], WL/DD Ratio: 1.47"]),
    (([171, 283, 583, 268, 195], 1169, 1136, 695, 511), [
        "Elo: 3.82 +/- 10.19, nElo: 4.66 +/- 12.43",
        "LOS: 76.89 %, DrawRatio: 38.87 %, PairsRatio: 1.02",
        "Games: 3000, Wins: 1169, Losses: 1136, Draws: 695, Points: 1516.5 (50.55 %)",
        "Ptnml(0-2): [171, 283, 583, 268, 195], WL/DD Ratio: 7.10"]),
]


@pytest.mark.parametrize(("counts", "expected"), REPORTS)
def test_the_block_gives_fastchess_figures_for_its_counts(counts: tuple[list[int], int, int, int, int],
                                                          expected: list[str]) -> None:
    lines = figures(*counts).lines("0.1/move")
    assert lines[0] == "Results of new vs old (0.1/move):"
    assert lines[1:] == expected


def test_the_llr_line_reads_as_fastchess_with_its_share_of_the_bound() -> None:
    report = figures([171, 283, 583, 268, 195], 1169, 1136, 695, 511)
    line = report.lines(sprt=SprtParameters(elo0=0, elo1=10))[-1]
    assert line.startswith("LLR: -0.4") and line.endswith("(-2.94, 2.94) [0.00, 10.00]")
    llr = float(line.split()[1])
    share = float(line.split()[2].strip("()%"))
    assert share == pytest.approx(llr / 2.944 * 100, abs=0.2)


def test_a_bot_that_never_lost_gives_inf_as_fastchess_does() -> None:
    report = figures([0, 0, 0, 0, 74], 148, 0, 0, 0)
    lines = report.lines()
    assert lines[1] == "Elo: inf +/- nan, nElo: inf +/- nan"  # fastchess: "-nan" for the margins
    assert lines[2] == "LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf"
    assert lines[4] == "Ptnml(0-2): [0, 0, 0, 0, 74], WL/DD Ratio: nan"


def test_the_cutechess_score_line() -> None:
    report = figures([55, 99, 182, 96, 68], 377, 354, 269, 145)
    assert report.score_line() == "Score of new vs old: 377 - 354 - 269  [0.511] 1000"


def test_pairs_counted_with_their_games_split_win_loss_from_double_draws() -> None:
    stats = PairStats()
    for games in ((1.0, 0.0), (0.5, 0.5), (1.0, 1.0), (0.0, 0.5)):
        stats.add_pair(sum(games), games)
    assert stats.counts == [0, 1, 2, 0, 1]
    assert stats.games == [3, 2, 3]
    assert stats.win_loss_pairs == 1
    assert FastchessFigures("a", "b", stats).wl_dd_ratio() == 1.0


def test_arena_match_prints_both_reports_and_its_json_holds_them() -> None:
    import json

    from tests.helpers.cli import run_cli_cleanly

    args = ("match", "random", "greedy", "-g", "btt", "--games", "8", "--time-per-move", "0.5", "--no-sandbox")
    result = run_cli_cleanly(*args, "--report-every", "2", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(line.startswith("greedy's Elo ") and len(line) <= 80 for line in lines) == 2  # pairs 2 and 4, 80 columns
    assert sum(line.startswith("greedy vs random: ") for line in lines) == 1  # the report's whole line
    assert "Results of greedy vs random (0.5/move):" in lines
    score = next(line for line in lines if line.startswith("Score of greedy vs random: "))
    wins, _, losses, _, draws = score.split(": ")[1].split()[:5]
    assert int(wins) + int(losses) + int(draws) == 8 and score.endswith(" 8")
    document = json.loads(run_cli_cleanly(*args, "--json").stdout)
    report = document["fastchess"]
    assert report["wins"] + report["losses"] + report["draws"] == 8
    assert sum(report["pentanomial"]) == 4 and report["score_line"].startswith("Score of greedy vs random: ")
    assert {"nelo", "nelo_margin", "draw_ratio_percent", "pairs_ratio"} <= set(report)
