"""The ladder's pages and API (arena.ladder.web.app) on a ladder made in tmp_path, through
httpx's ASGI transport in trio: escaping, sign-in and its cookie, form tokens and
Origin, bearer tokens, bounded uploads, who may read which logs, replays, rollback,
and the leaderboard and a bot's page on a synthetic store of 100 bots."""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from starlette.applications import Starlette

from arena import records
from arena.ladder.config import LADDER_FILE, Ladder, LadderTable, ladder_file_text, load_ladder
from arena.ladder.store import Entrant, LadderStore, SeatResult, Version
from arena.ladder.submissions import SubmissionError
from arena.ladder.tokens import TokenChecker, hash_token, new_token, placeholder_hash
from arena.ladder.web import queries
from arena.ladder.web.app import SESSION_COOKIE, EloCache, ladder_app
from arena.league.under_way import GamesUnderWay
from arena.records.record import Ply
from arena.stats.ratings import Rating
from tests.helpers.games import random_game_record

EVIL = "<script>alert(1)</script>"


class FakeSubmissions:
    """The door for versions, without building: a version is stored 'building'."""

    def __init__(self, store: LadderStore) -> None:
        self.store = store
        self.calls: list[tuple[str, str, str, str, int]] = []

    async def submit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        self.calls.append((entrant.name, bot_name, language, filename, len(data)))
        if language == "cobol":
            raise SubmissionError("unknown language 'cobol'", 400)
        return await trio.to_thread.run_sync(self.store.add_version, entrant.id, bot_name, language)


@dataclass
class World:
    ladder: Ladder
    store: LadderStore
    submissions: FakeSubmissions
    tokens: dict[str, str]
    under_way: dict[str, GamesUnderWay]
    app: Starlette


def make_ladder(folder: Path, public: bool = False) -> Ladder:
    folder.mkdir(parents=True, exist_ok=True)
    text = ladder_file_text("Test ladder", ["btt"])
    if public:
        text = text.replace("public = false", "public = true")
    (folder / LADDER_FILE).write_text(text, encoding="utf-8")
    return load_ladder(folder)


def add_entrant(store: LadderStore, name: str) -> str:
    """A new entrant and its token (the token names the entrant's number)."""
    number = store.add_entrant(name, placeholder_hash())
    token = new_token(number)
    store.reset_token(name, hash_token(token))
    return token


def ready_version(store: LadderStore, entrant: str, bot: str) -> Version:
    found = store.entrant(entrant)
    assert found is not None
    version = store.add_version(found.id, bot, "python")
    store.set_version_state(version.id, "ready", f"built {bot} v{version.number}: <b>ok</b>")
    return version


def play(store: LadderStore, first: Version, second: Version, seed: int, fault: str | None = None) -> tuple[int, int]:
    """A real random game of btt stored between two versions: (its number, its unit)."""
    record = random_game_record("btt", 2, seed, {})
    unit = store.next_unit()
    seats = [SeatResult(first.id, 1, None, None, None),
             SeatResult(second.id, 2, None, fault, None if fault is None else f"{EVIL} took too long")]
    stored = store.save_game("btt-2", unit, seed, seats, "normal", len(record.plies), records.write(record), True, 50)
    return stored.game, unit


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from _world(tmp_path, public=False)


@pytest.fixture
def public_world(tmp_path: Path) -> Iterator[World]:
    yield from _world(tmp_path, public=True)


def _world(tmp_path: Path, public: bool) -> Iterator[World]:
    ladder = make_ladder(tmp_path / "ladder", public)
    store = LadderStore.open(ladder.database, ladder.name)
    try:
        tokens = {name: add_entrant(store, name) for name in ("alice", "bob")}
        submissions = FakeSubmissions(store)
        under_way = {t.key: GamesUnderWay(t.game.id, None) for t in ladder.tables}
        app = ladder_app(ladder, ladder.database, submissions, under_way, TokenChecker(store), store.secret)
        yield World(ladder, store, submissions, tokens, under_way, app)
    finally:
        store.close()


