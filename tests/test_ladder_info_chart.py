"""A bot's info charts (arena.ladder.web.info_means, arena.ladder.web.info_chart): what a bot
reports in its actions' info, stored in its games' records, averaged per ply over its
playing version's newest games and drawn on its page: concrete means, only the bot's
own plies, the bounds, a hostile field name escaped, and the page of a bot that
reports nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import trio
from starlette.applications import Starlette

from arena import records
from arena.games import CHANCE
from arena.ladder.config import LADDER_FILE, Ladder, ladder_file_text, load_ladder
from arena.ladder.store import Entrant, LadderStore, SeatResult, Version
from arena.ladder.tokens import TokenChecker, hash_token, new_token, placeholder_hash
from arena.ladder.web import queries
from arena.ladder.web.app import ladder_app
from arena.ladder.web.info_chart import HINT
from arena.ladder.web.info_means import (
    MAX_PLIES,
    InfoMeans,
    InfoMeansCache,
    info_means,
    ply_actors,
    replayed_actors,
    seat_numbers,
)
from arena.records.reader import read_text
from arena.records.replay import initial_state
from protocol.messages import Info
from tests.helpers.games import random_game_record

HOSTILE = "<script>alert(1)</script>"
OPPONENT = Info(score=1000.0, depth=99)
"""What the opponent reports at each of its plies: never in the bot's means."""

InfoOf = Callable[[int, int], Info | None]
"""(ply number, seat) -> the info of that ply."""


class NoSubmissions:
    async def submit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        raise AssertionError("nothing is submitted here")


def record_with_info(seed: int, info_of: InfoOf) -> str:
    """A random game of btt (seat 0 moves at odd plies, seat 1 at even ones) whose ply
    n by seat s carries info_of(n, s), written as the ladder stores it."""
    record = random_game_record("btt", 2, seed, {})
    state = initial_state(record)
    for number, ply in enumerate(record.plies, 1):
        seat = state.current()
        state.apply(ply.action)
        ply.info = info_of(number, seat)
    return records.write(record)


def game_a(number: int, seat: int) -> Info | None:
    """alpha at seat 0: score = the ply's number; depth 4 at its first two plies; the
    hostile field 7 at every ply; `once` at one ply only; a pv, which is no number."""
    if seat == 1:
        return OPPONENT
    return Info(score=float(number), depth=4 if number <= 3 else None, pv=["a", "b"],
                comment=f"{HOSTILE}=7" + (" once=5" if number == 1 else ""))


def game_b(number: int, seat: int) -> Info | None:
    """alpha at seat 0: score = the ply's number + 10; a NaN, which is no number."""
    return OPPONENT if seat == 1 else Info(score=number + 10.0, comment="bad=nan")


def game_c(number: int, seat: int) -> Info | None:
    """alpha at seat 1: score = the ply's number + 100."""
    return OPPONENT if seat == 0 else Info(score=number + 100.0)


@dataclass
class World:
    ladder: Ladder
    store: LadderStore
    alpha: Version
    beta: Version
    app: Starlette

    def play(self, seed: int, alpha_seat: int, info_of: InfoOf) -> int:
        """A game stored between alpha and beta, alpha at `alpha_seat`: its number."""
        versions = [self.alpha, self.beta]
        if alpha_seat == 1:
            versions.reverse()
        text = record_with_info(seed, info_of)
        seats = [SeatResult(v.id, rank, None, None, None) for v, rank in zip(versions, (1, 2), strict=True)]
        plies = len(read_text(text)[0].plies)
        return self.store.save_game("btt-2", self.store.next_unit(), seed, seats, "normal", plies, text, True,
                                    50).game


def ready_version(store: LadderStore, entrant: str, bot: str) -> Version:
    found = store.entrant(entrant)
    assert found is not None
    version = store.add_version(found.id, bot, "python")
    store.set_version_state(version.id, "ready", "built")
    return version


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    folder = tmp_path / "ladder"
    folder.mkdir()
    (folder / LADDER_FILE).write_text(ladder_file_text("Info ladder", ["btt"]), encoding="utf-8")
    ladder = load_ladder(folder)
    store = LadderStore.open(ladder.database, ladder.name)
    try:
        for name in ("alice", "bob"):
            number = store.add_entrant(name, placeholder_hash())
            store.reset_token(name, hash_token(new_token(number)))
        alpha, beta = ready_version(store, "alice", "alpha"), ready_version(store, "bob", "beta")
        app = ladder_app(ladder, ladder.database, NoSubmissions(), {}, TokenChecker(store), store.secret)
        yield World(ladder, store, alpha, beta, app)
    finally:
        store.close()


def means_of(world: World, version: Version, limit: int = 30) -> InfoMeans:
    with queries.reading(world.ladder.database) as db:
        return InfoMeansCache().means(db, version.id, limit)


def points(means: InfoMeans, field: str) -> dict[int, tuple[float, int]]:
    found = means.field(field)
    assert found is not None, [f.name for f in means.fields]
    return {p.ply: (p.mean, p.games) for p in found.points}


