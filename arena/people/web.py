"""`human-web`: a person playing in the browser. The arena serves one page (the shared
template in "human" mode) on 127.0.0.1; at each decision the page shows the board as
the person's seat sees it, with every place an action can be played marked: a click
there plays the action when it is the only one there, else the page lists the actions
of that place; every legal action is also a button. No undo: the first answer to a
request is played."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import trio

from arena import games
from arena.people.seat import SeatView
from arena.render.svg import View, svg_defs, svg_state
from arena.web.frames import Film
from arena.web.page import page
from arena.web.server import App, Reply, Request, serve_during

T = TypeVar("T")
POLL_S = 15.0
"""How long a page's request for news waits before it is answered with no change."""


class WebPerson:
    """A person at a browser page: `choose` waits for the click the page sends."""

    def __init__(self, name: str = "human-web") -> None:
        self.name = name
        self.version = 0
        self.view: SeatView | None = None
        self.message = "waiting for the game to start"
        self.request_id = 0
        self.served = -1
        """The version a page was last sent in full (-1: none yet)."""
        self._changed = trio.Event()
        self._served = trio.Event()
        self._send, self._receive = trio.open_memory_channel[tuple[int, str]](math.inf)
        self.app = App({"/": self._page, "/api/state": self._state, "/api/action": self._action})

    # ---- the seat's side ---------------------------------------------------------------

    async def choose(self, view: SeatView) -> str:
        self.request_id += 1
        self.view = view
        self.message = "your move: click a marked place on the board, or an action below"
        self._bump()
        while True:
            request_id, action = await self._receive.receive()
            if request_id == self.request_id and action in view.legal:
                self.message = f"you played {action}; waiting for the others"
                self.request_id += 1  # no second answer to this request
                self._bump()
                return action

    async def game_over(self, view: SeatView) -> None:
        self.view = view
        result = view.result or {}
        ranks = result.get("ranks") or []
        place = ranks[view.seat] if view.seat < len(ranks) else "?"
        self.message = (f"game over ({result.get('termination')}): you placed #{place}; ranks {ranks}, "
                        f"scores {result.get('scores')}")
        self.request_id += 1
        self._bump()

    async def caught_up(self) -> None:
        """Return once no page lags behind the news: none was ever served, or the last
        one sent has the latest version."""
        while True:
            served = self._served
            if not 0 <= self.served < self.version:
                return
            await served.wait()

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    # ---- the page's side ---------------------------------------------------------------

    async def _page(self, request: Request) -> Reply:
        return Reply(page("human", f"{self.name}: your seat", "the arena", {}).encode())

    async def _state(self, request: Request) -> Reply:
        since = int(request.query.get("since", "-1") or -1)
        if since >= self.version:
            with trio.move_on_after(POLL_S):
                await self._changed.wait()
        snapshot = self.snapshot()
        version = int(snapshot["version"])

        def sent() -> None:  # the game may stop serving once the page has the last news
            self.served = max(self.served, version)
            self._served.set()
            self._served = trio.Event()

        return replace(Reply.json(snapshot), on_sent=sent)

    async def _action(self, request: Request) -> Reply:
        try:
            body = json.loads(request.body or b"{}")
            action, request_id = str(body["action"]), int(body["request"])
        except (ValueError, KeyError, TypeError):
            return Reply.json({"error": "send {\"action\": ..., \"request\": ...}"}, 400)
        await self._send.send((request_id, action))
        return Reply.json({"ok": True})

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows now."""
        view = self.view
        data: dict[str, Any] = {"version": self.version, "message": self.message, "request": None,
                                "deadline_ms": None, "title": f"{self.name}: your seat", "subtitle": "",
                                "film": None, "side": ""}
        if view is None:
            return data
        game = games.get(view.game_id)
        asking = view.result is None and bool(view.legal)
        spots = tuple(sorted(set(view.spots.values()))) if asking else ()
        status = self.message
        picture = View(tuple(view.names), last=view.last, last_actor=view.last_actor, seat=view.seat,
                       status=status, spots=spots)
        film = Film(view.game_id, list(view.names), svg_defs(view.game_id, view.state, picture))
        film.add(0, 0, view.last_actor, view.last, self.message, svg_state(view.game_id, view.state, picture))
        data["film"] = film.to_json()
        data["title"] = f"{game.name}: {' v '.join(view.names)}"
        data["subtitle"] = f"you are {view.names[view.seat]}, seat {view.seat}"
        if asking:
            data["request"] = {"id": self.request_id, "legal": view.legal, "spots": view.spots}
            move_ms = view.clock.get("move_ms")
            data["deadline_ms"] = move_ms if isinstance(move_ms, int) and move_ms < 24 * 3600 * 1000 else None
        last = "" if view.last is None else f"<p>last action: <b>{html.escape(view.last)}</b></p>"
        data["side"] = (f"<h2>Your seat</h2><p>{html.escape(view.names[view.seat])}, seat {view.seat}</p>{last}"
                        f"<p class=note>{len(view.legal)} legal actions</p>" if asking else last)
        return data


async def with_web_person(person: WebPerson, host: str, port: int, announce: Callable[[str], None],
                          play: Callable[[], Awaitable[T]]) -> T:
    """Serve the person's page while `play` runs; `announce` gets the page's address.
    Afterwards the page may fetch the result for a moment, if a page is open."""

    return await serve_during(person.app, host, port, announce, play, person.caught_up)
