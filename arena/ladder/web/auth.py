"""Who is asking, for the ladder's web side.

An API call carries its entrant's token (`Authorization: Bearer TOKEN`); a browser
signs in once with it and then carries a session cookie (HttpOnly, SameSite=Strict)
that holds the entrant's number, its expiry and an HMAC-SHA256 of both and of the
entrant's token hash with the ladder's secret, so it cannot be forged, and it stops
working when the token is reset or the entrant removed.

Cross-site requests: every form carries a token that is an HMAC of the session (or,
before sign-in, of a random visitor cookie) and the form's name, checked on POST; a
POST whose Origin names another host is refused."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import anyio.to_thread
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from arena.ladder.store import Entrant
from arena.ladder.tokens import TokenChecker
from arena.ladder.web import queries
from arena.ladder.web.refused import Refused

SESSION_COOKIE = "ladder_session"
ANON_COOKIE = "ladder_visitor"
"""Before sign-in: a random value the sign-in form's token is made from (so a page of
another site cannot sign a visitor in as someone else)."""
SESSION_S = 14 * 24 * 3600
VISITOR_S = 24 * 3600


def _mac(secret: bytes, *parts: str) -> str:
    return hmac.new(secret, "\x00".join(parts).encode(), hashlib.sha256).hexdigest()


TOKEN_CHECKS = 2
"""argon2 checks of tokens at once: each takes tens of milliseconds of a core by design."""


@dataclass(frozen=True)
class Viewer:
    """Who sent a request: an entrant (by session or token) or nobody."""

    entrant: Entrant | None
    session: str | None
    """The valid session cookie's value (None: not signed in by cookie)."""
    visitor: str | None
    """The visitor cookie's value, when one came."""

    @property
    def form_base(self) -> str | None:
        """What this viewer's form tokens are made from."""
        return self.session or self.visitor

    def owns(self, owner: int) -> bool:
        return self.entrant is not None and self.entrant.id == owner


NOBODY = Viewer(None, None, None)


def check_origin(request: Request) -> None:
    """Refuse (403) a request whose Origin names another host than the one it came to."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
        raise Refused(403, "a request from another site is refused")


class Auth:
    """Tells who sent a request, signs and checks the session cookie and the forms'
    tokens with the ladder's secret, and says who may read which logs."""

    def __init__(self, store_path: Path, tokens: TokenChecker, secret: bytes, public_logs: bool) -> None:
        if len(secret) < 16:
            raise ValueError("the ladder's secret is missing or too short: it signs sessions and form tokens")
        self.path = store_path
        self.tokens = tokens
        self.secret = secret
        self.public_logs = public_logs
        self._limiter: anyio.CapacityLimiter | None = None

    # ---- the session cookie -------------------------------------------------------------------

    def session_value(self, entrant: Entrant, expiry: int) -> str:
        return f"{entrant.id}.{expiry}.{_mac(self.secret, 'session', str(entrant.id), str(expiry), entrant.token_hash)}"

    async def _session_entrant(self, value: str) -> Entrant | None:
        number, _, rest = value.partition(".")
        expiry, _, mac = rest.partition(".")
        if not (number.isascii() and number.isdigit() and len(number) <= 12 and expiry.isascii()
                and expiry.isdigit() and len(expiry) <= 12 and int(expiry) > time.time()):
            return None

        def read() -> Entrant | None:
            with queries.reading(self.path) as db:
                return queries.entrant(db, int(number))
        entrant = await anyio.to_thread.run_sync(read)
        if entrant is None or entrant.removed or not entrant.token_hash.startswith("$"):
            return None
        expected = _mac(self.secret, "session", str(entrant.id), expiry, entrant.token_hash)
        return entrant if hmac.compare_digest(mac.encode(), expected.encode()) else None

    def sign_in(self, response: Response, entrant: Entrant, request: Request) -> None:
        """Give `response` the entrant's session cookie."""
        expiry = int(time.time()) + SESSION_S
        response.set_cookie(SESSION_COOKIE, self.session_value(entrant, expiry), max_age=SESSION_S, path="/",
                            httponly=True, samesite="strict", secure=request.url.scheme == "https")

    @staticmethod
    def sign_out(response: Response) -> None:
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")

    # ---- who is asking ------------------------------------------------------------------------

    async def token_entrant(self, request: Request) -> Entrant | None:
        """The entrant of the request's bearer token; None without one; 401 for a bad one."""
        header = request.headers.get("authorization")
        if header is None:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "give the token as `Authorization: Bearer TOKEN`")
        entrant = await self.entrant_of(token)
        if entrant is None:
            raise Refused(401, "the token was refused (reset or removed?); ask the organiser for a new one")
        return entrant

    async def entrant_of(self, token: str) -> Entrant | None:
        """The entrant a token belongs to (argon2 checks it, in a worker thread; at most
        TOKEN_CHECKS at once, so a flood of bad tokens cannot take every core)."""
        if self._limiter is None:  # made on the running loop (anyio binds it there)
            self._limiter = anyio.CapacityLimiter(TOKEN_CHECKS)
        return await anyio.to_thread.run_sync(self.tokens.entrant, token.strip(), limiter=self._limiter)

    async def viewer(self, request: Request) -> Viewer:
        """Who sent the request: a bearer token wins over the session cookie."""
        visitor = request.cookies.get(ANON_COOKIE)
        entrant = await self.token_entrant(request)
        if entrant is not None:
            return Viewer(entrant, None, visitor)
        value = request.cookies.get(SESSION_COOKIE)
        if value:
            entrant = await self._session_entrant(value)
            if entrant is not None:
                return Viewer(entrant, value, visitor)
        return Viewer(None, None, visitor)

    async def viewer_or_nobody(self, request: Request) -> Viewer:
        """Who sent the request, or nobody when its token is bad (for a page that says why)."""
        try:
            return await self.viewer(request)
        except Refused:
            return NOBODY

    @staticmethod
    def with_visitor(viewer: Viewer) -> tuple[Viewer, str | None]:
        """On a first visit, a new visitor value for the form's token to be made from
        (with the viewer who carries it); otherwise the viewer and None."""
        if viewer.form_base is not None:
            return viewer, None
        fresh = secrets.token_urlsafe(24)
        return replace(viewer, visitor=fresh), fresh

    @staticmethod
    def remember_visitor(response: Response, value: str, request: Request) -> None:
        response.set_cookie(ANON_COOKIE, value, max_age=VISITOR_S, path="/", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")

    # ---- forms and logs -----------------------------------------------------------------------

    def csrf(self, base: str | None, form: str) -> str:
        """The token of form `form` for a viewer whose forms are made from `base`."""
        return "" if base is None else _mac(self.secret, "form", form, base)

    def check_csrf(self, viewer: Viewer, form: str, data: FormData) -> None:
        given = data.get("csrf")
        expected = self.csrf(viewer.form_base, form)
        if not expected or not isinstance(given, str) or not hmac.compare_digest(given.encode(), expected.encode()):
            raise Refused(403, "this form has expired or came from another site; reload the page and send it again")

    def allowed(self, viewer: Viewer, owner: int) -> bool:
        """Whether the viewer may read the logs of the owner's bots."""
        return self.public_logs or viewer.owns(owner)
