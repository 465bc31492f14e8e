"""Fresh deals: a league's `deals = "fresh"`, `arena play --deals fresh` and `arena match
--deals fresh` give every game a chance seed of its own, so that no deal is ever
played twice (a bot's process cannot pass a hand on to the process that would play
it again). Seats still rotate and openings still go by the rotation; `duplicate`
(the default) keeps today's seeds exactly; the records (Seed, Cycle: the game's own
number, Rotation) replay and verify; a league grows with fresh seeds, refuses a
changed `deals`, and its units still run side by side."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import Result

from arena.league.config import LeagueFileError, load_league
from arena.league.deal_locks import unit_deals
from arena.league.runner import open_league
from arena.league.schedule import ScheduledGame, build_schedule, work_units
from arena.records.files import read_record_file
from arena.records.record import GameRecord
from arena.referee.match import MatchConfig, planned_games
from arena.referee.openings import Opening
from arena.session.paired import pair_plans
from arena.session.rerun import chance_mismatch
from tests.helpers.cli import run_cli_cleanly
from tests.helpers.fake_league import NotingBots, dispatch, run_fake_league

KEY = {"ARENA_SECRET": "c3" * 16}


def league_file(tmp_path: Path, game: str = "the-tree", seats: int = 3, bots: int = 4, games: int = 6,
                deals: str | None = "fresh", extra: str = "", concurrency: int = 2) -> Path:
    entries = "".join(f'[[bots]]\nname = "b{k}"\ncommand = "random"\n' for k in range(bots))
    key = "" if deals is None else f'deals = "{deals}"\n'
    path = tmp_path / "fresh.toml"
    path.write_text(f'name = "fresh"\ngame = "{game}"\nseats = {seats}\ngames_per_pairing = {games}\n'
                    f'concurrency = {concurrency}\nseed = 5\n{key}{extra}[time]\nper_move = "5s"\n{entries}')
    return path


def cli(*args: str) -> Result:
    return run_cli_cleanly(*args, env=KEY)


def rotations(schedule: list[ScheduledGame], seats: int) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """The seatings of each table's rotation cycles."""
    cycles: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for game in schedule:
        cycles.setdefault((game.table, game.place // seats), []).append(game.seats)
    return cycles


# ---- the schedule ---------------------------------------------------------------------------


def test_fresh_deals_give_every_game_its_own_seed_and_still_rotate_the_seats(tmp_path: Path) -> None:
    league = load_league(league_file(tmp_path))
    assert league.deals == "fresh"
    schedule = build_schedule(league)
    assert len(schedule) == 4 * 6
    assert len({game.seed for game in schedule}) == len(schedule)  # no two games share a deal
    assert all(game.seed < 2**63 for game in schedule)
    for seatings in rotations(schedule, 3).values():
        assert len(seatings) == 3
        for seat in range(3):  # every bot of the table in every seat once per rotation
            assert sorted(s[seat] for s in seatings) == sorted(seatings[0])


def test_duplicate_deals_keep_exactly_the_seeds_of_before(tmp_path: Path) -> None:
    """seed * 1000 + cycle, every table's cycle c on one seed: written out, not computed."""
    for deals in (None, "duplicate"):
        schedule = build_schedule(load_league(league_file(tmp_path, deals=deals)))
        assert [game.seed for game in schedule] == [5000, 5000, 5000, 5001, 5001, 5001] * 4
        assert [game.seats for game in schedule[:6]] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)] * 2


def test_a_match_plan_with_fresh_deals_rotates_seats_and_openings_by_cycle() -> None:
    from arena import games

    book = (Opening(("a",), "one"), Opening(("b",), "two"))
    config = MatchConfig(games.get("the-tree"), {}, seed=9, games=6, openings=book, deals="fresh")
    plan = planned_games(config, 3)
    assert [p.seed for p in plan] == [9000, 9001, 9002, 9003, 9004, 9005]
    assert [p.origin for p in plan] == [(9, n) for n in range(6)]
    assert [p.rotation for p in plan] == [0, 0, 0, 1, 1, 1]
    assert [p.seats for p in plan] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)] * 2
    assert [p.opening.name if p.opening else "" for p in plan] == ["one"] * 3 + ["two"] * 3
    duplicate = planned_games(MatchConfig(games.get("the-tree"), {}, seed=9, games=6), 3)
    assert [p.seed for p in duplicate] == [9000] * 3 + [9001] * 3 and {p.rotation for p in duplicate} == {None}
    pairs = [p for table in pair_plans(6, 4, 2, deals="fresh") for p in table]
    assert sorted(p.seed for p in pairs) == [4000, 4001, 4002, 4003, 4004, 4005]
    assert sorted((p.rotation, p.seats) for p in pairs) == [(k, s) for k in range(3) for s in ((0, 1), (1, 0))]


