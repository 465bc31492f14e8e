"""What an entrant does to its bots over the web, by a page's form or an API call alike:
submit a version, roll back to an earlier one, retire the bot. Ownership is checked
here, so both doors check it the same way; each raises Refused with the fix."""

from __future__ import annotations

from starlette.datastructures import FormData, UploadFile

from arena.errors import ArenaError
from arena.ladder.store import Entrant, Version
from arena.ladder.submissions import SubmissionError
from arena.ladder.web import queries
from arena.ladder.web.auth import Viewer
from arena.ladder.web.refused import Refused
from arena.ladder.web.site import LadderSite


async def owned_bot(site: LadderSite, viewer: Viewer, name: str) -> queries.BotInfo:
    """The bot named `name`, when it is the viewer's (401, 404 or 403 otherwise)."""
    if viewer.entrant is None:
        raise Refused(401, "sign in first (or send your token)")
    info = await site.read(lambda db: queries.bot_info(db, name))
    if info is None:
        raise Refused(404, f"no bot named {name[:40]!r}")
    if info.owner_id != viewer.entrant.id:
        raise Refused(403, f"{info.name} is not yours")
    return info


async def rollback(site: LadderSite, viewer: Viewer, name: str, number: object) -> queries.BotInfo:
    """The viewer's bot plays its ready version `number` from now on."""
    info = await owned_bot(site, viewer, name)
    if isinstance(number, str) and number.isascii() and number.isdigit() and len(number) <= 9:
        number = int(number)
    if not isinstance(number, int) or isinstance(number, bool):
        raise Refused(400, 'give the version\'s number, e.g. {"version": 3}')
    assert viewer.entrant is not None
    actor = viewer.entrant.name
    try:
        await site.write(lambda store: store.choose_version(info.name, int(number), actor))
    except ArenaError as exc:
        raise Refused(400, str(exc)) from None
    return info


async def retire(site: LadderSite, viewer: Viewer, name: str) -> queries.BotInfo:
    """The viewer's bot stops playing (not a disqualified one: that is the organiser's)."""
    info = await owned_bot(site, viewer, name)
    if info.status == "disqualified":
        raise Refused(403, f"{info.name} is disqualified: {info.reason}; only the organiser changes that")
    assert viewer.entrant is not None
    actor = viewer.entrant.name
    await site.write(lambda store: store.set_status(info.name, "retired", f"retired by {actor}", actor))
    return info


async def submit(site: LadderSite, entrant: Entrant, form: FormData) -> tuple[Version, str]:
    """The form's bot submitted: (its version, the bot's name)."""
    upload = next((form[f] for f in ("bot", "file") if isinstance(form.get(f), UploadFile)), None)
    if not isinstance(upload, UploadFile):
        raise Refused(400, "no file: send the bot as the form's `bot` file")
    data = await upload.read()
    limit = site.ladder.max_upload_bytes
    if len(data) > limit:
        raise Refused(413, f"the upload is {len(data):,} bytes, more than this ladder's {limit:,}")
    languages = site.ladder.languages
    language = form.get("language")
    if not language and len(languages) == 1:
        language = next(iter(languages))
    if not isinstance(language, str) or not language:
        raise Refused(400, f"say the bot's language: one of {', '.join(sorted(languages))}")
    name = form.get("name")
    bot_name = name.strip() if isinstance(name, str) and name.strip() else entrant.name
    try:
        return await site.submissions.submit(entrant, bot_name, language, upload.filename or "bot", data), bot_name
    except SubmissionError as exc:
        raise Refused(exc.status, str(exc)) from None
    except ArenaError as exc:
        raise Refused(400, str(exc)) from None