def ask(app: Starlette, talk: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    async def main() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://testserver") as http:
            with trio.fail_after(60):
                await talk(http)
    trio.run(main)


# ---- the means ------------------------------------------------------------------------------------


def test_the_means_are_taken_per_ply_over_the_bots_own_plies_only(world: World) -> None:
    world.play(1, 0, game_a)
    world.play(2, 0, game_b)
    world.play(3, 1, game_c)
    means = means_of(world, world.alpha)
    assert means.games == 3
    assert [f.name for f in means.fields] == ["score", "depth", HOSTILE]  # as first seen; once, bad, pv are not
    score = points(means, "score")
    assert score[1] == (6.0, 2) and score[3] == (8.0, 2)  # (1 + 11) / 2 and (3 + 13) / 2
    assert score[2] == (102.0, 1) and score[4] == (104.0, 1)  # game c, where alpha sat second
    assert all(mean < 1000 for mean, _ in score.values())
    assert points(means, "depth") == {1: (4.0, 1), 3: (4.0, 1)}
    assert set(points(means, HOSTILE).values()) == {(7.0, 1)}
    opponent = means_of(world, world.beta)
    assert set(points(opponent, "score").values()) == {(1000.0, 2), (1000.0, 1)}


def test_the_means_are_bounded_by_games_plies_and_fields(world: World) -> None:
    cache = InfoMeansCache()

    def newest(limit: int) -> InfoMeans:
        with queries.reading(world.ladder.database) as db:
            return cache.means(db, world.alpha.id, limit)

    world.play(1, 0, game_a)
    world.play(2, 0, game_b)
    assert newest(1).games == 1 and points(newest(1), "score")[1] == (11.0, 1)  # game b alone
    world.play(3, 0, lambda n, s: Info(score=n + 50.0) if s == 0 else None)
    assert points(newest(1), "score")[1] == (51.0, 1)  # the new game
    assert points(newest(2), "score")[1] == (31.0, 2)  # (11 + 51) / 2: games b and the new one, a left out
    with queries.reading(world.ladder.database) as db:
        games = [(seats, seat_numbers(read_text(queries.record_texts(db, [game])[game])[0], max_plies=3))
                 for game, seats in queries.version_games(db, world.alpha.id, 30)]
    assert set(points(info_means(games), "score")) == {1, 3}
    wide = seat_numbers(read_text(record_with_info(1, lambda n, s: Info(
        comment=("rare=1 " if n < 8 else "") + " ".join(f"f{k}={k}" for k in range(12)))))[0])
    many = [f"f{k}" for k in range(12)]
    assert [f.name for f in info_means([({0}, wide)], max_fields=13).fields] == ["rare", *many]  # as first seen
    assert [f.name for f in info_means([({0}, wide)], max_fields=8).fields] == many[:8]  # the most reported
    assert info_means([]).fields == ()


# ---- the page -------------------------------------------------------------------------------------


def test_the_bot_page_charts_each_field_with_its_means_and_escapes_its_name(world: World) -> None:
    world.play(1, 0, game_a)
    world.play(2, 0, game_b)

    async def talk(http: httpx.AsyncClient) -> None:
        page = (await http.get("/bot/alpha")).text
        assert "Reported info" in page and page.count('<svg class="chart info"') == 3
        assert "<title>ply 1: mean 6 over 2 games</title>" in page
        assert "<title>ply 3: mean 8 over 2 games</title>" in page
        assert "<title>ply 1: mean 4 over 1 game</title>" in page  # depth
        assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert f'href="/bot/alpha?field={quote(HOSTILE, safe="")}"'.replace("&", "&amp;") in page
        assert "1000" not in page
        large = (await http.get("/bot/alpha", params={"field": "score"})).text
        assert large.count('<svg class="chart info"') == 1 and 'viewBox="0 0 680 320"' in large
        assert "<title>ply 3: mean 8 over 2 games</title>" in large and "all fields" in large
        hostile = (await http.get("/bot/alpha", params={"field": HOSTILE})).text
        assert hostile.count('<svg class="chart info"') == 1 and HOSTILE not in hostile
        assert "<title>ply 1: mean 7 over 1 game</title>" in hostile
        unknown = await http.get("/bot/alpha", params={"field": "<b>nope</b>"})
        assert unknown.status_code == 200 and "<b>nope</b>" not in unknown.text
        assert "no field &lt;b&gt;nope&lt;/b&gt; is charted here" in unknown.text
        assert unknown.text.count('<svg class="chart info"') == 3

    ask(world.app, talk)


def test_a_bot_that_reports_no_numbers_gets_a_line_that_says_how(world: World) -> None:
    world.play(1, 0, lambda n, s: Info(comment="thinking hard", pv=["x"]) if s == 0 else None)

    async def talk(http: httpx.AsyncClient) -> None:
        page = (await http.get("/bot/alpha")).text
        assert '<svg class="chart info"' not in page
        assert "no numbers in its info over its last 1 game; " + HINT.replace("'", "&#x27;") in page

    ask(world.app, talk)
    ready_version(world.store, "alice", "alpha")  # v2 plays now, and has no game yet

    async def fresh(http: httpx.AsyncClient) -> None:
        page = (await http.get("/bot/alpha")).text
        assert "no recorded game of the version that plays yet" in page and '<svg class="chart info"' not in page

    ask(world.app, fresh)


@pytest.mark.parametrize(("game", "seats"), [("btt", 2), ("blox", 2), ("roots", 2), ("blox", 4)])
def test_whose_ply_it_was_is_what_replaying_the_rules_says(game: str, seats: int) -> None:
    for seed in range(3):
        record = read_text(records.write(random_game_record(game, seats, seed, {})))[0]
        actors = replayed_actors(record)
        assert len(actors) == min(len(record.plies), MAX_PLIES) and set(actors) - {CHANCE} == set(range(seats))
        assert ply_actors(record) == actors
        assert ply_actors(record, 5) == actors[:5]
