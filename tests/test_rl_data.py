"""From what the arena writes to RL arrays (arena/rl/data.py): a bot's real start and
request messages to a bridge position, and real records (a PGN file, an open file, a
league's database) to observations, ids, seats and returns."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import arena
from arena import records
from arena.league.schedule import ScheduledGame
from arena.league.store import LeagueStore
from arena.rl import RLError
from arena.rl.bridge import Bridge
from arena.rl.data import MessageTracker, position_from_messages, records_to_arrays

RECORDING_BOT = Path(__file__).with_name("recording_bot.py")


@pytest.fixture(scope="module")
def btt_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("records") / "btt.pgn"
    arena.play("btt", ["random", "random"], games=2, out=out, sandbox=False, seed=5)
    return out


def utility(ranks: tuple[int, ...], seat: int) -> float:
    return sum((ranks[seat] < r) - (ranks[seat] > r) for r in ranks) / (len(ranks) - 1)


def test_a_record_file_becomes_one_row_per_decision_with_the_seats_return(btt_records: Path) -> None:
    games = list(records.read(btt_records))
    d = records_to_arrays(btt_records)
    assert len(d) == sum(len(g.plies) for g in games) == 64
    assert d.observations.shape == (64, 302) and d.observations.dtype == np.float32
    assert list(d.games) == [0] * 32 + [1] * 32 and list(d.dones).count(True) == 2 and d.dones[31] and d.dones[63]
    for row in range(len(d)):
        ranks = games[int(d.games[row])].ranks
        assert ranks is not None and d.returns[row] == utility(ranks, int(d.seats[row]))
    # the rows replay the games: each observation is the env's, each id the record's action
    bridge = Bridge("btt", 2)
    position = bridge.new_position()
    for row in range(32):
        assert position.current() == d.seats[row]
        assert np.array_equal(position.tensor(int(d.seats[row])), d.observations[row])
        assert bridge.codec.names[int(d.actions[row])] == games[0].plies[int(d.plies[row]) - 1].action
        position.apply(int(d.actions[row]))
    assert position.is_terminal()


def test_one_seat_masks_and_open_files(btt_records: Path) -> None:
    d = records_to_arrays(btt_records, seat=1, masks=True)
    assert set(d.seats) == {1} and len(d) == 32
    assert d.masks is not None and d.masks.shape == (32, 377)
    assert all(d.masks[row, d.actions[row]] == 1 for row in range(len(d)))
    whole = records_to_arrays(btt_records).as_dict()
    for handle in (io.StringIO(btt_records.read_text()), io.BytesIO(btt_records.read_bytes())):
        again = records_to_arrays(handle).as_dict()
        assert again.keys() == whole.keys() and all(np.array_equal(again[k], whole[k]) for k in whole)
    assert len(records_to_arrays(btt_records, max_games=1)) == 32
    assert len(records_to_arrays(btt_records, game="roots")) == 0


def test_a_league_folder_or_its_database_reads_like_the_file(btt_records: Path, tmp_path: Path) -> None:
    database = tmp_path / "league.sqlite"
    store = LeagueStore.open(database, {"game": "btt"})
    try:
        games = list(records.read(btt_records))
        scheduled = [ScheduledGame(i, 0, (0, 1), 5, "1") for i in range(len(games))]
        store.extend(["random", "random-2"], scheduled)
        for game, record in zip(scheduled, games):
            assert record.ranks is not None
            store.save_game(game, record.ranks, record.scores, [], "normal", record)
    finally:
        store.close()
    expected = records_to_arrays(btt_records)
    for source in (tmp_path, database, str(database)):
        found = records_to_arrays(source)
        assert np.array_equal(found.actions, expected.actions)
        assert np.array_equal(found.returns, expected.returns)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RLError, match="league.sqlite"):
        records_to_arrays(empty)


def test_records_of_two_settings_are_refused_and_a_forfeit_uses_its_ranks(btt_records: Path) -> None:
    games = list(records.read(btt_records))
    three = records.GameRecord(dict(games[0].tags, Seats="3"), [])
    with pytest.raises(RLError, match="one numbering"):
        records_to_arrays([games[0], three])
    cut = records.GameRecord(dict(games[0].tags, Ranks="2,1", Termination="time forfeit"), games[0].plies[:5])
    d = records_to_arrays([cut])
    assert len(d) == 5 and list(d.returns) == [-1.0 if s == 0 else 1.0 for s in d.seats]


@pytest.mark.parametrize("game", ["btt", "the-tree"])
def test_a_bots_real_messages_give_the_position_it_is_asked_about(game: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("RECORDING_BOT_FILE", str(log))
    arena.play(game, [f"{sys.executable} {RECORDING_BOT}", "random"], games=2, sandbox=False, seed=3, time=5.0)
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    tracker = MessageTracker(random.Random(1))
    start: dict[str, object] = {}
    requests = 0
    for message in messages:
        if message["type"] == "start":
            start = message
        elif message["type"] == "request":
            position = position_from_messages(start, message, tracker)
            seat = int(str(start["seat"]))
            assert position.current() == seat
            assert sorted(position.codec.names[i] for i in position.legal()) == sorted(message["legal"])
            assert position.state.observation(seat) == message["observation"]
            requests += 1
    assert {m["seat"] for m in messages if m["type"] == "start"} == {0, 1}  # the seats rotate: two games
    assert requests >= 10


def test_a_request_out_of_order_is_refused() -> None:
    start = {"type": "start", "game": "btt", "options": {"board": "wedge"}, "seat": 0, "seats": 2}
    first = {"type": "request", "ply": 1}
    later = {"type": "request", "ply": 5, "events": [{"ply": 3, "seat": 0, "action": "3h3>h2"},
                                                     {"ply": 4, "seat": 1, "action": "3g2>h2"}]}
    tracker = MessageTracker()
    assert position_from_messages(start, first, tracker).current() == 0
    with pytest.raises(RLError, match="in order"):
        position_from_messages(start, later, tracker)
    hidden = {"type": "start", "game": "the-tree", "options": {}, "seat": 0, "seats": 2}
    with pytest.raises(RLError, match="observation"):
        position_from_messages(hidden, {"type": "request", "ply": 2}, tracker)
