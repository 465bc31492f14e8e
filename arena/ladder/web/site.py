"""What every route of the ladder's web side shares: the ladder, its store's path, the
door for submissions, the games under way, who is asking (arena.ladder.web.auth), the Elo
cache, and the few reads and frames the pages and the API both use.

Reads run arena.ladder.web.queries on their own read-only connection, in a worker thread
(the clock loop never waits on SQLite); writes (rollback, retire) open the ladder's
store for that one write. A route is written as `async def route(site, request)` and
wrapped by `page_route` or `api_route`, which turn a refusal into a page or JSON."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

from arena.ladder.config import Ladder, LadderTable
from arena.ladder.store import Entrant, LadderStore, Version
from arena.ladder.tokens import TokenChecker
from arena.ladder.web import pages, queries
from arena.ladder.web.auth import Auth, Viewer
from arena.ladder.web.bodies import FORM_BYTES
from arena.ladder.web.elo_cache import EloCache
from arena.ladder.web.info_means import InfoMeansCache
from arena.ladder.web.queries import BoardRow, TableStats
from arena.ladder.web.refused import Refused, address_number
from arena.league.under_way import GamesUnderWay

T = TypeVar("T")

TITLES = {401: "Not signed in", 403: "Not allowed", 404: "Not found", 413: "Too large"}


class SubmissionsLike(Protocol):
    """The ladder's door for new versions (arena.ladder.submissions.Submissions)."""

    async def submit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        ...


class LadderSite:
    """The app's state, shared by its routes."""

    def __init__(self, ladder: Ladder, store_path: Path, submissions: SubmissionsLike,
                 under_way: Mapping[str, GamesUnderWay], tokens: TokenChecker, secret: bytes) -> None:
        self.ladder = ladder
        self.path = store_path
        self.submissions = submissions
        self.under_way = under_way
        self.auth = Auth(store_path, tokens, secret, ladder.public_logs)
        self.elo = EloCache(store_path)
        self.info = InfoMeansCache()
        self.replays: dict[int, str] = {}
        """Replay pages drawn lately, by game (arena.ladder.web.game_pages)."""
        self.drawn: dict[tuple[str, int, int], tuple[str, str, str]] = {}
        """Boards of games under way drawn lately, by (table, game, plies)."""

    # ---- reading and writing ------------------------------------------------------------------

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

    @property
    def upload_limit(self) -> int:
        """The most a submission's request may send: the upload and its form's fields."""
        return self.ladder.max_upload_bytes + FORM_BYTES

    # ---- page frames --------------------------------------------------------------------------

    def page(self, viewer: Viewer, title: str, body: str, status: int = 200, refresh: int | None = None) \
            -> HTMLResponse:
        """A whole page around `body`, with the header that says who is signed in."""
        chrome = pages.Chrome(self.ladder.name, None if viewer.entrant is None else viewer.entrant.name,
                              self.auth.csrf(viewer.session, "signout"))
        return HTMLResponse(pages.layout(chrome, title, body, refresh), status,
                            headers={"cache-control": "no-store"})

    async def refusal_page(self, request: Request, refusal: Refused) -> Response:
        viewer = await self.auth.viewer_or_nobody(request)
        return self.page(viewer, TITLES.get(refusal.status, "Refused"), pages.message(refusal.message),
                         refusal.status)

    # ---- what pages and API both read -----------------------------------------------------------

    def tables(self, request: Request) -> tuple[list[LadderTable], str | None, int | None]:
        """The tables the request's `table=` and `seats=` choose: (them, the key, the seats)."""
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

    async def board_bots(self, table: LadderTable) -> tuple[list[queries.BoardBot], TableStats, tuple[int, ...]]:
        """The table's bots and totals, from one snapshot, and the versions on its board."""
        def read(db: Any) -> tuple[list[queries.BoardBot], TableStats]:
            return queries.board_bots(db, table.key), queries.table_stats(db, table.key)
        bots, stats = await self.read(read)
        return bots, stats, tuple(sorted(b.version for b in bots))

    async def board_versions(self, table: LadderTable) -> tuple[int, ...]:
        """The versions on the table's board (what its Elo is fitted over)."""
        return (await self.board_bots(table))[2]

    async def board(self, table: LadderTable) -> list[BoardRow]:
        bots, stats, versions = await self.board_bots(table)
        elo = await self.elo.get(table, stats.last, versions)
        return queries.board_rows(bots, stats, elo)

    async def version_at(self, request: Request) -> queries.VersionInfo:
        """The version the address names (404 if none)."""
        number = address_number(request.path_params["version"], "version")
        info = await self.read(lambda db: queries.version_info(db, number))
        if info is None:
            raise Refused(404, f"no version {number}")
        return info


Handler = Callable[[LadderSite, Request], Awaitable[Response]]
"""A route of the ladder: what it answers `request` with, given the site."""


def page_route(handler: Handler) -> Handler:
    """A page's handler: a refusal becomes a page that says why, with its status."""
    async def route(site: LadderSite, request: Request) -> Response:
        try:
            return await handler(site, request)
        except Refused as exc:
            return await site.refusal_page(request, exc)
        except queries.QueryError as exc:
            return PlainTextResponse(str(exc), 503)
    return route


def api_route(handler: Handler) -> Handler:
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
