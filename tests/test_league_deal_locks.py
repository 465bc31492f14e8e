"""One entrant never holds one deal at two tables at once (arena.league.deal_locks).

A league deals duplicate: cycle c of every table is on one seed. A bot with live
processes at two tables of one cycle could pass the hidden hands (The Tree) or the
coming dice (Roots) between them. The rule: in a game with chance, two units of work
sharing a bot and a seed never run at once, a unit's processes living no longer than
the unit. Checked three ways: the dispatcher alone over every finishing order it may
meet (no two running units share a deal, every game played once, never stuck); a
league of in-memory bots that note when each of their processes lives and which
cycles it sees; and sandboxed recording bots with a clock (tests/recording_bot.py)
whose logs give each game's and each process's time and what it was told. The Dask
executor's share is in tests/test_cluster.py.
"""

from __future__ import annotations

import itertools
import random
from itertools import combinations
from pathlib import Path

import pytest

from arena.league.config import load_league
from arena.league.deal_locks import unit_deals
from arena.league.schedule import build_schedule, work_units
from arena.records.files import read_record_file
from arena.session.paired import deal
from tests.helpers.cli import run_cli
from tests.helpers.deal_memory import Memory, Sharing, remembered, shared, timed_league
from tests.helpers.fake_league import NotingBots, dispatch, run_fake_league

# ---- the dispatcher alone ------------------------------------------------------------------


def tree_league(tmp_path: Path, seats: int, bots: int, games: int, concurrency: int = 2,
                game: str = "the-tree") -> Path:
    entries = "".join(f'[[bots]]\nname = "b{k}"\ncommand = "random"\n' for k in range(bots))
    path = tmp_path / "league.toml"
    path.write_text(f'name = "deals"\ngame = "{game}"\nseats = {seats}\ngames_per_pairing = {games}\n'
                    f'concurrency = {concurrency}\nseed = 5\n[time]\nper_move = "5s"\n{entries}')
    return path


@pytest.mark.parametrize(("seats", "bots"), [(3, 4), (4, 5), (2, 4)])
@pytest.mark.parametrize("concurrency", [2, 4])
@pytest.mark.parametrize("cycles", [3, 8])
def test_the_dispatcher_never_runs_two_units_sharing_a_bot_and_a_seed(tmp_path: Path, seats: int, bots: int,
                                                                       concurrency: int, cycles: int) -> None:
    league = load_league(tree_league(tmp_path, seats, bots, cycles * seats, concurrency))
    schedule = build_schedule(league)
    units = work_units(schedule, seats, concurrency, chance=True)
    assert all(len({g.table for g in unit}) == 1 and len({g.cycle for g in unit}) == 1 for unit in units)
    assert max(len(unit) for unit in units) == seats
    assert [u[0].cycle for u in units] == sorted(u[0].cycle for u in units)  # cycle by cycle, rounds within
    for trial in range(200):
        started = dispatch(units, concurrency, random.Random(trial))
        played = sorted(g.index for unit in started for g in unit)
        assert played == [g.index for g in schedule]  # every game once


def test_units_of_a_game_without_chance_hold_no_deal(tmp_path: Path) -> None:
    league = load_league(tree_league(tmp_path, 3, 4, 6, game="btt"))
    units = work_units(build_schedule(league), 3, 2, chance=league.game.has_chance)
    assert len(units) == 4 * 2 and not any(unit_deals(unit, league.game.has_chance) for unit in units)
    started = dispatch(units, 2, random.Random(1))
    assert len(started) == 4 * 2


def test_a_paired_match_never_deals_one_seed_to_two_tables() -> None:
    """`arena match --concurrency N`: the two games of a pair (one seed and opening,
    seats swapped) go to one table, so no seed is ever played at two tables; resumed
    with a pair half played, too."""
    for tables in (1, 2, 3, 4):
        for numbers in (list(range(20)), [n for n in range(20) if n not in (4, 7, 8)]):
            seen: dict[int, int] = {}
            for table, games in enumerate(deal(numbers, 9, tables)):
                for _, planned in games:
                    assert seen.setdefault(planned.seed, table) == table