def test_a_growing_league_keeps_its_stored_seeds_and_deals_fresh_ones(tmp_path: Path) -> None:
    path = league_file(tmp_path, bots=3, games=3)
    store, first = open_league(load_league(path))
    store.close()
    assert [g.seed for g in first] == [5000, 5001, 5002]
    path = league_file(tmp_path, bots=4, games=6)  # a bot added and games_per_pairing raised
    store, grown = open_league(load_league(path))
    store.close()
    assert {g.index: g.seed for g in grown if g.index < 3} == {0: 5000, 1: 5001, 2: 5002}
    assert len(grown) == 4 * 6 and len({g.seed for g in grown}) == len(grown)
    assert sorted(g.index for g in grown) == list(range(24))
    assert all(g.seed == 5000 + g.index for g in grown)  # the deal number is the game's schedule index
    for seatings in rotations(grown, 3).values():
        assert all(sorted(s[seat] for s in seatings) == sorted(seatings[0]) for seat in range(3))
    store, again = open_league(load_league(path))  # run again: the same seeds, nothing new
    store.close()
    assert [(g.index, g.seed) for g in again] == [(g.index, g.seed) for g in grown]


# ---- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after", "shown"), [
    (None, "fresh", "'duplicate' -> 'fresh'"),
    ("duplicate", "fresh", "'duplicate' -> 'fresh'"),
    ("fresh", "duplicate", "'fresh' -> 'duplicate'"),
    ("fresh", None, "'fresh' -> 'duplicate'"),  # taken out of the file: the default, a change too
])
def test_changing_deals_on_a_stored_league_is_refused_naming_the_key(tmp_path: Path, before: str | None,
                                                                      after: str | None, shown: str) -> None:
    store, _ = open_league(load_league(league_file(tmp_path, deals=before)))
    store.close()
    result = cli("league", "run", str(league_file(tmp_path, deals=after)), "-q")
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert f"the league file's 'deals' changed since this league started ({shown})" in said


def test_a_bad_deals_value_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(LeagueFileError, match=r'deals: .*not a way to deal; write "duplicate" or "fresh"'):
        load_league(league_file(tmp_path, deals="random"))


def test_taking_the_openings_out_of_a_stored_league_is_refused(tmp_path: Path) -> None:
    """A key the identity holds only when set (openings, random_opening, deals) counts as
    its default when taken out of the file: a change, refused like the others."""
    store, _ = open_league(load_league(league_file(tmp_path, game="btt", seats=2, deals=None,
                                                  extra="random_opening = 2\n")))
    store.close()
    result = cli("league", "run", str(league_file(tmp_path, game="btt", seats=2, deals=None)), "-q")
    assert result.exit_code == 2
    assert "the league file's 'random_opening' changed since this league started (2 -> 0)" in " ".join(
        result.output.split())


# ---- played: records, verify, rerun ---------------------------------------------------------------


def deal_of(record: GameRecord) -> str:
    """The game's deal: its first ply, the chance outcome that deals The Tree's tiles."""
    assert record.plies[0].chance
    return record.plies[0].action


def test_a_fresh_league_of_the_tree_deals_every_game_differently_and_replays(tmp_path: Path) -> None:
    path = league_file(tmp_path, seats=2, bots=2, games=4)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    records = sorted(read_record_file(load_league(path).records), key=lambda r: r.tags["Round"])
    assert len(records) == 4
    assert len({deal_of(r) for r in records}) == 4
    assert [(r.tags["Seed"], r.tags["Cycle"], r.tags["Rotation"]) for r in records] == [
        ("5", "0", "0"), ("5", "1", "0"), ("5", "2", "1"), ("5", "3", "1")]
    assert [r.players for r in records] == [["b0", "b1"], ["b1", "b0"]] * 2
    verified = cli("verify", str(load_league(path).records))
    assert verified.exit_code == 0 and "4 game(s) verified" in verified.output
    again = tmp_path / "again.pgn"
    rerun = cli("rerun", str(load_league(path).records), "--game", "3", "--league", str(path), "--out", str(again))
    assert rerun.exit_code == 0, rerun.output
    said = " ".join(rerun.output.split())
    original = read_record_file(load_league(path).records)[2]  # the file's third game (in the order they ended)
    cycle, rotation = original.tags["Cycle"], original.tags["Rotation"]
    assert f"Seed 5, Cycle {cycle} (fresh deals: rotation {rotation})" in said and "warning" not in said
    replayed = read_record_file(again)[0]
    assert deal_of(replayed) == deal_of(original)
    assert (replayed.tags["Cycle"], replayed.tags["Rotation"]) == (original.tags["Cycle"], original.tags["Rotation"])


