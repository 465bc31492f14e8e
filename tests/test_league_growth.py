"""A league that grows: adding a bot or raising games_per_pairing plays only the new
games (every stored game keeps its number, seats, seeds and record); removing a bot
keeps its games stored and out of the table unless asked; lowering games_per_pairing
below what a table played is refused; every other key of the league still refuses a
change. Also the league's `anchor` (in every export) and `event` keys."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from arena.league.config import LeagueFileError, load_league
from arena.league.live import LiveLeagueView
from arena.league.runner import LeagueProgress, open_league
from arena.records.files import read_record_file
from arena.session.league import league_standings
from arena.web.live import LeagueResults
from tests.helpers.cli import run_cli_cleanly as cli

HEAD = """
name = "growing"
game = "btt"
seed = 3
concurrency = 2
games_per_pairing = {games}
{extra}
[time]
per_move = "2s"
"""


def league(tmp_path: Path, bots: list[tuple[str, str]], games: int = 2, extra: str = "") -> Path:
    path = tmp_path / "grow.toml"
    entries = "".join(f'\n[[bots]]\nname = "{name}"\ncommand = "{command}"\n' for name, command in bots)
    path.write_text(HEAD.format(games=games, extra=extra) + entries)
    return path


def run(path: Path) -> str:
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def by_round(path: Path) -> dict[str, tuple[str, str, str, str]]:
    """Each stored record by round: its seats, Seed/Cycle, BotSeeds, and whole text's moves."""
    records = read_record_file(load_league(path).records)
    assert len({r.tags["Round"] for r in records}) == len(records)
    return {r.tags["Round"]: (" v ".join(r.players), f"{r.tags['Seed']}/{r.tags.get('Cycle', '')}",
                              r.tags.get("BotSeeds", ""), " ".join(p.action for p in r.plies)) for r in records}


def stored_indices(path: Path) -> list[int]:
    with sqlite3.connect(load_league(path).database) as db:
        return [i for (i,) in db.execute("SELECT idx FROM games ORDER BY idx")]


def test_adding_a_bot_plays_only_its_games_and_keeps_every_stored_one(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy")])
    run(path)
    before = by_round(path)
    assert sorted(before) == ["1.1", "1.2"]
    # The new bot goes first in the file: the stored games must not move.
    path = league(tmp_path, [("n", "random"), ("a", "random"), ("b", "greedy")])
    said = run(path)
    assert "growing: 1 bot(s) added (n); 4 new game(s) scheduled" in said
    after = by_round(path)
    assert sorted(after) == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    assert {r: after[r] for r in before} == before  # the same games, seeds and bot seeds, untouched
    assert stored_indices(path) == list(range(6))
    bot_seeds: dict[str, set[str]] = {}
    for players, _, seeds, _ in after.values():
        for name, seed in zip(players.split(" v "), seeds.split(","), strict=True):
            bot_seeds.setdefault(name, set()).add(seed)
    assert all(len(seeds) == 1 for seeds in bot_seeds.values()), bot_seeds  # a bot keeps its ARENA_BOT_SEED
    assert len({next(iter(seeds)) for seeds in bot_seeds.values()}) == 3
    new_games = [after[r] for r in ("2.1", "2.2", "3.1", "3.2")]
    assert all(seed == before["1.1"][1] for _, seed, _, _ in new_games[::2])  # cycle 0 of every table: one seed
    assert "already played" in run(path)


def test_raising_games_per_pairing_plays_the_new_rotations_alone(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy"), ("c", "random")])
    run(path)
    before = by_round(path)
    path = league(tmp_path, [("a", "random"), ("b", "greedy"), ("c", "random")], games=4)
    assert "6 new game(s) scheduled" in run(path)
    after = by_round(path)
    assert {r: after[r] for r in before} == before
    assert sorted(after) == sorted(f"{t}.{g}" for t in (1, 2, 3) for g in (1, 2, 3, 4))
    assert after["1.3"][1] == after["2.3"][1] != after["1.1"][1]  # cycle 1's seed, the same on every table
    standings, total, _ = league_standings(load_league(path))
    assert total == 12 and standings.games == 12


def test_a_removed_bot_keeps_its_games_stored_but_out_of_the_table(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy"), ("c", "random")])
    run(path)
    path = league(tmp_path, [("a", "random"), ("c", "random")])
    said = run(path)
    assert "b no longer in the league file (their games stay stored, out of the table" in said
    assert stored_indices(path) == list(range(6))
    data = json.loads(cli("league", "table", str(path), "-f", "json").stdout)
    assert [row["bot"] for row in data["standings"]] and {row["bot"] for row in data["standings"]} == {"a", "c"}
    assert data["games"] == 2 and all(row["games"] == 2 for row in data["standings"])
    assert set(data["head_to_head"]) == {"a", "c"}
    full = json.loads(cli("league", "table", str(path), "-f", "json", "--include-removed").stdout)
    assert {row["bot"]: row["games"] for row in full["standings"]} == {"a": 4, "b (removed)": 4, "c": 4}
    assert full["games"] == 6
    # Back in the file, the bot gets its own games back, nothing replayed.
    path = league(tmp_path, [("a", "random"), ("b", "greedy"), ("c", "random")])
    assert "already played" in run(path)


def test_lowering_games_per_pairing_below_what_was_played_is_refused(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], games=4)
    run(path)
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], games=2)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "games_per_pairing: 2 is fewer games than some tables have played (2 stored game(s) lie beyond it" in said
    assert "set it to 4 or more" in said