# ---- a league of in-memory bots that note their lives -------------------------------------


@pytest.mark.parametrize(("game", "seats", "bots", "concurrency", "cycles"),
                         [("the-tree", 3, 4, 2, 2), ("the-tree", 3, 4, 2, 8), ("the-tree", 4, 5, 4, 2),
                          ("roots", 2, 4, 4, 2), ("roots", 2, 4, 2, 4)])
def test_no_process_lives_beside_another_of_its_bot_that_saw_its_deal(tmp_path: Path, game: str, seats: int,
                                                                        bots: int, concurrency: int,
                                                                        cycles: int) -> None:
    """Units of one cycle, or of a span of cycles (at concurrency 2, The Tree's 8 cycles
    in spans of 2; Roots' 4 in spans of 2, its 4 bots making two tables that share no
    bot)."""
    league = load_league(tree_league(tmp_path, seats, bots, cycles * seats, concurrency, game))
    noting = NotingBots(seats)
    games = run_fake_league(league, noting)
    assert games == len(build_schedule(league))
    assert noting.lives and all(life.ended >= 0 for life in noting.lives)
    assert noting.overlaps() == []
    # ... while units of one cycle that share no bot, or of other cycles, do run at once.
    assert any(a.began < b.ended and b.began < a.ended for a, b in itertools.combinations(noting.lives, 2)
               if a.bot == b.bot)


def test_a_game_without_chance_keeps_a_process_per_table_and_cycle(tmp_path: Path) -> None:
    """BTT (no chance, nothing hidden): a table's bots start once for each rotation
    cycle, the unit that lets the tables take turns round by round."""
    league = load_league(tree_league(tmp_path, 2, 3, 6, 2, "btt"))
    noting = NotingBots(2)
    run_fake_league(league, noting)
    assert len(noting.lives) == 3 * 3 * 2  # three tables, three cycles each, two bots


# ---- sandboxed recording bots with a clock ------------------------------------------------


def timed_run(tmp_path: Path, seats: int, bots: int, games: int, concurrency: int) -> tuple[Sharing, Memory]:
    result = run_cli("league", "run", str(timed_league(tmp_path, seats, bots, games, concurrency)), "-q",
                     "--force-concurrency")  # a 2-core machine: more tables than cores on purpose
    assert result.exit_code == 0, result.output
    records = read_record_file(tmp_path / "timed" / "league.pgn")
    assert len(records) == len(list(combinations(range(bots), seats))) * games
    assert all(r.termination == "normal" for r in records)
    logs = sorted((tmp_path / "timed" / "logs").rglob("*.log"))
    return shared(logs, records), remembered(logs, records)


def test_no_bot_plays_one_deal_at_two_tables_at_once(tmp_path: Path) -> None:
    """3 seats, 4 bots, 2 cycles, concurrency 2: every two tables share two bots, so a
    cycle is played table after table, while the other cycle's tables play beside it."""
    sharing, memory = timed_run(tmp_path, 3, 4, 6, 2)
    assert sharing.games == 4 * 6 * 3
    assert (sharing.overlapping_games, sharing.overlapping_processes, sharing.tiles) == (0, 0, 0), sharing
    assert (memory.remembering, memory.tiles) == (0, 0), memory


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "bots", "concurrency"), [(3, 4, 4), (4, 5, 2), (4, 5, 4)])
def test_no_bot_plays_one_deal_at_two_tables_at_once_at_every_size(tmp_path: Path, seats: int, bots: int,
                                                                     concurrency: int) -> None:
    sharing, memory = timed_run(tmp_path, seats, bots, 2 * seats, concurrency)
    assert sharing.games == len(list(combinations(range(bots), seats))) * 2 * seats * seats
    assert (sharing.overlapping_games, sharing.overlapping_processes, sharing.tiles) == (0, 0, 0), sharing
    assert (memory.remembering, memory.tiles) == (0, 0), memory
