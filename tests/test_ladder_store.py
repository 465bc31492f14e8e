"""The ladder's store (arena.ladder.store) on concrete data made in tmp_path: what storing
a game changes (ratings, the leaderboard's totals, history rows), void units, fault
streaks and pauses, versions (reactivation, ownership, the playing one, pruning), unit
numbers across reopening, files it refuses, and the leaderboard read from the totals
against the same numbers counted from the games."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.ladder.store import LadderStore, LadderStoreError, SeatResult, Version
from arena.ladder.tokens import placeholder_hash
from arena.ladder.web import queries

TABLE = "btt-2"
PAUSE_AFTER = 3


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LadderStore]:
    opened = LadderStore.open(tmp_path / "ladder.sqlite", "test")
    try:
        yield opened
    finally:
        opened.close()


def entrant(store: LadderStore, name: str) -> int:
    found = store.entrant(name)
    return found.id if found is not None else store.add_entrant(name, placeholder_hash())


def ready(store: LadderStore, owner: str, bot: str) -> Version:
    version = store.add_version(entrant(store, owner), bot, "python")
    store.set_version_state(version.id, "ready", "built and checked")
    return version


def seat(version: Version, rank: int, fault: str | None = None, detail: str | None = None) -> SeatResult:
    return SeatResult(version.id, rank, None, fault, detail)


def save(store: LadderStore, *seats: SeatResult, table: str = TABLE) -> int:
    return store.save_game(table, store.next_unit(), 7, list(seats), "normal", 10, "", True, PAUSE_AFTER).game


def rating(store: LadderStore, version: Version, table: str = TABLE) -> tuple[float, float, int, int] | None:
    row = store.db.execute("SELECT mu, sigma, games, wins FROM ratings WHERE tbl = ? AND version = ?",
                           (table, version.id)).fetchone()
    return None if row is None else (float(row[0]), float(row[1]), int(row[2]), int(row[3]))


def stats(store: LadderStore, table: str = TABLE) -> queries.TableStats:
    with queries.reading(store.path) as db:
        return queries.table_stats(db, table)


def pairs(store: LadderStore, table: str = TABLE) -> dict[tuple[int, int], tuple[float, int]]:
    with queries.reading(store.path) as db:
        return queries.table_pairs(db, table)


# ---- storing games ------------------------------------------------------------------------------


def test_a_stored_game_updates_ratings_totals_and_history(store: LadderStore) -> None:
    alpha = ready(store, "alice", "alpha")
    beta = ready(store, "bob", "beta")
    game = save(store, seat(alpha, 1), seat(beta, 2, "timeout", "took 3 s"))
    alpha_after, beta_after = rating(store, alpha), rating(store, beta)
    assert alpha_after is not None and beta_after is not None
    assert alpha_after[0] > 25.0 > beta_after[0]  # the winner's mu went up, the loser's down
    assert alpha_after[1] < 25.0 / 3 and beta_after[1] < 25.0 / 3
    assert alpha_after[2:] == (1, 1) and beta_after[2:] == (1, 0)
    history = store.db.execute("SELECT seat, version, rank, fault, fault_detail, mu, sigma FROM seats "
                               "WHERE game = ? ORDER BY seat", (game,)).fetchall()
    assert history == [(0, alpha.id, 1, None, None, alpha_after[0], alpha_after[1]),
                       (1, beta.id, 2, "timeout", "took 3 s", beta_after[0], beta_after[1])]

    save(store, seat(beta, 1), seat(alpha, 1))  # a tie, seats swapped
    save(store, seat(beta, 1), seat(alpha, 2, "crash"))
    save(store, seat(alpha, 1), seat(beta, 2, "timeout"))
    totals = stats(store)
    assert totals.last == store.game_count() == 4
    assert (totals.versions[alpha.id].games, totals.versions[alpha.id].wins) == (4, 3)
    assert (totals.versions[beta.id].games, totals.versions[beta.id].wins) == (4, 2)
    assert totals.versions[alpha.id].faults == {"crash": 1}
    assert totals.versions[beta.id].faults == {"timeout": 2}
    low, high = sorted((alpha, beta), key=lambda v: v.id)
    alpha_points = 2.5
    assert pairs(store) == {(low.id, high.id): (alpha_points if low is alpha else 4 - alpha_points, 4)}
    assert stats(store, "btt-3").versions == {}  # another table's totals are its own


def test_a_game_of_more_seats_counts_for_every_seat_but_gives_no_pair_totals(store: LadderStore) -> None:
    versions = [ready(store, name, name) for name in ("ann", "ben", "cat")]
    save(store, seat(versions[0], 2), seat(versions[1], 1), seat(versions[2], 1, "illegal action"), table="btt-3")
    totals = stats(store, "btt-3")
    assert [(totals.versions[v.id].games, totals.versions[v.id].wins) for v in versions] == [(1, 0), (1, 1), (1, 1)]
    assert totals.versions[versions[2].id].faults == {"illegal action": 1}
    assert pairs(store, "btt-3") == {}


def test_a_void_unit_is_kept_apart_and_changes_no_rating(store: LadderStore) -> None:
    alpha = ready(store, "alice", "alpha")
    beta = ready(store, "bob", "beta")
    save(store, seat(alpha, 1), seat(beta, 2))
    before = (rating(store, alpha), rating(store, beta), stats(store), pairs(store))
    store.save_void(TABLE, store.next_unit(), [alpha.id, beta.id], "Traceback ...\nOSError: no space left")
    assert (rating(store, alpha), rating(store, beta), stats(store), pairs(store)) == before
    assert store.game_count() == 1
    assert store.db.execute("SELECT tbl, versions, error FROM void").fetchall() == [
        (TABLE, f"[{alpha.id}, {beta.id}]", "Traceback ...\nOSError: no space left")]


def test_faults_in_a_row_pause_a_bot_naming_the_last_fault_and_a_clean_game_resets_the_streak(
        store: LadderStore) -> None:
    alpha = ready(store, "alice", "alpha")
    beta = ready(store, "bob", "beta")
    for _ in range(PAUSE_AFTER - 1):
        save(store, seat(alpha, 1), seat(beta, 2, "crash"))
    assert store.bot("beta").fault_streak == PAUSE_AFTER - 1  # type: ignore[union-attr]
    save(store, seat(alpha, 2), seat(beta, 1))  # a clean game
    assert store.bot("beta").fault_streak == 0  # type: ignore[union-attr]
    for _ in range(PAUSE_AFTER - 1):
        save(store, seat(alpha, 1), seat(beta, 2, "crash"))
    assert store.bot("beta").status == "active"  # type: ignore[union-attr]
    outcome = store.save_game(TABLE, store.next_unit(), 1, [seat(alpha, 1), seat(beta, 2, "timeout", "3.2 s")],
                              "timeout", 4, "", True, PAUSE_AFTER)
    paused = store.bot("beta")
    assert paused is not None and paused.status == "paused"
    assert "timeout: 3.2 s" in paused.reason and f"{PAUSE_AFTER} faulted games in a row" in paused.reason
    assert outcome.paused == [("beta", paused.reason)]
    assert store.bot("alpha").status == "active"  # type: ignore[union-attr]
    assert ("ladder", "paused", "beta") in [(a[1], a[2], a[3]) for a in store.actions()]


def test_a_ready_version_reactivates_a_bot_the_ladder_paused_but_not_one_the_organiser_ruled_on(
        store: LadderStore) -> None:
    alpha = ready(store, "alice", "alpha")
    ready(store, "bob", "beta")
    ready(store, "cat", "gamma")
    delta = ready(store, "dan", "delta")
    for _ in range(PAUSE_AFTER):
        save(store, seat(delta, 1), seat(alpha, 2, "crash"))
    store.set_status("beta", "paused", "looking into its logs", "organiser")
    store.set_status("gamma", "disqualified", "read another bot's files", "organiser")
    assert [b.status for b in store.bots()] == ["paused", "paused", "disqualified", "active"]
    for name, owner in (("alpha", "alice"), ("beta", "bob"), ("gamma", "cat")):
        ready(store, owner, name)
    fixed, held, ruled = (store.bot(n) for n in ("alpha", "beta", "gamma"))
    assert fixed is not None and (fixed.status, fixed.reason, fixed.fault_streak) == ("active", "", 0)
    assert held is not None and (held.status, held.reason) == ("paused", "looking into its logs")
    assert ruled is not None and (ruled.status, ruled.reason) == ("disqualified", "read another bot's files")


# ---- versions -----------------------------------------------------------------------------------


def test_a_bot_name_owned_by_another_entrant_is_refused(store: LadderStore) -> None:
    ready(store, "alice", "alpha")
    with pytest.raises(LadderStoreError, match="belongs to another entrant; choose another name"):
        store.add_version(entrant(store, "bob"), "alpha", "python")
    bot = store.bot("alpha")
    assert bot is not None and [v.number for v in store.versions(bot.id)] == [1]
    assert store.add_version(entrant(store, "alice"), "alpha", "c").number == 2


def test_playing_picks_the_chosen_version_over_the_newest_ready_one(store: LadderStore) -> None:
    first = ready(store, "alice", "alpha")
    second = ready(store, "alice", "alpha")
    store.add_version(entrant(store, "alice"), "alpha", "python")  # v3, still building
    assert [p.version for p in store.playing(TABLE)] == [second.id]
    store.choose_version("alpha", 1, "alice")
    assert [p.version for p in store.playing(TABLE)] == [first.id]
    save(store, seat(first, 1), seat(ready(store, "bob", "beta"), 2))
    alpha = next(p for p in store.playing(TABLE) if p.bot_name == "alpha")
    assert alpha.games == 1 and alpha.skill.mu > 25.0  # with its rating at the table
    with pytest.raises(LadderStoreError, match="no ready version 3"):
        store.choose_version("alpha", 3, "alice")


def test_versions_to_prune_keeps_the_chosen_and_newest_versions(store: LadderStore) -> None:
    alpha = [ready(store, "alice", "alpha") for _ in range(5)]
    failed = store.add_version(entrant(store, "alice"), "alpha", "python")
    store.set_version_state(failed.id, "failed", "does not compile")
    building = store.add_version(entrant(store, "alice"), "alpha", "python")
    beta = [ready(store, "bob", "beta") for _ in range(2)]
    store.choose_version("alpha", 2, "alice")
    # alpha: v1..v5 ready, v6 failed, v7 building; it plays v2. beta: v1, v2.
    assert [v.number for v in store.versions_to_prune(keep=2)] == [1, 3, 4, 5]
    assert [v.id for v in store.versions_to_prune(keep=3)] == [alpha[0].id, alpha[2].id, alpha[3].id]
    assert store.versions_to_prune(keep=7) == []
    assert [v.id for v in store.versions_to_prune(keep=0) if v.bot == beta[0].bot] == [beta[0].id]

    for version in store.versions_to_prune(keep=2):
        store.remove_version(version.id)
    bot = store.bot("alpha")
    assert bot is not None
    assert [(v.number, v.state) for v in store.versions(bot.id)] == [
        (1, "removed"), (2, "ready"), (3, "removed"), (4, "removed"), (5, "removed"), (6, "failed"),
        (7, "building")]
    assert store.versions_to_prune(keep=2) == []  # the removed ones are not counted again
    assert ("ladder", "remove version", "alpha v1") in [(a[1], a[2], a[3]) for a in store.actions()]
    assert {p.bot_name: p.number for p in store.playing(TABLE)} == {"alpha": 2, "beta": 2}
    with pytest.raises(LadderStoreError, match="chose to play"):
        store.remove_version(alpha[1].id)
    with pytest.raises(LadderStoreError, match="building"):
        store.remove_version(building.id)


def test_without_a_chosen_version_the_playing_one_is_never_pruned(store: LadderStore) -> None:
    playing = ready(store, "alice", "alpha")
    for _ in range(3):
        failed = store.add_version(entrant(store, "alice"), "alpha", "python")
        store.set_version_state(failed.id, "failed", "does not compile")
    assert store.versions_to_prune(keep=1) == [v for v in store.versions(playing.bot) if v.number in (2, 3)]
    store.remove_version(playing.id)  # the policy may still remove it: then the bot has nothing to play
    assert store.playing(TABLE) == []


# ---- the file -----------------------------------------------------------------------------------


def test_unit_numbers_go_on_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "ladder.sqlite"
    store = LadderStore.open(path)
    try:
        assert [store.next_unit() for _ in range(3)] == [1, 2, 3]
    finally:
        store.close()
    store = LadderStore.open(path, create=False)
    try:
        assert store.next_unit() == 4
    finally:
        store.close()


def _other_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes (text) VALUES ('mine')")
    db.commit()
    db.close()


def _newer_ladder(path: Path) -> None:
    LadderStore.open(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"entrants: alice, bob\n" * 100)


@pytest.mark.parametrize(("make", "fix"), [(_other_sqlite, "Move it away to start afresh"),
                                           (_newer_ladder, "upgrade the arena"),
                                           (_not_sqlite, "Restore it from a backup, or move it away")])
def test_a_file_the_store_cannot_use_is_refused_with_the_fix_and_left_unchanged(
        tmp_path: Path, make: Callable[[Path], None], fix: str) -> None:
    path = tmp_path / "ladder.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(LadderStoreError, match=fix):
        LadderStore.open(path, create=False)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ladder.sqlite"]


# ---- the leaderboard's totals against counting the games ---------------------------------------

OLD_PAIRS = f"""
    SELECT a.version, b.version, COUNT(*), SUM({queries.WIN_POINTS})
    FROM games g JOIN seats a ON a.game = g.idx AND a.seat = 0 JOIN seats b ON b.game = g.idx AND b.seat = 1
    WHERE g.tbl = ? GROUP BY a.version, b.version"""


def counted_from_seats(db: sqlite3.Connection, table: str) \
        -> tuple[dict[int, queries.VersionStats], dict[tuple[int, int], tuple[float, int]]]:
    """The totals as the pages counted them before the store kept them: one GROUP BY
    over every seat of the table's games (and pair totals by seat order)."""
    versions: dict[int, queries.VersionStats] = {}
    for version, fault, games, wins in db.execute("""
            SELECT s.version, s.fault, COUNT(*), SUM(s.rank = 1) FROM games g JOIN seats s ON s.game = g.idx
            WHERE g.tbl = ? GROUP BY s.version, s.fault""", (table,)):
        found = versions.setdefault(int(version), queries.VersionStats())
        found.games += int(games)
        found.wins += int(wins)
        if fault is not None:
            found.faults[str(fault)] = int(games)
    by_seat = {(int(a), int(b)): (float(points), int(games)) for a, b, games, points in db.execute(OLD_PAIRS, (table,))}
    return versions, by_seat


