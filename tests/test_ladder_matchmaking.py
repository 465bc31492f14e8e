"""Matchmaking at a ladder table: new versions first, then the least certain ratings, close
opponents, distinct entrants, balanced seats; deterministic for a seeded generator."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder.matchmaking import Contender, choose_focus, choose_table, rotations
from arena.ladder.ratings import Skill


def contender(version: int, entrant: int | None = None, mu: float = 25.0, sigma: float = 3.0, games: int = 50,
              playing: int = 0) -> Contender:
    return Contender(version, version if entrant is None else entrant, Skill(mu, sigma), games, playing)


def test_a_new_version_plays_first_even_against_less_certain_ratings() -> None:
    new = contender(9, sigma=1.0, games=0)
    established = [contender(v, sigma=6.0, games=40) for v in range(1, 5)]
    rng = random.Random(1)
    assert choose_focus([*established, new], min_games=10, rng=rng) == new
    for _ in range(50):
        table = choose_table([*established, new], seats=2, min_games=10, rng=rng)
        assert table is not None and 9 in table


def test_among_new_versions_the_fewest_games_then_the_newest_goes_first() -> None:
    rng = random.Random(2)
    pool = [contender(1, games=3), contender(2, games=1), contender(3, games=1), contender(4, games=20)]
    assert choose_focus(pool, min_games=5, rng=rng).version == 3
    assert choose_focus([contender(1, games=3), contender(2, games=4)], min_games=5, rng=rng).version == 1


def test_after_min_games_the_least_certain_rating_is_the_focus() -> None:
    graduated = contender(9, sigma=2.0, games=10)
    uncertain = contender(3, sigma=5.0, games=30)
    pool = [contender(1, sigma=3.0), contender(2, sigma=2.5), uncertain, graduated]
    assert choose_focus(pool, min_games=10, rng=random.Random(3)) == uncertain
    rng = random.Random(4)
    tables = [choose_table(pool, seats=2, min_games=10, rng=rng) for _ in range(200)]
    assert sum(1 for t in tables if t is not None and 9 in t) < 150  # not at every table any more
    assert all(t is not None and 3 in t for t in tables)


def test_a_version_playing_now_is_discounted_as_focus() -> None:
    busy = contender(1, sigma=5.0, playing=1)
    idle = contender(2, sigma=4.0)
    assert choose_focus([busy, idle, contender(3, sigma=1.0)], min_games=0, rng=random.Random(5)) == idle


def test_versions_at_their_limit_of_units_do_not_play() -> None:
    pool = [contender(1, playing=1), contender(2), contender(3)]
    rng = random.Random(6)
    assert all(set(choose_table(pool, 2, 0, rng) or ()) == {2, 3} for _ in range(20))
    assert any(1 in (choose_table(pool, 2, 0, rng, max_playing=2) or ()) for _ in range(50))


def test_no_table_without_enough_entrants() -> None:
    rng = random.Random(7)
    same_owner = [contender(1, entrant=1), contender(2, entrant=1), contender(3, entrant=2)]
    assert choose_table(same_owner, seats=3, min_games=0, rng=rng) is None
    assert choose_table(same_owner, seats=2, min_games=0, rng=rng) is not None
    assert choose_table([contender(1, playing=1), contender(2)], seats=2, min_games=0, rng=rng) is None
    assert choose_table([], seats=2, min_games=0, rng=rng) is None


def test_two_versions_of_one_entrant_never_meet() -> None:
    pool = [contender(1, entrant=1), contender(2, entrant=1, games=0), contender(3, entrant=2), contender(4, entrant=3)]
    rng = random.Random(8)
    for _ in range(200):
        table = choose_table(pool, seats=3, min_games=5, rng=rng)
        assert table is not None and not {1, 2} <= set(table)


contenders = st.lists(
    st.builds(Contender, version=st.integers(0, 10_000), entrant=st.integers(0, 6),
              skill=st.builds(Skill, mu=st.floats(-50, 100), sigma=st.floats(0, 10)),
              games=st.integers(0, 30), playing=st.integers(0, 3)),
    max_size=12, unique_by=lambda c: c.version)


@settings(max_examples=300, deadline=None)
@given(contenders, st.integers(1, 5), st.integers(0, 20), st.integers(1, 3), st.integers(0, 2**32))
def test_every_table_is_legal(pool: list[Contender], seats: int, min_games: int, max_playing: int, seed: int) -> None:
    table = choose_table(pool, seats, min_games, random.Random(seed), max_playing)
    eligible = [c for c in pool if c.playing < max_playing]
    if table is None:
        assert len({c.entrant for c in eligible}) < seats
        return
    by_version = {c.version: c for c in pool}
    assert len(table) == seats and len(set(table)) == seats
    assert len({by_version[v].entrant for v in table}) == seats
    assert all(by_version[v].playing < max_playing for v in table)


def test_equal_contenders_share_focus_and_seats_evenly() -> None:
    pool = [contender(v, games=20) for v in range(6)]
    rng = random.Random(37)
    focus = Counter(choose_focus(pool, min_games=10, rng=rng).version for _ in range(2000))
    assert set(focus) == set(range(6)) and all(250 < n < 420 for n in focus.values())  # 333 each expected
    seat_counts: Counter[tuple[int, int]] = Counter()
    for _ in range(2000):
        table = choose_table(pool, seats=3, min_games=10, rng=rng)
        assert table is not None
        seat_counts.update((seat, version) for seat, version in enumerate(table))
    # Each version sits at a table half the time, at each of its 3 seats a third of that: 333.
    assert len(seat_counts) == 18 and all(250 < n < 420 for n in seat_counts.values())


def test_a_close_opponent_is_drawn_more_often_than_a_far_one() -> None:
    focus = contender(1, mu=25.0, games=0)
    close, far = contender(2, mu=27.0), contender(3, mu=40.0)
    rng = random.Random(9)
    drawn = Counter(v for _ in range(1000) for v in choose_table([focus, close, far], 2, 5, rng) or () if v != 1)
    assert drawn[2] > 4 * drawn[3]
    assert drawn[3] > 0  # the floor: far opponents still meet now and then


def test_an_uncertain_opponent_is_preferred() -> None:
    focus = contender(1, games=0)
    certain, uncertain = contender(2, sigma=1.0), contender(3, sigma=6.0)
    rng = random.Random(10)
    drawn = Counter(v for _ in range(1000) for v in choose_table([focus, certain, uncertain], 2, 5, rng) or ())
    assert drawn[3] > 3 * drawn[2] > 0


def test_the_answer_depends_on_the_seed_not_the_order_of_the_list() -> None:
    pool = [contender(v, mu=20.0 + v, sigma=2.0 + v % 3) for v in range(8)]
    shuffled = pool[:]
    random.Random(11).shuffle(shuffled)
    first = [choose_table(pool, 3, 0, random.Random(seed)) for seed in range(20)]
    assert first == [choose_table(shuffled, 3, 0, random.Random(seed)) for seed in range(20)]
    assert len(set(first)) > 1


def test_rotations_seat_every_version_at_every_seat_once() -> None:
    assert rotations((1, 2, 3)) == [(1, 2, 3), (2, 3, 1), (3, 1, 2)]
    assert rotations((4, 5)) == [(4, 5), (5, 4)]
    seatings = rotations((1, 2, 3, 4))
    assert all(sorted(s[seat] for s in seatings) == [1, 2, 3, 4] for seat in range(4))


def test_a_table_needs_a_seat() -> None:
    with pytest.raises(ValueError, match="at least one seat"):
        choose_table([contender(1)], 0, 0, random.Random(0))
