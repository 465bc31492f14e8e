"""The web layer on Starlette: the plain routes keep their rules (exact path, longest
prefix ending in '/', 404 "not found", favicon, no-store), native Starlette routes sit
beside them, every reply carries the security headers, and the whole of it runs on
trio under hypercorn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import sniffio
import trio
from starlette.middleware import Middleware
from starlette.requests import Request as StarletteRequest
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route as StarletteRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.web.server import BODY_LIMIT, App, Reply, Request, Route, run_server

SECURITY = {"x-content-type-options": "nosniff", "referrer-policy": "same-origin", "x-frame-options": "DENY"}


def says(text: str) -> Route:
    async def route(request: Request) -> Reply:
        return Reply.text(text, 200)
    return route


async def echo(request: Request) -> Reply:
    return Reply.json({"method": request.method, "path": request.path, "query": request.query,
                       "length": len(request.body), "body": request.body[:100].decode()})


def ask(app: App, talk: Callable[[httpx.AsyncClient], Awaitable[None]], raise_app_exceptions: bool = True) -> None:
    """Run `talk` against `app` in trio, in process (httpx's ASGI transport: Starlette's
    TestClient is deprecated with httpx and runs the app in a thread's portal)."""
    async def main() -> None:
        transport = httpx.ASGITransport(app, raise_app_exceptions=raise_app_exceptions)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            with trio.fail_after(30):
                await talk(http)
    trio.run(main)


def test_an_exact_path_wins_then_the_longest_prefix_and_slash_alone_is_no_prefix() -> None:
    app = App({"/": says("page"), "/game/": says("game"), "/game/special/": says("special"),
               "/game/exact": says("exact")})

    async def talk(http: httpx.AsyncClient) -> None:
        assert (await http.get("/")).text == "page"
        assert (await http.get("/game/3")).text == "game"
        assert (await http.get("/game/special/4")).text == "special"
        assert (await http.get("/game/exact")).text == "exact"
        assert (await http.get("/game/")).text == "game"
        assert (await http.get("/elsewhere")).status_code == 404  # "/" serves only itself
        assert (await http.get("/game")).status_code == 404  # a prefix does not serve its path without the slash

    ask(app, talk)


def test_a_path_no_route_serves_is_a_plain_404_not_a_redirect() -> None:
    app = App({"/api/live": says("live")})

    async def talk(http: httpx.AsyncClient) -> None:
        for path in ("/nowhere", "/api/live/"):
            reply = await http.get(path, follow_redirects=False)
            assert (reply.status_code, reply.text) == (404, "not found")
            assert reply.headers["content-type"] == "text/plain; charset=utf-8"
            assert reply.headers["cache-control"] == "no-store"

    ask(app, talk)


def test_the_icon_is_no_content() -> None:
    app = App({"/": says("page")})

    async def talk(http: httpx.AsyncClient) -> None:
        reply = await http.get("/favicon.ico")
        assert (reply.status_code, reply.content) == (204, b"")
        assert reply.headers["content-type"] == "image/x-icon"

    ask(app, talk)


def test_a_route_sees_the_first_value_of_each_query_field_and_no_blank_one() -> None:
    app = App({"/api/echo": echo})

    async def talk(http: httpx.AsyncClient) -> None:
        reply = await http.get("/api/echo?since=3&a=1&a=2&blank=&word=two%20words")
        assert reply.json()["query"] == {"since": "3", "a": "1", "word": "two words"}
        assert reply.json()["method"] == "GET" and reply.json()["path"] == "/api/echo"

    ask(app, talk)


def test_a_posted_body_reaches_the_route_cut_at_the_limit() -> None:
    app = App({"/api/echo": echo})

    async def talk(http: httpx.AsyncClient) -> None:
        reply = await http.post("/api/echo", content=b'{"action": 1}')
        assert reply.json()["method"] == "POST" and reply.json()["body"] == '{"action": 1}'
        assert (await http.post("/api/echo", content=b"x" * (3 * BODY_LIMIT))).json()["length"] == BODY_LIMIT

    ask(app, talk)


def test_a_reply_has_its_type_its_length_and_no_store() -> None:
    app = App({"/": says("page"), "/api/state": echo})

    async def talk(http: httpx.AsyncClient) -> None:
        reply = await http.get("/")
        assert reply.headers["content-type"] == "text/plain; charset=utf-8"
        assert reply.headers["content-length"] == "4"
        assert reply.headers["cache-control"] == "no-store"
        assert (await http.get("/api/state")).headers["content-type"] == "application/json"

    ask(app, talk)


def test_on_sent_runs_only_after_the_body_went_out() -> None:
    calls: list[str] = []

    async def state(request: Request) -> Reply:
        reply = Reply.json({"version": 1})
        reply.on_sent = lambda: calls.append("sent")
        return reply

    app = App({"/api/state": state})

    async def main() -> None:
        sent: list[Message] = []

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            assert calls == []  # nothing counts as sent before the whole body went out
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/api/state", "query_string": b"", "headers": []}
        await app(scope, receive, send)
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
        assert sent[1]["body"] == b'{"version":1}'
        assert calls == ["sent"]

    trio.run(main)


def test_every_reply_carries_the_security_headers_and_no_content_policy() -> None:
    async def fails(request: Request) -> Reply:
        raise RuntimeError("a route that breaks")

    async def framed(request: StarletteRequest) -> Response:
        return PlainTextResponse("framed", headers={"x-frame-options": "SAMEORIGIN"})

    app = App({"/": says("page"), "/broken": fails}, extra=[StarletteRoute("/framed", framed)])

    async def talk(http: httpx.AsyncClient) -> None:
        for path in ("/", "/nowhere", "/favicon.ico", "/broken"):
            reply = await http.get(path)
            assert {name: reply.headers.get(name) for name in SECURITY} == SECURITY, path
            assert "content-security-policy" not in reply.headers
        assert (await http.get("/broken")).status_code == 500
        framed_reply = await http.get("/framed")
        assert framed_reply.headers.get_list("x-frame-options") == ["SAMEORIGIN"]  # a route's own value stays
        assert framed_reply.headers["x-content-type-options"] == "nosniff"

    ask(app, talk, raise_app_exceptions=False)


def test_native_routes_are_reached_before_the_plain_ones_and_keep_their_methods() -> None:
    async def submit(request: StarletteRequest) -> Response:
        return JSONResponse({"native": True, "token": request.headers.get("authorization")})

    app = App({"/": says("page"), "/ladder/": says("plain")},
              extra=[StarletteRoute("/ladder/submit", submit, methods=["POST"]),
                     StarletteRoute("/api/bots", submit, methods=["POST"])])
    assert app.starlette.routes[0].path == "/ladder/submit"  # type: ignore[attr-defined]

    async def talk(http: httpx.AsyncClient) -> None:
        native = await http.post("/ladder/submit", headers={"Authorization": "Bearer t"})
        assert native.json() == {"native": True, "token": "Bearer t"}
        assert {name: native.headers.get(name) for name in SECURITY} == SECURITY
        assert (await http.get("/ladder/board")).text == "plain"
        assert (await http.get("/api/bots")).status_code == 405  # no plain route there: Starlette's answer

    ask(app, talk)


def test_middleware_given_to_the_app_wraps_plain_and_native_routes() -> None:
    class Stamp:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            async def stamped(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = [*message["headers"], (b"x-stamp", b"1")]
                await send(message)
            await self.app(scope, receive, stamped)

    async def native(request: StarletteRequest) -> Response:
        return PlainTextResponse("native")

    app = App({"/": says("page")}, extra=[StarletteRoute("/native", native)], middleware=[Middleware(Stamp)])

    async def talk(http: httpx.AsyncClient) -> None:
        assert (await http.get("/")).headers["x-stamp"] == "1"
        assert (await http.get("/native")).headers["x-stamp"] == "1"

    ask(app, talk)


def test_the_app_answers_the_servers_lifespan_messages() -> None:
    app = App({"/": says("page")})

    async def main() -> None:
        inbox = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
        answers: list[str] = []

        async def receive() -> Message:
            return next(inbox)

        async def send(message: Message) -> None:
            answers.append(message["type"])

        with trio.fail_after(10):
            await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
        assert answers == ["lifespan.startup.complete", "lifespan.shutdown.complete"]

    trio.run(main)


def test_hypercorn_serves_the_app_on_trio_with_forms_and_uploads() -> None:
    """The real thing: run_server in a trio nursery on a free port, fetched over HTTP from
    a thread; a native route reads a multipart upload (python-multipart, through anyio
    on trio)."""
    libraries: list[str] = []

    async def page(request: Request) -> Reply:
        libraries.append(sniffio.current_async_library())
        await trio.lowlevel.checkpoint()  # a trio checkpoint: the route really runs in trio's loop
        reply = Reply(b"<p>page</p>")
        reply.on_sent = delivered.set
        return reply

    async def upload(request: StarletteRequest) -> Response:
        libraries.append(sniffio.current_async_library())
        async with request.form(max_part_size=1 << 20) as form:
            bot = form["bot"]
            assert not isinstance(bot, str)
            data = await bot.read()
            return JSONResponse({"language": form["language"], "name": bot.filename, "size": len(data)})

    delivered = trio.Event()
    app = App({"/": page, "/api/echo": echo}, extra=[StarletteRoute("/api/bots", upload, methods=["POST"])])

    def fetch(base: str) -> Callable[[], list[httpx.Response]]:
        def run() -> list[httpx.Response]:
            with httpx.Client(base_url=base, timeout=30) as http:
                return [http.get("/"), http.get("/nowhere?x=1"),
                        http.post("/api/echo?since=2", content=b"hello"),
                        http.post("/api/bots", data={"language": "c"}, files={"bot": ("bot.c", b"int main;" * 5000)})]
        return run

    async def main() -> list[httpx.Response]:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(run_server, app, "127.0.0.1", 0)
            base = str(bound[0]) if isinstance(bound, list) else str(bound)
            assert base.startswith("http://127.0.0.1:")
            replies = await trio.to_thread.run_sync(fetch(base))
            with trio.fail_after(10):
                await delivered.wait()
            nursery.cancel_scope.cancel()
        return replies

    page_reply, missing, posted, uploaded = trio.run(main)
    assert (page_reply.status_code, page_reply.text) == (200, "<p>page</p>")
    assert page_reply.headers["content-length"] == str(len(b"<p>page</p>"))
    assert page_reply.headers["cache-control"] == "no-store"
    assert {name: page_reply.headers.get(name) for name in SECURITY} == SECURITY
    assert (missing.status_code, missing.text) == (404, "not found")
    assert posted.json()["body"] == "hello" and posted.json()["query"] == {"since": "2"}
    assert uploaded.json() == {"language": "c", "name": "bot.c", "size": 45000}
    assert {name: uploaded.headers.get(name) for name in SECURITY} == SECURITY
    assert libraries == ["trio", "trio"]
