"""arena.play and arena.match take openings, as `--openings` and `--random-opening` do:
a deterministic pair of bots then plays different games, each record naming its
opening; a mistake is a SetupError before any bot starts."""

from __future__ import annotations

import pytest

import arena


def test_play_starts_each_seat_rotation_from_the_next_opening() -> None:
    result = arena.play("treeblox", ["greedy", "greedy"], games=4, openings="shipped", seed=1, time=10)
    names = [outcome.record.tags.get("Opening") for outcome in result.outcomes]
    assert all(names) and names[0] == names[1] and names[2] == names[3] and names[0] != names[2]
    moves = [[ply.action for ply in outcome.record.plies] for outcome in result.outcomes]
    assert moves[0] != moves[2]  # the same deterministic bots, another game


def test_random_opening_and_its_mistakes() -> None:
    result = arena.play("btt", ["random", "random"], games=2, random_opening=3, seed=2, time=10)
    assert [outcome.record.tags.get("Opening") for outcome in result.outcomes] == ["random 3", "random 3"]
    with pytest.raises(arena.SetupError, match="not both"):
        arena.play("btt", ["random", "random"], openings="shipped", random_opening=2)


def test_match_takes_openings_too() -> None:
    paired = arena.match("treeblox", "greedy", "greedy", games=4, openings="shipped", seed=1, time=10)
    names = {outcome.record.tags.get("Opening") for outcome in paired.result.outcomes}
    assert len(names) == 2 and None not in names


def test_the_library_takes_the_openings_order_and_start() -> None:
    """openings_order and openings_start, as --openings-order and --openings-start."""
    sequential = arena.play("btt", ["random", "random"], games=4, seed=2, time="300ms", sandbox=False,
                            openings="shipped")
    started = arena.play("btt", ["random", "random"], games=4, seed=2, time="300ms", sandbox=False,
                         openings="shipped", openings_start=2)
    names = [[o.record.tags["Opening"] for o in result.outcomes] for result in (sequential, started)]
    assert names[1][0] == names[0][2] and names[1][0] == names[1][1]  # the 2nd opening first, both colours
    with pytest.raises(arena.SetupError, match="--openings-order"):
        arena.play("btt", ["random", "random"], games=2, seed=2, sandbox=False, openings_order="random")