def test_lowering_games_per_pairing_drops_the_games_not_played(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], games=6)
    store, schedule = open_league(load_league(path))  # scheduled, none played (stopped at once)
    store.close()
    assert len(schedule) == 6
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], games=2)
    run(path)
    assert sorted(by_round(path)) == ["1.1", "1.2"]


@pytest.mark.parametrize(("key", "before", "after"), [
    ("seats", "seats = 2", "seats = 3"),
    ("options", "", 'options = { board = "rect" }'),
    ("schedule", "", 'schedule = "gauntlet"\ngauntlet = "a"'),
])
def test_every_other_key_still_refuses_a_change(tmp_path: Path, key: str, before: str, after: str) -> None:
    bots = [("a", "random"), ("b", "greedy"), ("c", "random")]
    path = league(tmp_path, bots, games=6, extra=before)
    store, _ = open_league(load_league(path))
    store.close()
    path = league(tmp_path, bots, games=6, extra=after)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 2
    assert f"the league file's '{key}' changed since this league started" in " ".join(result.output.split())


def test_the_anchor_is_pinned_in_every_export(tmp_path: Path) -> None:
    bots = [("a", "random"), ("b", "greedy"), ("c", "random")]
    path = league(tmp_path, bots)
    run(path)
    free = {row["bot"]: row["rating"] for row in json.loads(cli("league", "table", str(path), "-f", "json")
                                                                 .stdout)["standings"]}
    path = league(tmp_path, bots, extra='anchor = { bot = "b", elo = 1500 }')
    data = json.loads(cli("league", "table", str(path), "-f", "json").stdout)
    rating = {row["bot"]: row["rating"] for row in data["standings"]}
    assert data["anchor"] == {"bot": "b", "rating": 1500.0}
    assert rating["b"] == 1500 and [row["anchor"] for row in data["standings"] if row["bot"] == "b"] == [True]
    for bot in "ac":  # the same differences, moved together
        assert rating[bot] - rating["b"] == pytest.approx(free[bot] - free["b"], abs=0.02)
    terminal = " ".join(cli("league", "table", str(path)).output.split())
    assert "1500 (anchor)" in terminal and "Elo anchored: b = 1500 (pinned" in terminal
    markdown = cli("league", "table", str(path), "-f", "markdown").output
    assert "| 1500 (anchor) |" in markdown and "Elo anchored: b = 1500" in markdown
    rows = list(csv.DictReader(io.StringIO(cli("league", "table", str(path), "-f", "csv").stdout)))
    assert [(r["bot"], r["rating"]) for r in rows if r["anchor"] == "1"] == [("b", "1500.00")]
    loaded = load_league(path)
    page = LeagueResults(loaded).summary()
    assert "b = 1500" in page["anchor"] and any("1500 (anchor)" in line for line in page["standings"]["rows"])
    store, _ = open_league(loaded)
    view = LiveLeagueView(loaded, LeagueProgress(6, 6, store.games(), names=store.roster()))
    store.close()
    anchor = view.standings().anchor
    assert anchor is not None and anchor.bot == "b"
    plain = league(tmp_path, bots, extra='anchor = "c"')
    assert "+0 (anchor)" in cli("league", "table", str(plain)).output


def test_an_anchor_that_is_not_a_bot_is_refused(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], extra='anchor = "z"')
    with pytest.raises(LeagueFileError, match="anchor: 'z' is not a bot of this league"):
        load_league(path)


def test_the_event_key_fills_the_event_tag(tmp_path: Path) -> None:
    path = league(tmp_path, [("a", "random"), ("b", "greedy")], extra='event = "Friday cup"')
    run(path)
    assert {r.tags["Event"] for r in read_record_file(load_league(path).records)} == {"Friday cup"}
    (tmp_path / "grow").rename(tmp_path / "first")
    path = league(tmp_path, [("a", "random"), ("b", "greedy")])
    run(path)
    assert {r.tags["Event"] for r in read_record_file(load_league(path).records)} == {"growing"}


def test_an_openskill_anchor_moves_every_rating_together() -> None:
    from arena.league.config import Anchor
    from arena.league.standings import compute_standings
    from arena.league.store import StoredGame

    games = [StoredGame(i, 0, seats, 0, ranks, None, (), "normal", 10)
             for i, (seats, ranks) in enumerate([((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (2, 3, 1))] * 3)]
    free = {r.name: r.rating.value for r in compute_standings(["a", "b", "c"], 3, games).rows}
    pinned = compute_standings(["a", "b", "c"], 3, games, anchor=Anchor("c", 10.0))
    rating = {r.name: r.rating.value for r in pinned.rows}
    assert rating["c"] == 10.0 and pinned.anchor == Anchor("c", 10.0)
    assert rating["a"] - rating["c"] == pytest.approx(free["a"] - free["c"])
    waiting = compute_standings(["a", "b", "c", "d"], 3, games, anchor=Anchor("d"))
    assert waiting.anchor is None and "d has played no game yet" in waiting.anchor_note