def ask(app: Starlette, talk: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    """Run `talk` against `app` in trio, in process."""
    async def main() -> None:
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            with trio.fail_after(60):
                await talk(http)
    trio.run(main)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def form_token(page: str, action: str) -> str:
    match = re.search(rf'action="{re.escape(action)}".*?name="csrf" value="([^"]*)"', page, re.DOTALL)
    assert match is not None, page
    return match[1]


async def sign_in(http: httpx.AsyncClient, token: str) -> httpx.Response:
    page = (await http.get("/signin")).text
    return await http.post("/signin", data={"token": token, "csrf": form_token(page, "/signin")})


# ---- pages --------------------------------------------------------------------------------------


def test_the_leaderboard_shows_ratings_elo_and_faults_and_escapes_every_name(world: World) -> None:
    alice = ready_version(world.store, "alice", "alpha")
    evil = ready_version(world.store, "bob", EVIL)
    for seed in range(3):
        play(world.store, alice, evil, seed, fault="timeout")

    async def talk(http: httpx.AsyncClient) -> None:
        answer = await http.get("/")
        assert answer.status_code == 200
        page = answer.text
        assert EVIL not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert 'href="/bot/alpha"' in page and "Elo" in page and "timeout 3" in page
        assert page.index("alpha") < page.index("&lt;script&gt;")  # alpha won every game: it ranks first
        link = re.search(r'href="(/bot/%3Cscript[^"]*)"', page)
        assert link is not None
        evil_page = await http.get(link[1])
        assert evil_page.status_code == 200 and "owner <b>bob</b>" in evil_page.text and EVIL not in evil_page.text
        assert "nosniff" in answer.headers["x-content-type-options"]
        rows = (await http.get("/api/leaderboard", params={"table": "btt-2"})).json()["tables"][0]["rows"]
        assert [r["bot"] for r in rows] == ["alpha", EVIL]
        assert rows[0]["games"] == 3 and rows[0]["wins"] == 3 and rows[1]["faults"] == {"timeout": 3}
        assert rows[0]["elo"]["value"] > rows[1]["elo"]["value"]
        low, high = rows[0]["interval"]
        assert low < rows[0]["mu"] < high and rows[0]["ordinal"] < low
        assert (await http.get("/", params={"table": "nope"})).status_code == 404
        assert (await http.get("/api/leaderboard", headers=bearer("1.wrong"))).status_code == 401

    ask(world.app, talk)


def test_a_bot_page_shows_versions_history_games_rivals_and_faults_escaped(world: World) -> None:
    alice = ready_version(world.store, "alice", "alpha")
    beta = ready_version(world.store, "bob", "beta")
    games = [play(world.store, alice, beta, seed, fault="timeout")[0] for seed in range(4)]

    async def talk(http: httpx.AsyncClient) -> None:
        page = (await http.get("/bot/beta")).text
        assert "owner <b>bob</b>" in page and "v1" in page
        assert '<polyline class="mu"' in page and '<polygon class="band"' in page  # the rating history
        assert all(f'href="/game/{g}"' in page for g in games)
        assert 'href="/bot/alpha"' in page and "lost" in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt; took too long" in page and EVIL not in page
        assert "/version/" in page and "/log" not in page  # nobody signed in: no log links
        assert (await http.get("/bot/nobody")).status_code == 404

    ask(world.app, talk)


def test_a_stored_game_replays_and_a_missing_one_is_404(world: World) -> None:
    game, _ = play(world.store, ready_version(world.store, "alice", "alpha"),
                   ready_version(world.store, "bob", "beta"), 7)

    async def talk(http: httpx.AsyncClient) -> None:
        answer = await http.get(f"/game/{game}")
        assert answer.status_code == 200 and 'data-mode="replay"' in answer.text
        missing = await http.get("/game/999")
        assert missing.status_code == 404 and "999" in missing.text
        assert (await http.get("/game/²")).status_code == 404

    ask(world.app, talk)


def test_the_games_under_way_are_drawn(world: World) -> None:
    games = world.under_way["btt-2"]
    games.begin(3001, "3.1", ["alpha v1", "beta v2"], {})
    game = next(iter(games.games.values()))
    state = world.ladder.tables[0].game.new_state(2, world.ladder.tables[0].options)
    action = state.legal_actions()[0]
    games.ply(game.index, Ply(1, action))

    async def talk(http: httpx.AsyncClient) -> None:
        page = (await http.get("/under-way")).text
        assert 'http-equiv="refresh"' in page and "<svg" in page and "ply 1" in page
        assert 'href="/bot/alpha"' in page and 'href="/bot/beta"' in page

    ask(world.app, talk)


# ---- sign-in and forms ------------------------------------------------------------------------


def test_signing_in_with_a_good_token_sets_the_session_cookie_and_a_bad_one_does_not(world: World) -> None:
    async def talk(http: httpx.AsyncClient) -> None:
        refused = await sign_in(http, world.tokens["alice"] + "x")
        assert refused.status_code == 401 and SESSION_COOKIE not in refused.headers.get("set-cookie", "")
        assert SESSION_COOKIE not in http.cookies
        answer = await sign_in(http, world.tokens["alice"])
        assert answer.status_code == 303
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(SESSION_COOKIE) and "HttpOnly" in cookie
        assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
        assert "Path=/" in cookie
        page = (await http.get("/")).text
        assert "signed in as alice" in page
        signout = form_token(page, "/signout")
        assert (await http.post("/signout", data={"csrf": signout})).status_code == 303
        assert "signed in as" not in (await http.get("/")).text

    ask(world.app, talk)


def test_a_forged_session_cookie_is_ignored(world: World) -> None:
    async def talk(http: httpx.AsyncClient) -> None:
        await sign_in(http, world.tokens["alice"])
        value = http.cookies[SESSION_COOKIE]
        number, expiry, mac = value.split(".")
        http.cookies.clear()
        http.cookies.set(SESSION_COOKIE, f"{int(number) + 1}.{expiry}.{mac}")  # bob's number, alice's signature
        assert "signed in as" not in (await http.get("/")).text

    ask(world.app, talk)


def test_a_form_post_without_or_with_a_wrong_token_or_from_another_origin_is_403(world: World) -> None:
    async def talk(http: httpx.AsyncClient) -> None:
        await http.get("/signin")
        assert (await http.post("/signin", data={"token": world.tokens["alice"]})).status_code == 403
        assert (await http.post("/signin", data={"token": world.tokens["alice"], "csrf": "0" * 64})).status_code \
            == 403
        assert SESSION_COOKIE not in http.cookies
        await sign_in(http, world.tokens["alice"])
        page = (await http.get("/submit")).text
        token = form_token(page, "/submit")
        files = {"bot": ("bot.py", b"print('hi')")}
        changed = token[:-1] + ("1" if token.endswith("0") else "0")  # one character off, whatever it was
        wrong = await http.post("/submit", data={"csrf": changed, "language": "python", "name": "alpha"},
                                files=files)
        assert wrong.status_code == 403
        foreign = await http.post("/submit", data={"csrf": token, "language": "python", "name": "alpha"},
                                  files=files, headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403
        assert world.submissions.calls == []
        sent = await http.post("/submit", data={"csrf": token, "language": "python", "name": "alpha"}, files=files,
                               headers={"Origin": "http://testserver"})
        assert sent.status_code == 303 and sent.headers["location"].startswith("/version/")
        assert world.submissions.calls == [("alice", "alpha", "python", "bot.py", 11)]
        version = await http.get(sent.headers["location"])
        assert "building" in version.text and 'http-equiv="refresh"' in version.text

    ask(world.app, talk)


def test_a_refused_submission_shows_the_form_again_with_why(world: World) -> None:
    async def talk(http: httpx.AsyncClient) -> None:
        await sign_in(http, world.tokens["alice"])
        token = form_token((await http.get("/submit")).text, "/submit")
        answer = await http.post("/submit", data={"csrf": token, "language": "cobol", "name": "alpha"},
                                 files={"bot": ("bot.cob", b"x")})
        assert answer.status_code == 400 and "unknown language" in answer.text and 'action="/submit"' in answer.text

    ask(world.app, talk)


# ---- the API --------------------------------------------------------------------------------------


def test_api_submit_answers_202_and_refuses_without_a_token_or_beyond_the_size(world: World) -> None:
    limit = world.ladder.max_upload_bytes

    async def talk(http: httpx.AsyncClient) -> None:
        answer = await http.post("/api/bots", headers=bearer(world.tokens["alice"]), data={"language": "python"},
                                 files={"bot": ("bot.py", b"print(1)")})
        assert answer.status_code == 202, answer.text
        body = answer.json()
        assert body["bot"] == "alice" and body["number"] == 1 and body["state"] == "building"
        assert body["url"] == f"/version/{body['version']}"
        other = await http.post("/api/bots", headers=bearer(world.tokens["alice"]),
                                data={"language": "python", "name": "second"}, files={"file": ("b.py", b"1")})
        assert other.status_code == 202 and other.json()["bot"] == "second"
        assert (await http.post("/api/bots", data={"language": "python"},
                                files={"bot": ("bot.py", b"1")})).status_code == 401
        assert (await http.post("/api/bots", headers=bearer("1.nottheone"), data={"language": "python"},
                                files={"bot": ("bot.py", b"1")})).status_code == 401
        calls = len(world.submissions.calls)
        big = await http.post("/api/bots", headers=bearer(world.tokens["alice"]), data={"language": "python"},
                              files={"bot": ("bot.py", b"x" * (limit + 70_000))})
        assert big.status_code == 413 and "error" in big.json()

        async def stream() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
            for _ in range(limit // 65536 + 3):
                yield b"y" * 65536
        streamed = await http.post("/api/bots", headers={**bearer(world.tokens["alice"]),
                                                         "Content-Type": "multipart/form-data; boundary=zz"},
                                   content=stream())
        assert streamed.status_code == 413
        refused = await http.post("/api/bots", headers=bearer(world.tokens["alice"]), data={"language": "cobol"},
                                  files={"bot": ("bot.py", b"1")})
        assert refused.status_code == 400 and "cobol" in refused.json()["error"]
        assert len(world.submissions.calls) == calls + 1  # only the last reached the door

    ask(world.app, talk)


def test_only_the_owner_reads_a_bots_build_and_stderr_logs(world: World) -> None:
    alpha = ready_version(world.store, "alice", "alpha")
    beta = ready_version(world.store, "bob", "beta")
    game, unit = play(world.store, alpha, beta, 3)
    folder = world.ladder.logs / f"unit-{unit}"
    folder.mkdir(parents=True)
    (folder / "0-alpha_v1.log").write_text("alpha's stderr\n", encoding="utf-8")
    alice, bob = bearer(world.tokens["alice"]), bearer(world.tokens["bob"])

    async def talk(http: httpx.AsyncClient) -> None:
        assert (await http.get(f"/version/{alpha.id}/log", headers=bob)).status_code == 403
        assert (await http.get(f"/bot/alpha/logs/{unit}", headers=bob)).status_code == 403
        assert (await http.get(f"/version/{alpha.id}/log")).status_code == 403
        own = await http.get(f"/version/{alpha.id}/log", headers=alice)
        assert own.status_code == 200 and "<b>ok</b>" in own.text and own.headers["content-type"].startswith(
            "text/plain")
        stderr = await http.get(f"/bot/alpha/logs/{unit}", headers=alice)
        assert stderr.status_code == 200 and "alpha's stderr" in stderr.text
        assert (await http.get(f"/bot/alpha/logs/{unit + 1}", headers=alice)).status_code == 404
        for wrong in ("/bot/alpha/logs/-1", "/bot/alpha/logs/1e3", "/bot/..%2F..%2Fetc/logs/1"):
            assert (await http.get(wrong, headers=alice)).status_code == 404, wrong
        assert (await http.get(f"/version/{alpha.id + 100}/log", headers=alice)).status_code == 404
        assert "log" not in (await http.get(f"/api/version/{alpha.id}", headers=bob)).json()
        assert (await http.get(f"/api/version/{alpha.id}", headers=alice)).json()["log"].startswith("built")
        assert (await http.get(f"/api/version/{alpha.id}")).status_code == 401
        page = (await http.get("/bot/alpha", headers=alice)).text
        assert f'href="/bot/alpha/logs/{unit}"' in page and f'href="/version/{alpha.id}/log"' in page
        assert f'/logs/{unit}"' not in (await http.get("/bot/alpha", headers=bob)).text

    ask(world.app, talk)


def test_a_public_ladder_shows_every_bots_logs(public_world: World) -> None:
    world = public_world
    alpha = ready_version(world.store, "alice", "alpha")

    async def talk(http: httpx.AsyncClient) -> None:
        assert (await http.get(f"/version/{alpha.id}/log", headers=bearer(world.tokens["bob"]))).status_code == 200
        assert (await http.get(f"/version/{alpha.id}/log")).status_code == 200

    ask(world.app, talk)


def test_rollback_and_retire_are_the_owners_alone(world: World) -> None:
    first = ready_version(world.store, "alice", "alpha")
    ready_version(world.store, "alice", "alpha")

    async def talk(http: httpx.AsyncClient) -> None:
        stranger = await http.post("/api/bots/alpha/rollback", json={"version": 1},
                                   headers=bearer(world.tokens["bob"]))
        assert stranger.status_code == 403
        assert world.store.bot("alpha").chosen is None  # type: ignore[union-attr]
        answer = await http.post("/api/bots/alpha/rollback", json={"version": 1},
                                 headers=bearer(world.tokens["alice"]))
        assert answer.status_code == 200, answer.text
        assert world.store.bot("alpha").chosen == first.id  # type: ignore[union-attr]
        bad = await http.post("/api/bots/alpha/rollback", json={"version": 9}, headers=bearer(world.tokens["alice"]))
        assert bad.status_code == 400 and "ready versions: 1, 2" in bad.json()["error"]
        assert (await http.post("/api/bots/alpha/rollback", json={"version": 1})).status_code == 401
        assert (await http.post("/api/bots/alpha/retire", headers=bearer(world.tokens["bob"]))).status_code == 403
        assert (await http.post("/api/bots/alpha/retire", headers=bearer(world.tokens["alice"]))).status_code == 200
        assert world.store.bot("alpha").status == "retired"  # type: ignore[union-attr]

    ask(world.app, talk)


def test_a_malformed_token_is_401_and_the_api_ignores_a_signed_in_cookie(world: World) -> None:
    ready_version(world.store, "alice", "alpha")

    async def talk(http: httpx.AsyncClient) -> None:
        for token in ("99999999999999999999999.x", "\u00b2.x", "1.", ".x", "1.x"):
            answer = await http.get("/api/version/1", headers={b"Authorization": f"Bearer {token}".encode()})
            assert answer.status_code == 401, (token, answer.status_code)
        assert (await sign_in(http, world.tokens["alice"])).status_code == 303
        # Signed in by cookie, without a per-form token: the API's changes need the bearer token.
        assert (await http.post("/api/bots/alpha/retire")).status_code == 401
        assert world.store.bot("alpha").status == "active"  # type: ignore[union-attr]

    ask(world.app, talk)


def test_rollback_from_the_bot_page_form(world: World) -> None:
    first = ready_version(world.store, "alice", "alpha")
    ready_version(world.store, "alice", "alpha")

    async def talk(http: httpx.AsyncClient) -> None:
        await sign_in(http, world.tokens["alice"])
        page = (await http.get("/bot/alpha")).text
        token = form_token(page, "/bot/alpha/rollback")
        answer = await http.post("/bot/alpha/rollback", data={"csrf": token, "version": "1"})
        assert answer.status_code == 303
        assert world.store.bot("alpha").chosen == first.id  # type: ignore[union-attr]

    ask(world.app, talk)


# ---- a big ladder ---------------------------------------------------------------------------------


def test_leaderboard_and_bot_page_of_100_bots_and_20000_games(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path / "ladder")
    queries.synthetic_store(ladder.database, bots=100, games=20_000, seed=5)
    store = LadderStore.open(ladder.database, create=False)
    try:
        app = ladder_app(ladder, ladder.database, FakeSubmissions(store), {}, TokenChecker(store), store.secret)

        async def talk(http: httpx.AsyncClient) -> None:
            rows = (await http.get("/api/leaderboard")).json()["tables"][0]["rows"]
            assert len(rows) == 100
            assert sum(r["games"] for r in rows) > 20_000  # the playing versions' games (the others played v1)
            active = [r for r in rows if r["status"] == "active"]
            assert [r["rank"] for r in active] == list(range(1, len(active) + 1))
            assert [r["ordinal"] for r in active] == sorted((r["ordinal"] for r in active), reverse=True)
            assert all(r["rank"] is None for r in rows[len(active):])
            assert all(r["elo"] is not None for r in rows)
            page = (await http.get("/")).text
            assert page.count('<a href="/bot/') == 100
            bot = await http.get("/bot/bot050")
            assert bot.status_code == 200
            assert bot.text.count('href="/game/') >= queries.RECENT_GAMES and '<polyline class="mu"' in bot.text
            assert bot.text.count("<tr>") > 90  # head to head against most of the others

        ask(app, talk)
    finally:
        store.close()


def test_table_totals_grow_with_every_stored_game(world: World) -> None:
    alpha = ready_version(world.store, "alice", "alpha")
    beta = ready_version(world.store, "bob", "beta")
    for seed in range(3):
        play(world.store, alpha, beta, seed, fault="crash" if seed else None)
    with queries.reading(world.ladder.database) as db:
        before = queries.table_stats(db, "btt-2")
    for seed in range(3, 5):
        play(world.store, beta, alpha, seed, fault="timeout")
    with queries.reading(world.ladder.database) as db:
        after = queries.table_stats(db, "btt-2")
        pairs = queries.table_pairs(db, "btt-2")
    assert after.last == before.last + 2
    assert after.versions[beta.id].games == 5 and after.versions[beta.id].wins == 2
    assert after.versions[alpha.id].faults == {"timeout": 2} and after.versions[beta.id].faults == {"crash": 2}
    assert before.versions[alpha.id].faults == {}  # the first totals were left as they were
    assert pairs == {(alpha.id, beta.id): (3.0, 5)}


def test_while_the_app_runs_games_count_at_once_and_the_elo_is_refitted_off_the_pages_path(world: World) -> None:
    alpha = ready_version(world.store, "alice", "alpha")
    beta = ready_version(world.store, "bob", "beta")
    play(world.store, alpha, beta, 1)

    async def alpha_row(http: httpx.AsyncClient) -> dict[str, Any]:
        rows = (await http.get("/api/leaderboard")).json()["tables"][0]["rows"]
        return dict(next(r for r in rows if r["bot"] == "alpha"))

    async def talk(http: httpx.AsyncClient) -> None:
        async with world.app.router.lifespan_context(world.app):
            first = await alpha_row(http)
            assert first["games"] == 1 and first["elo"]["value"] > 0
            await trio.to_thread.run_sync(play, world.store, alpha, beta, 2)
            row = await alpha_row(http)
            assert row["games"] == 2  # the totals are read as they are
            seen = [row["elo"]]
            for _ in range(300):  # the refresher comes every REFRESH_S
                if seen[-1] != first["elo"]:
                    break
                await trio.sleep(0.1)
                seen.append((await alpha_row(http))["elo"])
            assert seen[-1]["value"] > first["elo"]["value"], seen  # two wins of two now

    ask(world.app, talk)


def test_a_page_that_comes_while_the_elo_is_fitted_waits_for_that_fit(world: World,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    alpha = ready_version(world.store, "alice", "alpha")
    beta = ready_version(world.store, "bob", "beta")
    play(world.store, alpha, beta, 1)
    fits, release = [], threading.Event()
    fit = EloCache._fit

    def held_fit(cache: EloCache, table: LadderTable, versions: tuple[int, ...], previous: Any) -> Any:
        fits.append(versions)
        release.wait(30)
        return fit(cache, table, versions, previous)

    monkeypatch.setattr(EloCache, "_fit", held_fit)
    cache = EloCache(world.ladder.database)
    table = world.ladder.tables[0]
    versions = tuple(sorted((alpha.id, beta.id)))
    answers: list[dict[int, Rating]] = []

    async def main() -> None:
        async def page() -> None:
            answers.append(await cache.get(table, 1, versions))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(page)
            nursery.start_soon(page)
            await trio.testing.wait_all_tasks_blocked()  # one fits, the other waits for it
            release.set()

    trio.run(main)
    assert fits == [versions]
    assert len(answers) == 2 and answers[0] == answers[1] and answers[0][alpha.id].value > 0
