"""The ladder's web side as a Starlette app (run on trio by hypercorn, inside `arena
ladder run`): the pages, sign-in, the forms and the HTTP API.

Who is asking: an API call carries its entrant's token (`Authorization: Bearer TOKEN`);
a browser signs in once with it and then carries a session cookie (HttpOnly,
SameSite=Strict) that holds the entrant's number, its expiry and an HMAC-SHA256 of
both and of the entrant's token hash with the ladder's secret, so it cannot be forged,
and it stops working when the token is reset or the entrant removed.

Cross-site requests: every form carries a token that is an HMAC of the session (or,
before sign-in, of a random cookie) and the form's name, checked on POST; a POST whose
Origin names another host is refused. Bodies are bounded: Content-Length is checked
first and the bytes counted as they arrive, so an oversized upload is refused before
it is read whole.

Reads: arena.ladder.queries, one read-only connection per request, in a worker thread
(the clock loop never waits on SQLite). The leaderboard reads the totals the store
keeps with every game; only its Elo, a fit over the pairs of versions that met, is
cached per table by its last game and the versions on the board, and refitted at most
every REFRESH_S by a task of the app's lifespan (a page only reads it). Writes
(rollback, retire) open the ladder's store for that one write."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Message

from arena.errors import ArenaError
from arena.ladder import pages, queries
from arena.ladder.config import Ladder, LadderTable
from arena.ladder.logs import unit_logs
from arena.ladder.queries import BoardRow, TableStats
from arena.ladder.store import Entrant, LadderStore, Version
from arena.ladder.submissions import SubmissionError
from arena.ladder.tokens import TokenChecker
from arena.league.under_way import GamesUnderWay
from arena.records.reader import read_text
from arena.stats.ratings import Rating
from arena.web.replay import replay_page
from arena.web.server import SecurityHeaders

T = TypeVar("T")

SESSION_COOKIE = "ladder_session"
ANON_COOKIE = "ladder_visitor"
"""Before sign-in: a random value the sign-in form's token is made from (so a page of
another site cannot sign a visitor in as someone else)."""
SESSION_S = 14 * 24 * 3600
FORM_BYTES = 1 << 16
"""A form without a file, or a JSON call, reads at most this much."""
LOG_BYTES = 1 << 20
"""Of each stderr log file, a page shows at most this much (the referee caps them too)."""
REFRESH_S = 3.0
"""A table's Elo is refitted at most this often, however fast games end."""
REPLAYS_KEPT = 16
UNDER_WAY_REFRESH_S = 5


class SubmissionsLike(Protocol):
    """The ladder's door for new versions (arena.ladder.submissions.Submissions)."""

    async def submit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        ...


class Refused(Exception):
    """A request this app turns down: its status and the sentence that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _mac(secret: bytes, *parts: str) -> str:
    return hmac.new(secret, "\x00".join(parts).encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Viewer:
    """Who sent a request: an entrant (by session or token) or nobody."""

    entrant: Entrant | None
    session: str | None
    """The valid session cookie's value (None: not signed in by cookie)."""
    visitor: str | None
    """The visitor cookie's value, when one came."""

    @property
    def form_base(self) -> str | None:
        """What this viewer's form tokens are made from."""
        return self.session or self.visitor


@dataclass
class _Elo:
    last: int
    """The table's last game when it was fitted."""
    versions: tuple[int, ...]
    elo: dict[int, Rating]
    at: float


