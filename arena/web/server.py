"""A small web server for the arena's pages: an ASGI app of plain routes, served by
hypercorn's trio worker inside the process that plays the games (so a page sees the
games as they are played, and stops with them). Bound to 127.0.0.1 unless the user
says otherwise.

Why hypercorn: it is a well-kept ASGI server that runs on trio, the arena's event loop,
so the server is one more task in the arena's nursery rather than a thread or another
process.

Why Starlette under the plain routes: the pages grow from read-only to forms, uploads,
cookies and sign-in (the ladder, issue 37), which a hand-written router would have to
grow by itself. Starlette is a well-kept ASGI framework that runs on trio through anyio
and has those parts (forms and uploads through python-multipart), so the ladder adds
native Starlette routes beside the plain ones (`App(routes, extra=...)`) while the
pages that exist keep their small `Request` -> `Reply` routes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qs

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.datastructures import URLPath
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.errors import ArenaError

T = TypeVar("T")

BODY_LIMIT = 1 << 16
"""A plain route reads at most this much of a request body (its pages post small JSON)."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)
"""Headers every reply carries (no Content-Security-Policy: the pages run inline scripts)."""


@dataclass
class Reply:
    """What a route answers: a status, a content type and a body."""

    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    on_sent: Callable[[], None] | None = None
    """Called once the whole body is handed to the connection (a route that must know
    its answer left, not only that it was computed)."""

    @classmethod
    def json(cls, value: object, status: int = 200) -> Reply:
        return cls(json.dumps(value, separators=(",", ":")).encode(), "application/json", status)

    @classmethod
    def text(cls, message: str, status: int) -> Reply:
        return cls(message.encode(), "text/plain; charset=utf-8", status)


@dataclass(frozen=True)
class Request:
    """An HTTP request as a route sees it."""

    method: str
    path: str
    query: dict[str, str]
    body: bytes


Route = Callable[[Request], Awaitable[Reply]]


async def _no_icon(request: Request) -> Reply:
    """Browsers ask for an icon: none, and no error in the page's console either."""
    return Reply(b"", "image/x-icon", 204)


class WebServerError(ArenaError):
    """The server cannot listen where it was asked to."""


def _response(reply: Reply) -> Response:
    """A plain route's reply as Starlette sends it; `on_sent` runs as its background task,
    which Starlette starts only after the body went to the connection."""
    background = None
    if reply.on_sent is not None:
        on_sent = reply.on_sent

        async def call_on_sent() -> None:  # async, so Starlette calls it here, not in a thread
            on_sent()

        background = BackgroundTask(call_on_sent)
    return Response(reply.body, reply.status, {"content-type": reply.content_type, "cache-control": "no-store"},
                    background=background)


async def _read_body(receive: Receive) -> bytes:
    """The request's body, cut at BODY_LIMIT (the rest is not read)."""
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if not message.get("more_body") or len(body) > BODY_LIMIT:
            return body[:BODY_LIMIT]


class _PlainRoutes(BaseRoute):
    """The App's plain routes as one Starlette route: it matches a path that one of them
    serves, so native routes before it are checked first and no path falls through to
    a Starlette default."""

    def __init__(self, app: App) -> None:
        self.app = app

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        route = self.app.route_of(scope["path"])
        return (Match.NONE, {}) if route is None else (Match.FULL, {"endpoint": route})

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: Route = scope["endpoint"]
        body = await _read_body(receive)
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode("latin-1")).items()}
        reply = await route(Request(scope["method"], scope["path"], query, body))
        await _response(reply)(scope, receive, send)


class SecurityHeaders:
    """Adds SECURITY_HEADERS to every HTTP reply, plain or native, that does not set
    its own value of one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {bytes(name).lower() for name, _ in headers}
                headers += [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class App:
    """An ASGI app that maps exact paths, or path prefixes ending in '/', to routes
    (anything else is 404).

    It is a Starlette app (`starlette`): the native Starlette routes in `extra` are
    checked first, then the plain routes; `middleware` is Starlette middleware around
    both. Serve the App itself: it adds the security headers around everything,
    Starlette's own error replies included."""

    def __init__(self, routes: dict[str, Route], extra: Sequence[BaseRoute] = (),
                 middleware: Sequence[Middleware] = ()) -> None:
        self.routes = {"/favicon.ico": _no_icon, **routes}
        self.starlette = Starlette(routes=[*extra, _PlainRoutes(self)], middleware=list(middleware))
        # A path no route serves is our 404 (not Starlette's redirect to the other slash).
        self.starlette.router.redirect_slashes = False
        self.starlette.router.default = self._not_found
        self._asgi = SecurityHeaders(self.starlette)

    def route_of(self, path: str) -> Route | None:
        """The route of `path`: an exact one, else the longest prefix ending in '/'
        (never "/" alone, the page itself)."""
        if path in self.routes:
            return self.routes[path]
        prefixes = [p for p in self.routes if p != "/" and p.endswith("/") and path.startswith(p)]
        return self.routes[max(prefixes, key=len)] if prefixes else None

    async def _not_found(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.starlette.router.not_found(scope, receive, send)
            return
        await _response(Reply.text("not found", 404))(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._asgi(scope, receive, send)


async def run_server(app: App, host: str, port: int, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) \
        -> None:
    """Serve `app` until cancelled; reports the address it listens on once it does."""
    config = Config()
    config.bind = [f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.loglevel = "WARNING"
    config.graceful_timeout = 0.2
    try:
        await serve(app, config, task_status=task_status)  # type: ignore[arg-type]
    except OSError as exc:
        raise WebServerError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another port "
                             "(or 0 for a free one)") from None


def address(bound: object) -> str:
    """The page's address from what hypercorn reports after it binds (a list of
    'http://host:port' strings)."""
    if isinstance(bound, list) and bound:
        return str(bound[0]) + "/"
    return str(bound)


async def serve_during(app: App, host: str, port: int, announce: Callable[[str], None],
                       work: Callable[[], Awaitable[T]], linger: Callable[[], Awaitable[None]] | None = None) -> T:
    """Serve `app` while `work` runs (`announce` gets the page's address once it
    listens); then `linger` (a page's last fetch), then stop."""
    async with trio.open_nursery() as nursery:
        bound = await nursery.start(run_server, app, host, port)
        announce(address(bound))
        try:
            return await work()
        finally:
            if linger is not None:
                with trio.move_on_after(3):
                    await linger()
            nursery.cancel_scope.cancel()
