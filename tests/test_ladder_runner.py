"""The ladder's runner with real bots: units rotate seats over one deal of their own,
a new version plays first, two versions of one entrant never meet, both slots play,
and a bot that crashes game after game is paused with the reason (and resumes with a
fixed version)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
import trio

from arena.ladder.config import Ladder
from arena.ladder.runner import LadderRunner, unit_seed
from arena.ladder.service import init_ladder
from arena.ladder.store import LadderStore
from arena.ladder.submissions import version_folder
from arena.process.sandbox import probe

RANDOM_BOT = Path(__file__).resolve().parents[1] / "bots" / "random_bot.py"
CRASHING_BOT = '''import sys
for line in sys.stdin:
    if '"hello"' in line:
        print('{"type": "ready", "name": "crash", "observation": false}', flush=True)
    elif '"request"' in line:
        sys.exit(3)
'''

pytestmark = pytest.mark.skipif(probe().bwrap is None, reason="the ladder runs bots only in its sandbox")


def _ladder(tmp_path: Path, games: list[str], **changes: object) -> Ladder:
    ladder = init_ladder(tmp_path / "ladder", "test", games)
    return dataclasses.replace(ladder, **{"concurrency": 2, "min_games": 2, **changes})  # type: ignore[arg-type]


def _enter(store: LadderStore, ladder: Ladder, entrant: str, bot: str, source: str) -> int:
    """A ready Python version of `bot` (its check skipped: the runner is what is tested)."""
    owner = store.entrant(entrant)
    number = owner.id if owner is not None else store.add_entrant(entrant, "!")
    version = store.add_version(number, bot, "python")
    folder = version_folder(ladder, version.bot, version.number)
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    store.set_version_state(version.id, "ready", "ready")
    return version.id


def _play(ladder: Ladder, store: LadderStore, games: int) -> LadderRunner:
    runner = LadderRunner(ladder, store)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(runner.run)
            with trio.fail_after(240):
                while runner.games_played < games:  # noqa: ASYNC110 - the runner has no event per game
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return runner


def _seated(path: Path) -> list[tuple[int, str, int, int, list[int]]]:
    """(game, table, unit, seed, versions by seat) of every stored game."""
    db = sqlite3.connect(path)
    try:
        games = db.execute("SELECT idx, tbl, unit, seed FROM games ORDER BY idx").fetchall()
        seats = db.execute("SELECT game, version FROM seats ORDER BY game, seat").fetchall()
    finally:
        db.close()
    by_game: dict[int, list[int]] = {}
    for game, version in seats:
        by_game.setdefault(game, []).append(version)
    return [(g, t, u, s, by_game[g]) for g, t, u, s in games]


def test_units_rotate_seats_on_a_deal_of_their_own(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, ["the-tree"])
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben", "cat", "dan"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    runner = _play(ladder, store, 12)
    games = _seated(ladder.database)
    units: dict[int, list[tuple[int, str, int, int, list[int]]]] = {}
    for game in games:
        units.setdefault(game[2], []).append(game)
    whole = [u for u in units.values() if len(u) == 2]
    assert len(whole) >= 4
    for unit in whole:
        (first, second) = unit
        assert first[4] == second[4][::-1]  # every version plays every seat once
        assert first[3] == second[3] == unit_seed(store.secret, first[2])  # one deal per unit
    seeds = {unit[0][3] for unit in units.values()}
    assert len(seeds) == len(units)  # no deal at two units
    assert runner.clock.busy > 0
    store.close()


def test_a_new_version_plays_first_and_an_entrant_never_meets_itself(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, ["btt"], min_games=4, concurrency=1)
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben", "cat"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    _play(ladder, store, 12)
    late = _enter(store, ladder, "ann", "ann-two", RANDOM_BOT.read_text())  # a second bot of ann's
    start = max(g[0] for g in _seated(ladder.database))
    _play(ladder, store, 4)
    after = [g for g in _seated(ladder.database) if g[0] > start]
    assert sum(late in g[4] for g in after[:4]) == 4  # the new version is in each of the first games
    for game in _seated(ladder.database):
        assert not {1, late} <= set(game[4])  # ann's two bots never at one table
    store.close()


def test_a_bot_that_keeps_crashing_is_paused_and_a_fixed_version_resumes_it(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, ["btt"], pause_after_faults=3, concurrency=1)
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    _enter(store, ladder, "cat", "cat", CRASHING_BOT)
    _play(ladder, store, 14)
    cat = store.bot("cat")
    assert cat is not None and cat.status == "paused"
    assert "3 faulted games in a row" in cat.reason and "crash" in cat.reason
    assert any(action == "paused" and subject == "cat" for _, _, action, subject, _ in store.actions())
    played = [g for g in _seated(ladder.database) if 3 in g[4]]
    assert len(played) >= 3
    _enter(store, ladder, "cat", "cat", RANDOM_BOT.read_text())
    resumed = store.bot("cat")
    assert resumed is not None and resumed.status == "active"
    store.close()


def test_stored_games_hold_the_labels_and_records(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, ["btt"])
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    _play(ladder, store, 2)
    db = sqlite3.connect(ladder.database)
    record = db.execute("SELECT record FROM games ORDER BY idx LIMIT 1").fetchone()[0]
    db.close()
    assert "ann v1" in record and "ben v1" in record


def test_a_three_seat_table_rotates_three_versions(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path, ["btt"], concurrency=1)
    table = dataclasses.replace(ladder.tables[0], key="btt-3", seats=3)
    ladder = dataclasses.replace(ladder, tables=(table,))
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben", "cat", "dan"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    _play(ladder, store, 6)
    games = _seated(ladder.database)
    first_unit = [g for g in games if g[2] == games[0][2]]
    assert len(first_unit) == 3 and all(len(g[4]) == 3 for g in first_unit)
    seatings = [g[4] for g in first_unit]
    for seat in range(3):
        assert sorted(s[seat] for s in seatings) == sorted(seatings[0])  # each version once in each seat
    db = sqlite3.connect(ladder.database)
    try:
        assert db.execute("SELECT COUNT(*) FROM pair_totals").fetchone()[0] == 0  # Elo is for two seats only
        assert db.execute("SELECT COUNT(*) FROM ratings WHERE tbl = 'btt-3'").fetchone()[0] >= 3
    finally:
        db.close()
    store.close()


def test_a_game_the_arena_itself_breaks_is_void_never_scored_and_its_bot_paused(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.records.record import Ply
    from arena.referee import referee

    original = referee.Referee._record

    def fail_at_trouble(self: referee.Referee, ply: Ply) -> None:
        if len(self.plies) == 3 and any(p.name.startswith("trouble") for p in self.players):
            raise RuntimeError("an error only this bot's games meet")
        original(self, ply)

    monkeypatch.setattr(referee.Referee, "_record", fail_at_trouble)
    ladder = _ladder(tmp_path, ["btt"], concurrency=1)
    store = LadderStore.open(ladder.database)
    for name in ("ann", "ben", "trouble"):
        _enter(store, ladder, name, name, RANDOM_BOT.read_text())
    _play(ladder, store, 6)
    trouble = 3
    assert all(trouble not in game[4] for game in _seated(ladder.database))  # none of its games was scored
    db = sqlite3.connect(ladder.database)
    try:
        voids = db.execute("SELECT versions, error FROM void").fetchall()
        rated = db.execute("SELECT COUNT(*) FROM ratings WHERE version = ?", (trouble,)).fetchone()[0]
    finally:
        db.close()
    assert voids and all(trouble in json.loads(versions) for versions, _ in voids)
    assert "an error only this bot's games meet" in voids[0][1]
    assert rated == 0
    # Seated again and again (it stays uncertain), it would void every unit: after its last
    # three units, against both others, were voided, it is paused and the others play on.
    trouble_bot = store.bot("trouble")
    assert trouble_bot is not None and trouble_bot.status == "paused"
    assert "the arena's own error" in trouble_bot.reason
    assert store.bot("ann").status == store.bot("ben").status == "active"  # type: ignore[union-attr]
    assert "an error only this bot's games meet" in (ladder.logs / "arena-errors.log").read_text()
    store.close()