class EloCache:
    """Each 2-seat table's Elo of the versions on its board, fitted in a worker thread
    from the pair totals the store keeps (tens of milliseconds with 100 bots, too much
    for every request). While the app runs, LadderSite.keep_boards_fresh refits it
    every REFRESH_S when games came or the board's versions changed, and a page only
    reads what it made; without it (an app nobody started) a page refits a table
    itself, at most every REFRESH_S."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept_fresh = False
        self._fits: dict[str, _Elo] = {}
        self._fitting: dict[str, anyio.Event] = {}
        """The tables being fitted now, each with the event set when its fit is stored."""

    async def get(self, table: LadderTable, last: int, versions: tuple[int, ...]) -> dict[int, Rating]:
        """The table's Elo (none for a table of more than two seats)."""
        if table.seats != 2:
            return {}
        fit = self._fits.get(table.key)
        if fit is not None:
            current = fit.last == last and fit.versions == versions
            if current or self.kept_fresh or time.monotonic() - fit.at < REFRESH_S or table.key in self._fitting:
                return fit.elo
        return (await self.update(table, versions)).elo

    async def update(self, table: LadderTable, versions: tuple[int, ...]) -> _Elo:
        """The table's Elo, refitted (unchanged when no game came and the versions on
        the board are the same). A fit of the table already under way is waited for
        rather than run twice at once (a page that comes while the refresher fits)."""
        while (running := self._fitting.get(table.key)) is not None:
            await running.wait()
            fit = self._fits.get(table.key)
            if fit is not None and fit.versions == versions:
                return fit
        done = self._fitting[table.key] = anyio.Event()
        try:
            fit = await anyio.to_thread.run_sync(self._fit, table, versions, self._fits.get(table.key))
            self._fits[table.key] = fit
        finally:
            del self._fitting[table.key]
            done.set()
        return fit

    def _fit(self, table: LadderTable, versions: tuple[int, ...], previous: _Elo | None) -> _Elo:
        with queries.reading(self.path) as db:
            last = queries.last_game(db, table.key)
            if previous is not None and previous.versions == versions and previous.last == last:
                return replace(previous, at=time.monotonic())
            pairs = queries.table_pairs(db, table.key)
        return _Elo(last, versions, queries.elo_of(list(versions), pairs), time.monotonic())


def _page_route(handler: Callable[[LadderSite, Request], Awaitable[Response]]) \
        -> Callable[[LadderSite, Request], Awaitable[Response]]:
    """A page's handler: a refusal becomes a page that says why, with its status."""
    async def route(site: LadderSite, request: Request) -> Response:
        try:
            return await handler(site, request)
        except Refused as exc:
            return await site.refusal_page(request, exc)
        except queries.QueryError as exc:
            return PlainTextResponse(str(exc), 503)
    return route


def _api_route(handler: Callable[[LadderSite, Request], Awaitable[Response]]) \
        -> Callable[[LadderSite, Request], Awaitable[Response]]:
    """An API handler: a refusal becomes {"error": ...} with its status."""
    async def route(site: LadderSite, request: Request) -> Response:
        try:
            return await handler(site, request)
        except Refused as exc:
            headers = {"www-authenticate": "Bearer"} if exc.status == 401 else None
            return JSONResponse({"error": exc.message}, exc.status, headers=headers)
        except queries.QueryError as exc:
            return JSONResponse({"error": str(exc)}, 503)
    return route


def _replaying(body: bytes) -> Callable[[], Awaitable[Message]]:
    """An ASGI receive that gives `body` once (the form parser reads what was bounded)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}
    return receive


async def _no_icon(request: Request) -> Response:
    """Browsers ask for an icon: none, and no error in the page's console either."""
    return Response(b"", 204, media_type="image/x-icon")


