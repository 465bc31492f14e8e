"""The arena's own error base and the helper every message uses to quote input.

Errors that name a user's mistake derive from ArenaError (as python-chess's errors
derive from EngineError), so a command can turn any of them into one clear message.
Messages quote what they reject through `excerpt`, so a 100 KB value never floods a
terminal or a record.
"""

from __future__ import annotations

from arena.lazy import public

EXCERPT_CHARS = 40
"""Most characters of rejected input an error message quotes."""


@public
class ArenaError(Exception):
    """A problem the arena reports to its user: the message names it and the fix."""


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` quoted as Python would, cut to `limit` characters with its length noted:
    'abc' or 'abcdef...' (100000 characters)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
