"""The ladder's pages (docs/ladder.md, "What you can see"): the leaderboard, a bot's
page with its logs and its owner's forms, a version's page and log, sign-in and
submitting. Each is `async def route(site, request)`; a refusal becomes a page that
says why (arena.ladder.web.site.page_route). The games' pages are arena.ladder.web.game_pages."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio.to_thread
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from arena.ladder.logs import unit_logs
from arena.ladder.web import bot_actions, info_chart, pages, queries
from arena.ladder.web.auth import Viewer, check_origin
from arena.ladder.web.bodies import FORM_BYTES, read_form
from arena.ladder.web.info_means import NO_MEANS
from arena.ladder.web.refused import Refused, address_number
from arena.ladder.web.site import LadderSite, page_route

LOG_BYTES = 1 << 20
"""Of each stderr log file, a page shows at most this much (the referee caps them too)."""


# ---- the leaderboard and a bot --------------------------------------------------------------


async def _posted(site: LadderSite, request: Request, form_name: str) -> tuple[Viewer, FormData]:
    """A small form posted from one of our pages: its origin, who sent it, its fields
    and its per-form token, each checked (403 otherwise)."""
    check_origin(request)
    viewer = await site.auth.viewer(request)
    form = await read_form(request, FORM_BYTES, 0)
    site.auth.check_csrf(viewer, form_name, form)
    return viewer, form


@page_route
async def leaderboard(site: LadderSite, request: Request) -> Response:
    viewer = await site.auth.viewer(request)
    tables, key, seats = site.tables(request)
    boards = [(table, await site.board(table)) for table in tables]
    return site.page(viewer, "Leaderboard", pages.leaderboard_body(site.ladder, boards, key, seats))


@page_route
async def bot(site: LadderSite, request: Request) -> Response:
    """A bot's page; `?field=NAME` shows that info chart large."""
    viewer = await site.auth.viewer(request)
    name = request.path_params["name"]
    field = request.query_params.get("field") or None

    def read(db: Any) -> tuple[pages.BotPage, str] | None:
        info = queries.bot_info(db, name)
        if info is None:
            return None
        allowed = site.auth.allowed(viewer, info.owner_id)
        games = queries.recent_games(db, info.id)
        with_logs = frozenset(g.unit for g in games if allowed and unit_logs(site.ladder.logs, g.unit, info.name))
        versions = queries.version_rows(db, info)
        playing = next((v.id for v in versions if v.playing), None)
        means = NO_MEANS if playing is None else site.info.means(db, playing)
        return (pages.BotPage(info, versions, queries.rating_history(db, info.id), games,
                              queries.head_to_head(db, info.id), queries.fault_counts(db, info.id),
                              queries.recent_faults(db, info.id), allowed, viewer.owns(info.owner_id), with_logs),
                info_chart.info_section(info.name, means, field))
    found = await site.read(read)
    if found is None:
        raise Refused(404, f"no bot named {name[:40]!r}")
    page, charts = found
    tables = {t.key: t for t in site.ladder.tables}
    body = pages.bot_body(page, tables, site.auth.csrf(viewer.session, "rollback"),
                          site.auth.csrf(viewer.session, "retire"), charts)
    return site.page(viewer, page.bot.name, body)


@page_route
async def bot_logs(site: LadderSite, request: Request) -> Response:
    """A unit's stderr logs of a bot: its owner's (or everyone's on a public ladder).
    The files are found by the unit's number and the bot's name, both checked against
    the database; nothing of the address becomes a path."""
    viewer = await site.auth.viewer(request)
    name = request.path_params["name"]
    unit = address_number(request.path_params["unit"], "unit")
    info = await site.read(lambda db: queries.bot_info(db, name))
    if info is None:
        raise Refused(404, f"no bot named {name[:40]!r}")
    if not site.auth.allowed(viewer, info.owner_id):
        raise Refused(403, f"the logs of {info.name} are shown to its owner only")
    played = await site.read(lambda db: queries.played_unit(db, info.id, unit))

    def collect() -> str:
        parts = []
        for path in unit_logs(site.ladder.logs, unit, info.name):
            with contextlib.suppress(OSError), path.open("rb") as file:
                data = file.read(LOG_BYTES + 1)
                cut = "\n[... cut: the page shows the first MiB]" if len(data) > LOG_BYTES else ""
                parts.append(f"==> {path.name} <==\n{data[:LOG_BYTES].decode('utf-8', 'replace')}{cut}\n")
        return "\n".join(parts)
    text = await anyio.to_thread.run_sync(collect) if played else ""
    if not text:
        raise Refused(404, f"no stderr log of {info.name} at unit {unit} (logs of old games are removed: "
                           f"each bot keeps its newest {site.ladder.keep_game_logs})")
    return PlainTextResponse(text, headers={"cache-control": "no-store"})


