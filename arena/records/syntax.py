"""The lexical rules the reader and the writer share: what is escaped in quotes, which
actions must be quoted, what a comment may hold."""

from __future__ import annotations

import re
from typing import Final

TAG_NAME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
PLAYER_TAG_RE: Final = re.compile(r"Player(0|[1-9][0-9]{0,5})")
TO_ESCAPE_RE: Final = re.compile(r'[\\"\x00-\x1f\x7f]')
ESCAPES: Final = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
UNESCAPES: Final = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
ESCAPE_SEQ_RE: Final = re.compile(r"\\(x[0-9A-Fa-f]{2}|.)")
TURN_LIKE_RE: Final = re.compile(r"\d+\.")
NEEDS_QUOTES_RE: Final = re.compile(r'[\s"{}\x00-\x1f\x7f]')
COMMENT_BAD_RE: Final = re.compile(r"[}\x00-\x1f\x7f]")
RESULT_MARKERS: Final = ("1-0", "0-1", "1/2-1/2", "*")
"""PGN's game termination markers: the Result tag's value, ending the move text."""


def escape(text: str) -> str:
    """Backslash-escape what cannot stand inside double quotes on one line."""
    if TO_ESCAPE_RE.search(text) is None:
        return text
    return TO_ESCAPE_RE.sub(lambda m: ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def needs_quotes(action: str) -> bool:
    """Whether a bare action would read back as something else (or not at all)."""
    return (
        not action
        or action[0] in "~[;"
        or NEEDS_QUOTES_RE.search(action) is not None
        or TURN_LIKE_RE.match(action) is not None
        or action in RESULT_MARKERS
    )


def clean_comment(comment: str) -> str:
    """'}' would end the comment early and control characters would break the line."""
    if COMMENT_BAD_RE.search(comment) is None:
        return comment
    return COMMENT_BAD_RE.sub(lambda m: ")" if m.group() == "}" else " ", comment)
