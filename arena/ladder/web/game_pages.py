"""The games' pages: a stored game's replay (`/game/N`, drawn by the live league's
replay page) and the games under way with their boards. Both keep what they drew
lately, so a replay that many open, or a board the page refreshes, is drawn once."""

from __future__ import annotations

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from arena.errors import ArenaError
from arena.ladder.config import LadderTable
from arena.ladder.web import pages, queries
from arena.ladder.web.refused import address_number
from arena.ladder.web.site import LadderSite, page_route
from arena.league.under_way import GameUnderWay
from arena.records.reader import read_text
from arena.web.replay import replay_page

REPLAYS_KEPT = 16
BOARDS_KEPT = 256
UNDER_WAY_REFRESH_S = 5


@page_route
async def game(site: LadderSite, request: Request) -> Response:
    """A stored game's replay page."""
    number = address_number(request.path_params["game"], "game")
    text = site.replays.get(number)
    if text is None:
        record = await site.read(lambda db: queries.record_text(db, number))
        if record is None:
            return PlainTextResponse(f"game {number} is not stored here (not finished yet, or no such game)", 404)
        if not record:
            return PlainTextResponse(f"game {number} has no record to replay", 404)

        def draw() -> str:
            return replay_page(read_text(record)[0])
        try:
            text = await anyio.to_thread.run_sync(draw)
        except (ArenaError, ValueError) as exc:
            return PlainTextResponse(f"game {number} cannot be replayed: {exc}", 500)
        if len(site.replays) >= REPLAYS_KEPT:
            site.replays.pop(next(iter(site.replays)))
        site.replays[number] = text
    return HTMLResponse(text)


def _drawing(site: LadderSite, table: LadderTable, playing: GameUnderWay) -> tuple[str, str, str]:
    """(defs, board, label) of a game under way, drawn once per ply."""
    key = (table.key, playing.index, len(playing.actions))
    drawn = site.drawn.get(key)
    if drawn is None:
        drawn = pages.board_picture(table.game, playing)
        if len(site.drawn) > BOARDS_KEPT:
            site.drawn.clear()
        site.drawn[key] = drawn
    return drawn


@page_route
async def under_way(site: LadderSite, request: Request) -> Response:
    """The games being played at the chosen tables, with their boards; it refreshes itself."""
    viewer = await site.auth.viewer(request)
    tables, _, _ = site.tables(request)
    sections = []
    for table in tables:
        games = site.under_way.get(table.key)
        playing = sorted(games.games.values(), key=lambda g: g.index) if games is not None else []
        cards, defs = [], ""
        for one in playing:
            game_defs, svg, label = _drawing(site, table, one)
            defs = defs or game_defs
            cards.append((one, svg, label))
        sections.append(pages.under_way_section(table, cards, defs))
    return site.page(viewer, "Under way", "".join(sections), refresh=UNDER_WAY_REFRESH_S)
