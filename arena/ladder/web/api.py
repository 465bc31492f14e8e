"""The ladder's HTTP API (docs/ladder.md, "The API"): JSON in and out, by bearer token.
Each route refuses with {"error": ...} and its status (arena.ladder.web.site.api_route)."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.ladder.web import bot_actions, pages
from arena.ladder.web.auth import Viewer, check_origin
from arena.ladder.web.bodies import FORM_BYTES, read_body, read_form
from arena.ladder.web.refused import Refused
from arena.ladder.web.site import LadderSite, api_route


@api_route
async def leaderboard(site: LadderSite, request: Request) -> Response:
    await site.auth.token_entrant(request)  # public, but a bad token is still refused
    tables, _, _ = site.tables(request)
    return JSONResponse({"ladder": site.ladder.name,
                         "tables": [pages.board_json(table, await site.board(table)) for table in tables]})


@api_route
async def submit(site: LadderSite, request: Request) -> Response:
    check_origin(request)
    entrant = await site.auth.token_entrant(request)
    if entrant is None:
        raise Refused(401, "give your token as `Authorization: Bearer TOKEN`")
    form = await read_form(request, site.upload_limit, 1)
    try:
        version, name = await bot_actions.submit(site, entrant, form)
    finally:
        await form.close()
    return JSONResponse({"version": version.id, "bot": name, "number": version.number, "state": version.state,
                         "url": f"/version/{version.id}"}, 202)


async def _caller(site: LadderSite, request: Request) -> Viewer:
    """The entrant an API call that changes something comes from: by bearer token only
    (a browser's cookie carries no per-form token here, so it does not count)."""
    check_origin(request)
    entrant = await site.auth.token_entrant(request)
    if entrant is None:
        raise Refused(401, "give your token as `Authorization: Bearer TOKEN`")
    return Viewer(entrant, None, None)


@api_route
async def rollback(site: LadderSite, request: Request) -> Response:
    viewer = await _caller(site, request)
    body = await read_body(request, FORM_BYTES)
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise Refused(400, 'the body is not JSON; send {"version": N}') from None
    number = data.get("version") if isinstance(data, dict) else None
    info = await bot_actions.rollback(site, viewer, request.path_params["name"], number)
    return JSONResponse({"bot": info.name, "version": number})


@api_route
async def retire(site: LadderSite, request: Request) -> Response:
    viewer = await _caller(site, request)
    info = await bot_actions.retire(site, viewer, request.path_params["name"])
    return JSONResponse({"bot": info.name, "status": "retired"})


@api_route
async def version(site: LadderSite, request: Request) -> Response:
    viewer = await site.auth.viewer(request)
    if viewer.entrant is None:
        raise Refused(401, "give your token as `Authorization: Bearer TOKEN`")
    info = await site.version_at(request)
    answer: dict[str, object] = {"state": info.state, "bot": info.bot, "number": info.number}
    if site.auth.allowed(viewer, info.owner_id):
        answer["log"] = info.log
    return JSONResponse(answer)