def _number(text: str, what: str) -> int:
    """A number from an address (int() would take '²' or 5,000 digits)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise Refused(404, f"no such {what}: the address takes a number")
    return int(text)


class LadderSite:
    """The app's state and its routes."""

    def __init__(self, ladder: Ladder, store_path: Path, submissions: SubmissionsLike,
                 under_way: Mapping[str, GamesUnderWay], tokens: TokenChecker, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the ladder's secret is missing or too short: it signs sessions and form tokens")
        self.ladder = ladder
        self.path = store_path
        self.submissions = submissions
        self.under_way = under_way
        self.tokens = tokens
        self.secret = secret
        self.elo = EloCache(store_path)
        self._replays: dict[int, str] = {}
        self._drawn: dict[tuple[str, int, int], tuple[str, str, str]] = {}

    # ---- reading ----------------------------------------------------------------------------

    async def read(self, work: Callable[[Any], T]) -> T:
        """`work(db)` on a read-only connection, in a worker thread."""
        def run() -> T:
            with queries.reading(self.path) as db:
                return work(db)
        return await anyio.to_thread.run_sync(run)

    async def write(self, work: Callable[[LadderStore], None]) -> None:
        """`work(store)` on the ladder's store, opened for it, in a worker thread."""
        def run() -> None:
            store = LadderStore.open(self.path, create=False)
            try:
                work(store)
            finally:
                store.close()
        await anyio.to_thread.run_sync(run)

    # ---- who is asking ------------------------------------------------------------------------

    def session_value(self, entrant: Entrant, expiry: int) -> str:
        return f"{entrant.id}.{expiry}.{_mac(self.secret, 'session', str(entrant.id), str(expiry), entrant.token_hash)}"

    async def _session_entrant(self, value: str) -> Entrant | None:
        number, _, rest = value.partition(".")
        expiry, _, mac = rest.partition(".")
        if not (number.isascii() and number.isdigit() and len(number) <= 12 and expiry.isascii()
                and expiry.isdigit() and len(expiry) <= 12 and int(expiry) > time.time()):
            return None
        entrant = await self.read(lambda db: queries.entrant(db, int(number)))
        if entrant is None or entrant.removed or not entrant.token_hash.startswith("$"):
            return None
        expected = _mac(self.secret, "session", str(entrant.id), expiry, entrant.token_hash)
        return entrant if hmac.compare_digest(mac.encode(), expected.encode()) else None

    async def token_entrant(self, request: Request) -> Entrant | None:
        """The entrant of the request's bearer token; None without one; 401 for a bad one."""
        header = request.headers.get("authorization")
        if header is None:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "give the token as `Authorization: Bearer TOKEN`")
        entrant = await anyio.to_thread.run_sync(self.tokens.entrant, token.strip())
        if entrant is None:
            raise Refused(401, "the token was refused (reset or removed?); ask the organiser for a new one")
        return entrant

    async def viewer(self, request: Request) -> Viewer:
        """Who sent the request: a bearer token wins over the session cookie."""
        visitor = request.cookies.get(ANON_COOKIE)
        entrant = await self.token_entrant(request)
        if entrant is not None:
            return Viewer(entrant, None, visitor)
        value = request.cookies.get(SESSION_COOKIE)
        if value:
            entrant = await self._session_entrant(value)
            if entrant is not None:
                return Viewer(entrant, value, visitor)
        return Viewer(None, None, visitor)

    def csrf(self, base: str | None, form: str) -> str:
        return "" if base is None else _mac(self.secret, "form", form, base)

    def check_csrf(self, viewer: Viewer, form: str, data: FormData) -> None:
        given = data.get("csrf")
        expected = self.csrf(viewer.form_base, form)
        if not expected or not isinstance(given, str) or not hmac.compare_digest(given.encode(), expected.encode()):
            raise Refused(403, "this form has expired or came from another site; reload the page and send it again")

    def allowed(self, viewer: Viewer, owner: int) -> bool:
        """Whether the viewer may read the logs of the owner's bots."""
        return self.ladder.public_logs or (viewer.entrant is not None and viewer.entrant.id == owner)

    # ---- bodies -------------------------------------------------------------------------------

    @staticmethod
    def check_origin(request: Request) -> None:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
            raise Refused(403, "a request from another site is refused")

    @staticmethod
    async def read_body(request: Request, limit: int) -> bytes:
        """The request's body, refused with 413 beyond `limit` bytes: by its declared
        length before anything is read, and by counting as it arrives."""
        length = request.headers.get("content-length")
        if length is not None:
            if not (length.isascii() and length.isdigit()):
                raise Refused(400, "the request's Content-Length is not a number")
            if int(length) > limit:
                raise Refused(413, f"the request is {int(length):,} bytes, more than the {limit:,} this ladder takes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise Refused(413, f"the request is more than the {limit:,} bytes this ladder takes")
        return bytes(body)

    async def read_form(self, request: Request, limit: int, files: int) -> FormData:
        body = await self.read_body(request, limit)
        replayed = Request(request.scope, _replaying(body))
        try:
            return await replayed.form(max_files=files, max_fields=20, max_part_size=FORM_BYTES)
        except (HTTPException, MultiPartException) as exc:
            detail = exc.detail if isinstance(exc, HTTPException) else exc.message
            raise Refused(400, f"the form could not be read ({detail})") from None

    @property
    def upload_limit(self) -> int:
        return self.ladder.max_upload_bytes + FORM_BYTES

    # ---- page frames --------------------------------------------------------------------------

    def page(self, viewer: Viewer, title: str, body: str, status: int = 200, refresh: int | None = None) \
            -> HTMLResponse:
        chrome = pages.Chrome(self.ladder.name, None if viewer.entrant is None else viewer.entrant.name,
                              self.csrf(viewer.session, "signout"))
        return HTMLResponse(pages.layout(chrome, title, body, refresh), status,
                            headers={"cache-control": "no-store"})

    async def refusal_page(self, request: Request, refusal: Refused) -> Response:
        try:
            viewer = await self.viewer(request)
        except Refused:
            viewer = Viewer(None, None, None)
        return self.page(viewer, {401: "Not signed in", 403: "Not allowed", 404: "Not found",
                                  413: "Too large"}.get(refusal.status, "Refused"),
                         pages.message(refusal.message), refusal.status)

    # ---- the leaderboard ----------------------------------------------------------------------

    def _tables(self, request: Request) -> tuple[list[LadderTable], str | None, int | None]:
        key = request.query_params.get("table")
        seats_text = request.query_params.get("seats")
        tables = list(self.ladder.tables)
        seats = None
        if key:
            table = self.ladder.table(key)
            if table is None:
                known = ", ".join(t.key for t in self.ladder.tables)
                raise Refused(404, f"no table named {key[:40]!r} (tables: {known})")
            tables = [table]
        if seats_text:
            if not (seats_text.isascii() and seats_text.isdigit() and len(seats_text) <= 3):
                raise Refused(404, "seats= takes a number")
            seats = int(seats_text)
            tables = [t for t in tables if t.seats == seats]
        return tables, key or None, seats

    async def _board_bots(self, table: LadderTable) -> tuple[list[queries.BoardBot], TableStats, tuple[int, ...]]:
        """The table's bots and totals, from one snapshot, and the versions on its board."""
        def read(db: Any) -> tuple[list[queries.BoardBot], TableStats]:
            return queries.board_bots(db, table.key), queries.table_stats(db, table.key)
        bots, stats = await self.read(read)
        return bots, stats, tuple(sorted(b.version for b in bots))

    async def board(self, table: LadderTable) -> list[BoardRow]:
        bots, stats, versions = await self._board_bots(table)
        elo = await self.elo.get(table, stats.last, versions)
        return queries.board_rows(bots, stats, elo)

    @_page_route
    async def leaderboard(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        tables, key, seats = self._tables(request)
        boards = [(table, await self.board(table)) for table in tables]
        return self.page(viewer, "Leaderboard", pages.leaderboard_body(self.ladder, boards, key, seats))

    @_api_route
    async def api_leaderboard(self, request: Request) -> Response:
        await self.token_entrant(request)  # public, but a bad token is still refused
        tables, _, _ = self._tables(request)
        return JSONResponse({"ladder": self.ladder.name,
                             "tables": [pages.board_json(table, await self.board(table)) for table in tables]})

    # ---- a bot --------------------------------------------------------------------------------

    @_page_route
    async def bot(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        name = request.path_params["name"]

        def read(db: Any) -> pages.BotPage | None:
            info = queries.bot_info(db, name)
            if info is None:
                return None
            allowed = self.allowed(viewer, info.owner_id)
            games = queries.recent_games(db, info.id)
            with_logs = frozenset(g.unit for g in games if allowed and unit_logs(self.ladder.logs, g.unit, info.name))
            return pages.BotPage(info, queries.version_rows(db, info), queries.rating_history(db, info.id), games,
                                 queries.head_to_head(db, info.id), queries.fault_counts(db, info.id),
                                 queries.recent_faults(db, info.id), allowed,
                                 viewer.entrant is not None and viewer.entrant.id == info.owner_id, with_logs)
        found = await self.read(read)
        if found is None:
            raise Refused(404, f"no bot named {name[:40]!r}")
        tables = {t.key: t for t in self.ladder.tables}
        body = pages.bot_body(found, tables, self.csrf(viewer.session, "rollback"), self.csrf(viewer.session, "retire"))
        return self.page(viewer, found.bot.name, body)

    @_page_route
    async def bot_logs(self, request: Request) -> Response:
        """A unit's stderr logs of a bot: its owner's (or everyone's on a public ladder).
        The files are found by the unit's number and the bot's name, both checked
        against the database; nothing of the address becomes a path."""
        viewer = await self.viewer(request)
        name = request.path_params["name"]
        unit = _number(request.path_params["unit"], "unit")
        info = await self.read(lambda db: queries.bot_info(db, name))
        if info is None:
            raise Refused(404, f"no bot named {name[:40]!r}")
        if not self.allowed(viewer, info.owner_id):
            raise Refused(403, f"the logs of {info.name} are shown to its owner only")
        played = await self.read(lambda db: queries.played_unit(db, info.id, unit))

        def collect() -> str:
            parts = []
            for path in unit_logs(self.ladder.logs, unit, info.name):
                with contextlib.suppress(OSError), path.open("rb") as file:
                    data = file.read(LOG_BYTES + 1)
                    cut = "\n[... cut: the page shows the first MiB]" if len(data) > LOG_BYTES else ""
                    parts.append(f"==> {path.name} <==\n{data[:LOG_BYTES].decode('utf-8', 'replace')}{cut}\n")
            return "\n".join(parts)
        text = await anyio.to_thread.run_sync(collect) if played else ""
        if not text:
            raise Refused(404, f"no stderr log of {info.name} at unit {unit} (logs of old games are removed: "
                               f"each bot keeps its newest {self.ladder.keep_game_logs})")
        return PlainTextResponse(text, headers={"cache-control": "no-store"})

    async def _owned_bot(self, viewer: Viewer, name: str) -> queries.BotInfo:
        if viewer.entrant is None:
            raise Refused(401, "sign in first (or send your token)")
        info = await self.read(lambda db: queries.bot_info(db, name))
        if info is None:
            raise Refused(404, f"no bot named {name[:40]!r}")
        if info.owner_id != viewer.entrant.id:
            raise Refused(403, f"{info.name} is not yours")
        return info

    async def _rollback(self, viewer: Viewer, name: str, number: object) -> queries.BotInfo:
        info = await self._owned_bot(viewer, name)
        if isinstance(number, str) and number.isascii() and number.isdigit() and len(number) <= 9:
            number = int(number)
        if not isinstance(number, int) or isinstance(number, bool):
            raise Refused(400, 'give the version\'s number, e.g. {"version": 3}')
        assert viewer.entrant is not None
        actor = viewer.entrant.name
        try:
            await self.write(lambda store: store.choose_version(info.name, int(number), actor))
        except ArenaError as exc:
            raise Refused(400, str(exc)) from None
        return info

    async def _retire(self, viewer: Viewer, name: str) -> queries.BotInfo:
        info = await self._owned_bot(viewer, name)
        if info.status == "disqualified":
            raise Refused(403, f"{info.name} is disqualified: {info.reason}; only the organiser changes that")
        assert viewer.entrant is not None
        actor = viewer.entrant.name
        await self.write(lambda store: store.set_status(info.name, "retired", f"retired by {actor}", actor))
        return info

    @_page_route
    async def bot_rollback(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        form = await self.read_form(request, FORM_BYTES, 0)
        self.check_csrf(viewer, "rollback", form)
        info = await self._rollback(viewer, request.path_params["name"], form.get("version"))
        return RedirectResponse(f"/bot/{info.name}", 303)

    @_page_route
    async def bot_retire(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        form = await self.read_form(request, FORM_BYTES, 0)
        self.check_csrf(viewer, "retire", form)
        info = await self._retire(viewer, request.path_params["name"])
        return RedirectResponse(f"/bot/{info.name}", 303)

    @_api_route
    async def api_rollback(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        body = await self.read_body(request, FORM_BYTES)
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            raise Refused(400, 'the body is not JSON; send {"version": N}') from None
        number = data.get("version") if isinstance(data, dict) else None
        info = await self._rollback(viewer, request.path_params["name"], number)
        return JSONResponse({"bot": info.name, "version": number})

    @_api_route
    async def api_retire(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        info = await self._retire(viewer, request.path_params["name"])
        return JSONResponse({"bot": info.name, "status": "retired"})

    # ---- versions -----------------------------------------------------------------------------

    async def _version(self, request: Request) -> queries.VersionInfo:
        number = _number(request.path_params["version"], "version")
        info = await self.read(lambda db: queries.version_info(db, number))
        if info is None:
            raise Refused(404, f"no version {number}")
        return info

    @_page_route
    async def version(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        info = await self._version(request)
        refresh = 3 if info.state in ("building", "checking") else None
        return self.page(viewer, f"{info.bot} v{info.number}",
                         pages.version_body(info, self.allowed(viewer, info.owner_id)), refresh=refresh)

    @_page_route
    async def version_log(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        info = await self._version(request)
        if not self.allowed(viewer, info.owner_id):
            raise Refused(403, f"the build log of {info.bot} is shown to its owner only")
        return PlainTextResponse(info.log or f"no log yet: the version is {info.state}",
                                 headers={"cache-control": "no-store"})

    @_api_route
    async def api_version(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        if viewer.entrant is None:
            raise Refused(401, "give your token as `Authorization: Bearer TOKEN`")
        info = await self._version(request)
        answer: dict[str, object] = {"state": info.state, "bot": info.bot, "number": info.number}
        if self.allowed(viewer, info.owner_id):
            answer["log"] = info.log
        return JSONResponse(answer)

    # ---- games --------------------------------------------------------------------------------

    @_page_route
    async def game(self, request: Request) -> Response:
        number = _number(request.path_params["game"], "game")
        text = self._replays.get(number)
        if text is None:
            record = await self.read(lambda db: queries.record_text(db, number))
            if record is None:
                return PlainTextResponse(f"game {number} is not stored here (not finished yet, or no such game)",
                                         404)
            if not record:
                return PlainTextResponse(f"game {number} has no record to replay", 404)

            def draw() -> str:
                return replay_page(read_text(record)[0])
            try:
                text = await anyio.to_thread.run_sync(draw)
            except (ArenaError, ValueError) as exc:
                return PlainTextResponse(f"game {number} cannot be replayed: {exc}", 500)
            if len(self._replays) >= REPLAYS_KEPT:
                self._replays.pop(next(iter(self._replays)))
            self._replays[number] = text
        return HTMLResponse(text)

    def _drawing(self, table: LadderTable, playing: Any) -> tuple[str, str, str]:
        key = (table.key, playing.index, len(playing.actions))
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = pages.board_picture(table.game, playing)
            if len(self._drawn) > 256:
                self._drawn.clear()
            self._drawn[key] = drawn
        return drawn

    @_page_route
    async def games_under_way(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        tables, _, _ = self._tables(request)
        sections = []
        for table in tables:
            games = self.under_way.get(table.key)
            playing = sorted(games.games.values(), key=lambda g: g.index) if games is not None else []
            cards, defs = [], ""
            for game in playing:
                game_defs, svg, label = self._drawing(table, game)
                defs = defs or game_defs
                cards.append((game, svg, label))
            sections.append(pages.under_way_section(table, cards, defs))
        return self.page(viewer, "Under way", "".join(sections), refresh=UNDER_WAY_REFRESH_S)

    # ---- sign-in ------------------------------------------------------------------------------

    @_page_route
    async def signin_form(self, request: Request) -> Response:
        viewer = await self.viewer(request)
        fresh = None
        if viewer.form_base is None:  # a first visit: the form's token needs a cookie to be made from
            fresh = secrets.token_urlsafe(24)
            viewer = replace(viewer, visitor=fresh)
        response = self.page(viewer, "Sign in", pages.signin_body(self.csrf(viewer.form_base, "signin")))
        if fresh is not None:
            response.set_cookie(ANON_COOKIE, fresh, max_age=24 * 3600, path="/", httponly=True, samesite="strict",
                                secure=request.url.scheme == "https")
        return response

    @_page_route
    async def signin(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        form = await self.read_form(request, FORM_BYTES, 0)
        self.check_csrf(viewer, "signin", form)
        token = form.get("token")
        entrant = None
        if isinstance(token, str) and token.strip():
            entrant = await anyio.to_thread.run_sync(self.tokens.entrant, token.strip())
        if entrant is None:
            return self.page(viewer, "Sign in", pages.signin_body(self.csrf(viewer.form_base, "signin"),
                                                                  "that token was refused; check it, or ask the "
                                                                  "organiser for a new one"), 401)
        expiry = int(time.time()) + SESSION_S
        response = RedirectResponse("/", 303)
        response.set_cookie(SESSION_COOKIE, self.session_value(entrant, expiry), max_age=SESSION_S, path="/",
                            httponly=True, samesite="strict", secure=request.url.scheme == "https")
        return response

    @_page_route
    async def signout(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        form = await self.read_form(request, FORM_BYTES, 0)
        self.check_csrf(viewer, "signout", form)
        response = RedirectResponse("/", 303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    # ---- submitting ---------------------------------------------------------------------------

    def _submit_page(self, viewer: Viewer, name: str = "", error: str = "", status: int = 200) -> Response:
        if viewer.entrant is None:
            return self.page(viewer, "Submit a bot", '<p>Submitting needs an entrant\'s token: '
                             '<a href="/signin">sign in</a> first.</p>', status if error else 200)
        body = pages.submit_body(self.ladder.languages, self.csrf(viewer.form_base, "submit"),
                                 name or viewer.entrant.name, self.ladder.max_upload_bytes, error)
        return self.page(viewer, "Submit a bot", body, status)

    @_page_route
    async def submit_form(self, request: Request) -> Response:
        return self._submit_page(await self.viewer(request))

    async def _submit(self, entrant: Entrant, form: FormData) -> tuple[Version, str]:
        """The form's bot submitted: (its version, the bot's name)."""
        upload = next((form[f] for f in ("bot", "file") if isinstance(form.get(f), UploadFile)), None)
        if not isinstance(upload, UploadFile):
            raise Refused(400, "no file: send the bot as the form's `bot` file")
        data = await upload.read()
        if len(data) > self.ladder.max_upload_bytes:
            raise Refused(413, f"the upload is {len(data):,} bytes, more than this ladder's "
                               f"{self.ladder.max_upload_bytes:,}")
        language = form.get("language")
        if not language and len(self.ladder.languages) == 1:
            language = next(iter(self.ladder.languages))
        if not isinstance(language, str) or not language:
            raise Refused(400, f"say the bot's language: one of {', '.join(sorted(self.ladder.languages))}")
        name = form.get("name")
        bot_name = name.strip() if isinstance(name, str) and name.strip() else entrant.name
        try:
            return await self.submissions.submit(entrant, bot_name, language, upload.filename or "bot", data), bot_name
        except SubmissionError as exc:
            raise Refused(exc.status, str(exc)) from None
        except ArenaError as exc:
            raise Refused(400, str(exc)) from None

    @_page_route
    async def submit(self, request: Request) -> Response:
        self.check_origin(request)
        viewer = await self.viewer(request)
        form = await self.read_form(request, self.upload_limit, 1)
        try:
            self.check_csrf(viewer, "submit", form)
            if viewer.entrant is None:
                raise Refused(401, "sign in first")
            try:
                version, _ = await self._submit(viewer.entrant, form)
            except Refused as exc:  # the form again, with what to fix
                name = form.get("name")
                return self._submit_page(viewer, name if isinstance(name, str) else "", exc.message, exc.status)
        finally:
            await form.close()
        return RedirectResponse(f"/version/{version.id}", 303)

    @_api_route
    async def api_submit(self, request: Request) -> Response:
        self.check_origin(request)
        entrant = await self.token_entrant(request)
        if entrant is None:
            raise Refused(401, "give your token as `Authorization: Bearer TOKEN`")
        form = await self.read_form(request, self.upload_limit, 1)
        try:
            version, name = await self._submit(entrant, form)
        finally:
            await form.close()
        return JSONResponse({"version": version.id, "bot": name, "number": version.number, "state": version.state,
                             "url": f"/version/{version.id}"}, 202)

    # ---- the app ------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def bind(handler: Callable[[LadderSite, Request], Awaitable[Response]]) \
                -> Callable[[Request], Awaitable[Response]]:
            async def endpoint(request: Request) -> Response:
                return await handler(self, request)
            return endpoint

        site = LadderSite
        return [
            Route("/", bind(site.leaderboard), methods=["GET"]),
            Route("/under-way", bind(site.games_under_way), methods=["GET"]),
            Route("/bot/{name}/logs/{unit}", bind(site.bot_logs), methods=["GET"]),
            Route("/bot/{name}/rollback", bind(site.bot_rollback), methods=["POST"]),
            Route("/bot/{name}/retire", bind(site.bot_retire), methods=["POST"]),
            Route("/bot/{name:path}", bind(site.bot), methods=["GET"]),  # any name the store holds
            Route("/game/{game}", bind(site.game), methods=["GET"]),
            Route("/version/{version}", bind(site.version), methods=["GET"]),
            Route("/version/{version}/log", bind(site.version_log), methods=["GET"]),
            Route("/submit", bind(site.submit_form), methods=["GET"]),
            Route("/submit", bind(site.submit), methods=["POST"]),
            Route("/signin", bind(site.signin_form), methods=["GET"]),
            Route("/signin", bind(site.signin), methods=["POST"]),
            Route("/signout", bind(site.signout), methods=["POST"]),
            Route("/api/bots", bind(site.api_submit), methods=["POST"]),
            Route("/api/bots/{name}/rollback", bind(site.api_rollback), methods=["POST"]),
            Route("/api/bots/{name}/retire", bind(site.api_retire), methods=["POST"]),
            Route("/api/version/{version}", bind(site.api_version), methods=["GET"]),
            Route("/api/leaderboard", bind(site.api_leaderboard), methods=["GET"]),
            Route("/favicon.ico", _no_icon, methods=["GET"]),
        ]

    async def keep_boards_fresh(self) -> None:
        """Refit every 2-seat table's Elo every REFRESH_S, off the pages' path (the first
        time before a page asks, when it can), until cancelled. Should it fail other
        than by a database that cannot be read this once, the pages go back to refitting
        it themselves (and show the error), and the server goes on."""
        self.elo.kept_fresh = True
        try:
            while True:
                for table in self.ladder.tables:
                    if table.seats != 2:
                        continue
                    with contextlib.suppress(queries.QueryError, sqlite3.OperationalError):
                        _, _, versions = await self._board_bots(table)
                        await self.elo.update(table, versions)
                await anyio.sleep(REFRESH_S)
        except Exception:  # noqa: BLE001 - the pages report it; the ladder must go on
            return
        finally:
            self.elo.kept_fresh = False


def ladder_app(ladder: Ladder, store_path: Path, submissions: SubmissionsLike,
               under_way: Mapping[str, GamesUnderWay], tokens: TokenChecker, secret: bytes) -> Starlette:
    """The ladder's pages and API (docs/ladder.md); `secret` (the store's) signs sessions
    and form tokens."""
    site = LadderSite(ladder, store_path, submissions, under_way, tokens, secret)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            group.start_soon(site.keep_boards_fresh)
            yield
            group.cancel_scope.cancel()

    app = Starlette(routes=site.routes(), middleware=[Middleware(SecurityHeaders)], lifespan=lifespan)
    app.state.site = site
    return app
