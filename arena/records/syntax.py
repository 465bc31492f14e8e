"""The lexical rules the reader and the writer share: what is escaped in quotes, which
actions must be quoted, what a comment may hold."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from protocol.messages import Info

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


# ---- a ply's comment: its fields as text, and back ----------------------------------------


COMMENT_CAP: Final = 1024
"""Most bytes of a move comment built from a bot's info; more is cut, and the cut noted."""

_TIMED: Final = re.compile(r"((?:0|[1-9][0-9]{0,11})\.[0-9])ms(?: cpu=((?:0|[1-9][0-9]{0,11})\.[0-9])ms)?(?: |$)")


def info_text(info: Info) -> str:
    """A bot's info as the comment shows it: `score=0.25 depth=4 nodes=12000 pv=a,b text`.
    Written so that `comment_fields` reads back the same Info: a score `:g` would round
    is written in full, and a pv whose actions hold a comma or a blank (The Tree's
    `13@0,0`) as a JSON list (`pv=["13@0,0","31@2,1"]`)."""
    parts = []
    if info.score is not None:
        parts.append(f"score={score_text(info.score)}")
    if info.depth is not None:
        parts.append(f"depth={info.depth}")
    if info.nodes is not None:
        parts.append(f"nodes={info.nodes}")
    if info.pv:
        parts.append("pv=" + pv_text(info.pv))
    if info.comment:
        parts.append(info.comment)
    return " ".join(parts)


def score_text(score: float) -> str:
    """`:g` (six digits, as records always showed scores) where it reads back as the
    same number, else the shortest text that does."""
    short = f"{score:g}"
    return short if float(short) == score else repr(score)


def pv_text(pv: list[str]) -> str:
    """The actions joined by commas where that reads back as the same list (one word,
    none of them holding a comma), else JSON, whose strings may hold anything."""
    plain = ",".join(pv)
    if " " not in plain and COMMENT_BAD_RE.search(plain) is None and _parse_pv(plain) == pv:
        return plain
    return json.dumps(pv, separators=(",", ":"))


def _parse_pv(word: str) -> list[str]:
    """The pv of `pv=<word>`: a JSON list of strings, or actions joined by commas."""
    if word.startswith("["):
        try:
            value = json.loads(word)
        except ValueError:
            pass
        else:
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                return value
    return word.split(",")


def cap_comment(text: str) -> str:
    """At most COMMENT_CAP bytes of `text`, with a note saying how much there was."""
    data = text.encode("utf-8")
    if len(data) <= COMMENT_CAP:
        return text
    kept = data[:COMMENT_CAP].decode("utf-8", "ignore")
    return f"{kept} [arena: cut to {COMMENT_CAP} of {len(data)} bytes]"


_CUT_NOTE: Final = re.compile(r" (\[arena: cut to [0-9]+ of [0-9]+ bytes\])$")
_JSON_DECODER: Final = json.JSONDecoder()


def comment_fields(text: str) -> tuple[bool, float | None, float | None, Info | None, str | None]:
    """The inverse of Ply.comment_text: (forced, elapsed_ms, cpu_ms, info, comment),
    which `comment_text` writes back as the same text, byte for byte.

    The bot's info is the `score=`, `depth=`, `nodes=` and `pv=` words that open the
    rest, in the writer's order, each taken only if the writer would spell its value
    the same way; the text after them is the info's comment. With none of them, the
    text is the bot's info comment on a timed ply (a bot's decision: the referee adds
    no text of its own there) and the ply's free comment otherwise (`opening`, a
    person's note). The note `cap_comment` puts after an info it cut stays in the
    ply's comment (a bot's info that the protocol cut holds its own note, in its
    comment)."""
    forced, elapsed, cpu, rest = ply_comment_fields(text)
    if not rest:
        return forced, elapsed, cpu, None, rest
    note: str | None = None
    cut = _CUT_NOTE.search(rest)
    if cut is not None and COMMENT_CAP - 3 <= len(rest[:cut.start()].encode()) <= COMMENT_CAP:
        rest, note = rest[:cut.start()], cut.group(1)  # cap_comment's, after the cut text
    info, rest = _info_fields(rest, timed=elapsed is not None)
    if note is not None:
        rest = note if rest is None else f"{rest} {note}"
    return forced, elapsed, cpu, info, rest


def _info_fields(text: str, timed: bool) -> tuple[Info | None, str | None]:
    """(the info its opening words give, the text left for the ply's comment)."""
    values: dict[str, Any] = {}
    rest: str | None = text
    for name in ("score", "depth", "nodes", "pv"):
        if rest is None or not rest.startswith(name + "="):
            continue
        value, after = _field(name, rest[len(name) + 1:])
        if value is None:
            break
        values[name], rest = value, after
    if values or timed:
        if rest:
            values["comment"], rest = rest, None
        return (Info(**values) if values else None), rest
    return None, rest


def _field(name: str, text: str) -> tuple[Any, str | None]:
    """The value at the start of `text` and the text after it and its blank (None when
    nothing follows); value None when the writer would not have written it so."""
    if name == "pv" and text.startswith("["):
        try:
            pv, end = _JSON_DECODER.raw_decode(text)
        except ValueError:
            pv, end = None, 0
        ends = end == len(text) or text[end] == " "
        if ends and isinstance(pv, list) and all(isinstance(item, str) for item in pv):
            word = text[:end]
            return (pv if pv and pv_text(pv) == word else None), (text[end + 1:] if end < len(text) else None)
    word, blank, after = text.partition(" ")
    rest = after if blank else None
    value: Any
    try:
        if name == "score":
            value = float(word)
            same = score_text(value) == word
        elif name == "pv":
            value = _parse_pv(word)
            same = pv_text(value) == word
        else:
            value = int(word)
            same = str(value) == word and 0 <= value < 1 << 63
    except ValueError:
        return None, rest
    return (value if same else None), rest


def ply_comment_fields(text: str) -> tuple[bool, float | None, float | None, str | None]:
    """The inverse of Ply.comment_text for what a file can tell: (forced, elapsed_ms,
    cpu_ms, the rest as free text); `comment_text` writes the same text back."""
    forced = text == "forced" or text.startswith("forced ")
    if forced:
        text = text[len("forced "):]
        if not text:
            return True, None, None, None
    timed = _TIMED.match(text)
    if timed is None:
        return forced, None, None, text
    rest = text[timed.end():]
    cpu = None if timed.group(2) is None else float(timed.group(2))
    return forced, float(timed.group(1)), cpu, rest if timed.group(0).endswith(" ") else None
