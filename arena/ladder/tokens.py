"""Entrants' tokens: shown once when made, stored only as an argon2 hash (argon2-cffi,
the password-hashing competition's winner, instead of a hash of ours), so a copy of the
database gives no one a way in.

A token reads `ENTRANT_ID.SECRET`: the number says whose hash to check, so a request
costs one argon2 verification, not one per entrant. A token checked once is remembered
(by its SHA-256, in memory, until its entrant's hash changes), so a script that calls
the API often does not pay argon2's deliberate cost on every call."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from arena.ladder.store import Entrant, LadderStore

_HASHER = PasswordHasher()


def new_token(entrant: int) -> str:
    return f"{entrant}.{secrets.token_urlsafe(24)}"


def hash_token(token: str) -> str:
    return _HASHER.hash(token)


def placeholder_hash() -> str:
    """What an entrant's row holds before its real token is made (matches no token)."""
    return "!"


class TokenChecker:
    """Finds the entrant a bearer token belongs to."""

    def __init__(self, store: LadderStore) -> None:
        self.store = store
        self._known: dict[bytes, tuple[int, str]] = {}
        """SHA-256 of a checked token -> (entrant, the hash it matched)."""

    def entrant(self, token: str) -> Entrant | None:
        """The entrant whose token this is (None for any other text, a removed entrant's
        token or a token since reset)."""
        number, dot, _ = token.partition(".")
        if not dot or not (number.isascii() and number.isdigit() and len(number) <= 12) or len(token) > 200:
            return None
        entrant = self.store.entrant_by_id(int(number))
        if entrant is None or entrant.removed or not entrant.token_hash.startswith("$argon2"):
            return None
        digest = hashlib.sha256(token.encode()).digest()
        known = self._known.get(digest)
        if known is not None and known[0] == entrant.id and hmac.compare_digest(known[1], entrant.token_hash):
            return entrant
        try:
            _HASHER.verify(entrant.token_hash, token)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        self._known[digest] = (entrant.id, entrant.token_hash)
        return entrant
