"""The ladder's web side as a Starlette app (run on trio by hypercorn, inside `arena
ladder run`): its routes, and the task of its lifespan that keeps the leaderboard's
Elo fresh. The parts, each in its own module:

- arena.ladder.web.auth: who is asking (bearer tokens, the session cookie, form tokens,
  Origin checks) and who may read which logs;
- arena.ladder.web.bodies: request bodies and forms, bounded;
- arena.ladder.web.site: the state the routes share and their reads;
- arena.ladder.web.page_routes and arena.ladder.web.game_pages: the pages;
- arena.ladder.web.api: the HTTP API;
- arena.ladder.web.bot_actions: submit, roll back, retire, for pages and API alike;
- arena.ladder.web.elo_cache: the leaderboard's Elo, fitted off the pages' path;
- arena.ladder.web.info_means and arena.ladder.web.info_chart: a bot's info charts."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.ladder.config import Ladder
from arena.ladder.tokens import TokenChecker
from arena.ladder.web import api, game_pages, page_routes
from arena.ladder.web.auth import SESSION_COOKIE
from arena.ladder.web.elo_cache import EloCache
from arena.ladder.web.site import Handler, LadderSite, SubmissionsLike
from arena.league.under_way import GamesUnderWay
from arena.web.server import SecurityHeaders

__all__ = ["SESSION_COOKIE", "EloCache", "LadderSite", "SubmissionsLike", "ladder_app", "routes"]


async def _no_icon(request: Request) -> Response:
    """Browsers ask for an icon: none, and no error in the page's console either."""
    return Response(b"", 204, media_type="image/x-icon")


def routes(site: LadderSite) -> list[Route]:
    """Every address of the ladder, each bound to `site`."""
    def bind(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await handler(site, request)
        return endpoint

    pages = page_routes
    return [
        Route("/", bind(pages.leaderboard), methods=["GET"]),
        Route("/under-way", bind(game_pages.under_way), methods=["GET"]),
        Route("/bot/{name}/logs/{unit}", bind(pages.bot_logs), methods=["GET"]),
        Route("/bot/{name}/rollback", bind(pages.bot_rollback), methods=["POST"]),
        Route("/bot/{name}/retire", bind(pages.bot_retire), methods=["POST"]),
        Route("/bot/{name:path}", bind(pages.bot), methods=["GET"]),  # any name the store holds
        Route("/game/{game}", bind(game_pages.game), methods=["GET"]),
        Route("/version/{version}", bind(pages.version), methods=["GET"]),
        Route("/version/{version}/log", bind(pages.version_log), methods=["GET"]),
        Route("/submit", bind(pages.submit_form), methods=["GET"]),
        Route("/submit", bind(pages.submit), methods=["POST"]),
        Route("/signin", bind(pages.signin_form), methods=["GET"]),
        Route("/signin", bind(pages.signin), methods=["POST"]),
        Route("/signout", bind(pages.signout), methods=["POST"]),
        Route("/api/bots", bind(api.submit), methods=["POST"]),
        Route("/api/bots/{name}/rollback", bind(api.rollback), methods=["POST"]),
        Route("/api/bots/{name}/retire", bind(api.retire), methods=["POST"]),
        Route("/api/version/{version}", bind(api.version), methods=["GET"]),
        Route("/api/leaderboard", bind(api.leaderboard), methods=["GET"]),
        Route("/favicon.ico", _no_icon, methods=["GET"]),
    ]


def ladder_app(ladder: Ladder, store_path: Path, submissions: SubmissionsLike,
               under_way: Mapping[str, GamesUnderWay], tokens: TokenChecker, secret: bytes) -> Starlette:
    """The ladder's pages and API (docs/ladder.md); `secret` (the store's) signs sessions
    and form tokens."""
    site = LadderSite(ladder, store_path, submissions, under_way, tokens, secret)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            group.start_soon(site.elo.keep_fresh, ladder.tables, site.board_versions)
            yield
            group.cancel_scope.cancel()

    app = Starlette(routes=routes(site), middleware=[Middleware(SecurityHeaders)], lifespan=lifespan)
    app.state.site = site
    return app
