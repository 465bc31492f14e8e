"""Request bodies, bounded: Content-Length is checked first and the bytes counted as
they arrive, so an oversized upload is refused (413) before it is read whole; a form
is parsed from the bounded bytes with limits on its files, fields and parts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.types import Message

from arena.ladder.web.refused import Refused

FORM_BYTES = 1 << 16
"""A form without a file, or a JSON call, reads at most this much."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused with 413 beyond `limit` bytes: by its declared
    length before anything is read, and by counting as it arrives."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise Refused(400, "the request's Content-Length is not a number")
        if int(length) > limit:
            raise Refused(413, f"the request is {int(length):,} bytes, more than the {limit:,} this ladder takes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise Refused(413, f"the request is more than the {limit:,} bytes this ladder takes")
    return bytes(body)


async def read_form(request: Request, limit: int, files: int) -> FormData:
    """The request's form, from at most `limit` bytes and with at most `files` files."""
    body = await read_body(request, limit)
    replayed = Request(request.scope, _replaying(body))
    try:
        return await replayed.form(max_files=files, max_fields=20, max_part_size=FORM_BYTES)
    except (HTTPException, MultiPartException) as exc:
        detail = exc.detail if isinstance(exc, HTTPException) else exc.message
        raise Refused(400, f"the form could not be read ({detail})") from None


def _replaying(body: bytes) -> Callable[[], Awaitable[Message]]:
    """An ASGI receive that gives `body` once (the form parser reads what was bounded)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}
    return receive
