"""The Treeblox bots over the protocol: they play without fault; the greedy bot beats
random in at least 95% of 200 games and the search bot beats greedy clearly (slow)."""

from __future__ import annotations

import pytest

from arena.cli.summary import totals
from arena.records.replay import verify
from arena.referee.match import MatchResult
from tests.helpers.botmatch import match as bot_match


def match(first: str, second: str, games: int, per_move: float) -> MatchResult:
    return bot_match("treeblox", [first, second], games, per_move)


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_each_bot_plays_both_colours_without_fault(bot: str) -> None:
    """Both colours, legal and in time at 0.3 s a move (the search bot thinks for a
    fraction of it). Strength is measured over hundreds of games in the slow suite; the
    greedy bot, which does not depend on time, must also win both games here."""
    result = match(bot, "random", 2, per_move=0.3)
    assert all(o.faults == [] and o.termination == "normal" for o in result.outcomes)
    assert all(verify(o.record) == [] for o in result.outcomes)
    if bot == "greedy":
        assert totals(result)[0].wins == 2


@pytest.mark.slow
def test_greedy_beats_random_in_95_percent_of_200_games() -> None:
    result = match("greedy", "random", 200, per_move=2.0)
    greedy = totals(result)[0]
    assert greedy.faults == 0
    assert greedy.wins >= 190, f"greedy won {greedy.wins} of 200"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_search_beats_greedy_clearly_over_100_games() -> None:
    result = match("search", "greedy", 100, per_move=0.5)
    search, greedy = totals(result)
    assert search.faults == 0 and greedy.faults == 0
    assert search.wins >= 2 * greedy.wins and search.wins >= 60, (search.wins, search.draws, greedy.wins)