def merged(by_seat: dict[tuple[int, int], tuple[float, int]]) -> dict[tuple[int, int], tuple[float, int]]:
    """Pair totals by seat order, as (low version, high version) -> the low one's points."""
    pairs: dict[tuple[int, int], tuple[float, int]] = {}
    for (a, b), (points, games) in by_seat.items():
        key, mine = ((a, b), points) if a < b else ((b, a), games - points)
        old_points, old_games = pairs.get(key, (0.0, 0))
        pairs[key] = (old_points + mine, old_games + games)
    return pairs


def test_totals_stored_game_by_game_equal_the_counts_from_the_seats(store: LadderStore) -> None:
    rng = random.Random(3)
    versions = [ready(store, f"owner{k}", f"bot{k}") for k in range(4)]
    for _ in range(40):
        a, b = rng.sample(versions, 2)
        ranks = rng.choice([(1, 2), (2, 1), (1, 1)])
        faults = [rng.choice([None, None, "crash", "timeout"]) for _ in range(2)]
        save(store, seat(a, ranks[0], faults[0]), seat(b, ranks[1], faults[1]))
    with queries.reading(store.path) as db:
        counted, by_seat = counted_from_seats(db, TABLE)
        board = queries.board_bots(db, TABLE)
    assert stats(store).versions == counted
    assert pairs(store) == merged(by_seat)
    playing = [b.version for b in board]
    assert queries.elo_of(playing, pairs(store)) == queries.elo_of(playing, by_seat)


def test_the_board_of_100_bots_and_20000_games_from_the_totals_equals_the_board_counted_from_seats(
        tmp_path: Path) -> None:
    path = tmp_path / "ladder.sqlite"
    queries.synthetic_store(path, bots=100, games=20_000, seed=11)
    with queries.reading(path) as db:
        bots = queries.board_bots(db, TABLE)
        totals = queries.table_stats(db, TABLE)
        stored_pairs = queries.table_pairs(db, TABLE)
        counted, by_seat = counted_from_seats(db, TABLE)
        last = queries.last_game(db, TABLE)
    assert len(bots) == 100 and sum(s.games for s in counted.values()) == 40_000
    assert totals == queries.TableStats(last, counted)
    assert queries.board_rows(bots, totals, {}) == queries.board_rows(bots, queries.TableStats(last, counted), {})
    assert stored_pairs == merged(by_seat)  # the Elo fit reads the same totals (elo_from_totals takes either order)