@page_route
async def bot_rollback(site: LadderSite, request: Request) -> Response:
    viewer, form = await _posted(site, request, "rollback")
    info = await bot_actions.rollback(site, viewer, request.path_params["name"], form.get("version"))
    return RedirectResponse(f"/bot/{info.name}", 303)


@page_route
async def bot_retire(site: LadderSite, request: Request) -> Response:
    viewer, form = await _posted(site, request, "retire")
    info = await bot_actions.retire(site, viewer, request.path_params["name"])
    return RedirectResponse(f"/bot/{info.name}", 303)


# ---- versions ---------------------------------------------------------------------------------


@page_route
async def version(site: LadderSite, request: Request) -> Response:
    viewer = await site.auth.viewer(request)
    info = await site.version_at(request)
    refresh = 3 if info.state in ("building", "checking") else None
    return site.page(viewer, f"{info.bot} v{info.number}",
                     pages.version_body(info, site.auth.allowed(viewer, info.owner_id)), refresh=refresh)


@page_route
async def version_log(site: LadderSite, request: Request) -> Response:
    viewer = await site.auth.viewer(request)
    info = await site.version_at(request)
    if not site.auth.allowed(viewer, info.owner_id):
        raise Refused(403, f"the build log of {info.bot} is shown to its owner only")
    return PlainTextResponse(info.log or f"no log yet: the version is {info.state}",
                             headers={"cache-control": "no-store"})


# ---- sign-in ----------------------------------------------------------------------------------


@page_route
async def signin_form(site: LadderSite, request: Request) -> Response:
    # a first visit: the form's token needs a cookie to be made from
    viewer, fresh = site.auth.with_visitor(await site.auth.viewer(request))
    response = site.page(viewer, "Sign in", pages.signin_body(site.auth.csrf(viewer.form_base, "signin")))
    if fresh is not None:
        site.auth.remember_visitor(response, fresh, request)
    return response


@page_route
async def signin(site: LadderSite, request: Request) -> Response:
    viewer, form = await _posted(site, request, "signin")
    token = form.get("token")
    entrant = None
    if isinstance(token, str) and token.strip():
        entrant = await site.auth.entrant_of(token)
    if entrant is None:
        return site.page(viewer, "Sign in", pages.signin_body(site.auth.csrf(viewer.form_base, "signin"),
                                                              "that token was refused; check it, or ask the "
                                                              "organiser for a new one"), 401)
    response = RedirectResponse("/", 303)
    site.auth.sign_in(response, entrant, request)
    return response


@page_route
async def signout(site: LadderSite, request: Request) -> Response:
    await _posted(site, request, "signout")
    response = RedirectResponse("/", 303)
    site.auth.sign_out(response)
    return response


# ---- submitting -------------------------------------------------------------------------------


def _submit_page(site: LadderSite, viewer: Viewer, name: str = "", error: str = "", status: int = 200) -> Response:
    if viewer.entrant is None:
        return site.page(viewer, "Submit a bot", '<p>Submitting needs an entrant\'s token: '
                         '<a href="/signin">sign in</a> first.</p>', status if error else 200)
    body = pages.submit_body(site.ladder.languages, site.auth.csrf(viewer.form_base, "submit"),
                             name or viewer.entrant.name, site.ladder.max_upload_bytes, error)
    return site.page(viewer, "Submit a bot", body, status)


@page_route
async def submit_form(site: LadderSite, request: Request) -> Response:
    return _submit_page(site, await site.auth.viewer(request))


@page_route
async def submit(site: LadderSite, request: Request) -> Response:
    check_origin(request)
    viewer = await site.auth.viewer(request)
    form = await read_form(request, site.upload_limit, 1)
    try:
        site.auth.check_csrf(viewer, "submit", form)
        if viewer.entrant is None:
            raise Refused(401, "sign in first")
        try:
            submitted, _ = await bot_actions.submit(site, viewer.entrant, form)
        except Refused as exc:  # the form again, with what to fix
            name = form.get("name")
            return _submit_page(site, viewer, name if isinstance(name, str) else "", exc.message, exc.status)
    finally:
        await form.close()
    return RedirectResponse(f"/version/{submitted.id}", 303)