def test_a_fresh_match_deals_four_games_differently_and_refuses_a_changed_deals_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "x.pgn"
    base = ["match", "random", "greedy", "-g", "the-tree", "--time-per-move", "5s", "-q", "--out", str(out)]
    result = cli(*base, "-n", "4", "--deals", "fresh")
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    assert len(records) == 4 and len({deal_of(r) for r in records}) == 4
    assert [(r.tags["Cycle"], r.tags["Rotation"]) for r in records] == [("0", "0"), ("1", "0"), ("2", "1"),
                                                                         ("3", "1")]
    assert [r.players for r in records] == [["random", "greedy"], ["greedy", "random"]] * 2
    for asked in (["--deals", "duplicate"], []):  # the default is duplicate: refused as well
        refused = cli(*base, "-n", "6", *asked)
        assert refused.exit_code == 2
        assert "played with --deals fresh; this one gives duplicate" in " ".join(refused.output.split())
    assert len(read_record_file(out)) == 4  # nothing played


def test_play_with_fresh_deals_keeps_random_openings_by_rotation_and_replays_them(tmp_path: Path) -> None:
    """BTT has no chance: fresh deals change only the seeds, and a random opening still
    goes by the rotation (both games of a pair start from it), drawn again by rerun."""
    out = tmp_path / "games.pgn"
    result = cli("play", "btt", "greedy", "random", "-n", "4", "--seed", "6", "--deals", "fresh",
                 "--random-opening", "3", "--time-per-move", "5s", "-q", "--out", str(out))
    assert result.exit_code == 0, result.output
    records = read_record_file(out)
    openings = [tuple(p.action for p in r.plies[:3]) for r in records]
    assert openings[0] == openings[1] != openings[2] == openings[3]
    assert [r.tags["Cycle"] for r in records] == ["0", "1", "2", "3"]
    key = bytes.fromhex(KEY["ARENA_SECRET"])
    assert all(chance_mismatch(r, key) is None for r in records)
    rerun = cli("rerun", str(out), "--game", "4")
    assert rerun.exit_code == 0 and "the game went as recorded" in rerun.output, rerun.output


# ---- units: nothing shared, nothing waits -------------------------------------------------------


def test_units_of_fresh_deals_share_no_deal_and_never_wait(tmp_path: Path) -> None:
    """3 seats and 4 bots: every two tables share bots, so duplicate deals play one
    table at a time per cycle; fresh deals share nothing: a unit per table, all of them
    startable at once, and no more bot processes than duplicate deals start."""
    (tmp_path / "fresh").mkdir()
    (tmp_path / "duplicate").mkdir()
    fresh = load_league(league_file(tmp_path / "fresh", deals="fresh", games=12))
    duplicate = load_league(league_file(tmp_path / "duplicate", deals="duplicate", games=12))
    schedule = build_schedule(fresh)
    units = work_units(schedule, 3, 2, fresh.shares_deals)
    assert len(units) == 4 * 4 and all(len({g.table for g in unit}) == 1 for unit in units)
    deals = [unit_deals(unit, fresh.game.has_chance) for unit in units]
    assert all(deals) and sum(len(d) for d in deals) == len(frozenset().union(*deals))  # pairwise disjoint
    for trial in range(20):
        started = dispatch(units, 2, random.Random(trial))
        assert sorted(g.index for unit in started for g in unit) == list(range(len(schedule)))
    lives = {}
    for league in (fresh, duplicate):
        noting = NotingBots(3)
        assert run_fake_league(league, noting) == 4 * 12
        assert all(life.ended >= 0 for life in noting.lives)
        lives[league.deals] = len(noting.lives)
    assert lives["fresh"] == 4 * 4 * 3 < lives["duplicate"]  # a table's bots start once a cycle and serve it


def test_no_seed_repeats_in_a_fresh_league_of_roots(tmp_path: Path) -> None:
    schedule = build_schedule(load_league(league_file(tmp_path, game="roots", seats=2, bots=5, games=8)))
    assert max(Counter(g.seed for g in schedule).values()) == 1
