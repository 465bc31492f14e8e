"""Every Elo figure of `arena match` says whose it is, and an infinite estimate is a
bound with its meaning."""

from __future__ import annotations

import json

import pytest

from arena.stats.elo_text import MatchElo, one_sided_bound
from arena.stats.sprt import PairStats, SprtParameters, expected_score
from tests.helpers.cli import run_cli


def stats(*counts: int) -> PairStats:
    return PairStats(list(counts))


def test_a_finite_estimate_names_its_bot_and_the_other() -> None:
    line = MatchElo("greedy", "random", stats(1, 2, 5, 8, 4)).line()
    assert line.startswith("greedy vs random: greedy's Elo +")
    assert "LOS " in line and "pairs 20 (pentanomial 1 2 5 8 4)" in line
    assert "inf" not in line


def test_a_bot_that_won_every_game_gets_a_lower_bound_with_its_meaning() -> None:
    elo = MatchElo("greedy", "random", stats(0, 0, 0, 0, 25))
    # 50 games won: the score is above 0.05 ** (1/50) with 95% confidence
    assert one_sided_bound(50) == pytest.approx(-400 * __import__("math").log10(1 / 0.05 ** (1 / 50) - 1))
    assert expected_score(one_sided_bound(50)) == pytest.approx(0.05 ** (1 / 50))
    assert elo.phrase() == f"greedy's Elo > +{one_sided_bound(50):.1f} (95% bound: random has not scored in 50 games)"
    assert "inf" not in elo.line(SprtParameters())


def test_a_bot_that_lost_every_game_gets_an_upper_bound_naming_it() -> None:
    elo = MatchElo("newbot", "oldbot", stats(25, 0, 0, 0, 0))
    assert elo.phrase() == f"newbot's Elo < -{one_sided_bound(50):.1f} (95% bound: newbot has not scored in 50 games)"
    document = elo.document()
    assert document["bot"] == "newbot" and document["over"] == "oldbot" and str(document["bound"]).startswith("< -")


def test_an_interval_end_beyond_any_score_is_said_in_words() -> None:
    figure = MatchElo("a", "b", stats(0, 0, 0, 1, 3)).figure()
    assert figure.endswith("no upper bound]") and "inf" not in figure


def test_before_any_pair_nothing_is_claimed() -> None:
    assert MatchElo("a", "b", stats(0, 0, 0, 0, 0)).figure() == "not measured yet (no pair finished)"


def test_the_new_bot_named_first_and_losing_reads_right() -> None:
    """The issue's case: the new bot (here one that plays an illegal action in every
    game) is named first, as A; every line names B's Elo as B's, and the JSON says whose."""
    result = run_cli("match", "zoo/illegal", "random", "--game", "btt", "-n", "4", "--json",
                     "--time-per-move", "2s")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    elo = document["elo"]
    assert elo["bot"] == "random" and elo["over"] == "zoo/illegal" and elo["elo"] is None
    bound = f"random's Elo > {one_sided_bound(4):+.1f} (95% bound: zoo/illegal has not scored in 4 games)"
    assert elo["text"] == bound
    lines = [line for line in result.stderr.splitlines() if line.startswith("random vs ")]
    assert lines and all(line.startswith("random vs zoo/illegal: random's Elo > ") for line in lines), lines
    assert lines[-1].startswith(f"random vs zoo/illegal: {bound}")
    assert all("inf" not in line for line in lines)  # fastchess's block below says inf, as fastchess does
