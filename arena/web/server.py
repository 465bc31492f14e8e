"""A small read-mostly web server for the arena's pages: an ASGI app of plain routes,
served by hypercorn's trio worker inside the process that plays the games (so a page
sees the games as they are played, and stops with them). Bound to 127.0.0.1 unless
the user says otherwise.

Why hypercorn: it is a well-kept ASGI server that runs on trio, the arena's event loop,
so the server is one more task in the arena's nursery rather than a thread or another
process."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qs

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from arena.errors import ArenaError

T = TypeVar("T")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


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


class App:
    """An ASGI app that maps exact paths, or path prefixes ending in '/', to routes
    (anything else is 404)."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = {"/favicon.ico": _no_icon, **routes}

    def _route(self, path: str) -> Route | None:
        """The route of `path`: an exact one, else the longest prefix ending in '/'
        (never "/" alone, the page itself)."""
        if path in self.routes:
            return self.routes[path]
        prefixes = [p for p in self.routes if p != "/" and p.endswith("/") and path.startswith(p)]
        return self.routes[max(prefixes, key=len)] if prefixes else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body") or len(body) > 1 << 16:
                break
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode("latin-1")).items()}
        route = self._route(scope["path"])
        if route is None:
            reply = Reply.text("not found", 404)
        else:
            reply = await route(Request(scope["method"], scope["path"], query, body))
        await send({"type": "http.response.start", "status": reply.status, "headers": [
            (b"content-type", reply.content_type.encode()), (b"cache-control", b"no-store"),
            (b"content-length", str(len(reply.body)).encode())]})
        await send({"type": "http.response.body", "body": reply.body})
        if reply.on_sent is not None:
            reply.on_sent()


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
