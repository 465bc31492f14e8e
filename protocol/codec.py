"""Line codec: encode referee messages to lines, decode and validate bot lines.

`decode_bot` is the one path from a bot's bytes to a message: whatever the bytes, it
returns a Ready or an Action, or raises ProtocolError. Bytes that could make a decoder
misbehave are refused first: invalid UTF-8, nesting deeper than MAX_DEPTH (msgspec
recurses, so a line of 100,000 '[' would raise RecursionError), and numbers out of the
ranges the message types declare.

What the referee keeps of a message is bounded where it is decoded: a long line's
`info` is cut to INFO_CAP bytes (the record's cap; a short excerpt, the cut noted in its
comment) and the texts of a `ready` to READY_TEXT_CAP characters, so the referee's
memory does not grow with what bots send. A line short enough to be within the caps is
never looked at twice.
"""

from __future__ import annotations

import re

import msgspec

from protocol.messages import Action, BotMessage, Info, RefereeMessage

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a bot's line; real messages use 3."""
INFO_CAP = 1024
"""Most bytes of a bot's info kept, as the record shows it (score=... pv=... comment)."""
READY_TEXT_CAP = 256
"""Most characters kept of each text of a `ready` (name, version, author)."""
_SHORT_LINE = 1024
"""A line this short holds nothing over the caps."""

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[BotMessage] = msgspec.json.Decoder(BotMessage)
_referee_decoder: msgspec.json.Decoder[RefereeMessage] = msgspec.json.Decoder(RefereeMessage)

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


class ProtocolError(ValueError):
    """A bot line that is not a valid message; the text says exactly what is wrong."""


class NotJsonError(ProtocolError):
    """A bot line that is not JSON at all (often debugging text printed to stdout)."""


def encode(message: RefereeMessage | BotMessage) -> bytes:
    """One message as a line of JSON ending in a newline."""
    return _encoder.encode(message) + b"\n"


def decode_bot(line: bytes) -> BotMessage:
    """Parse one line from a bot (without its newline) into Ready or Action; any other
    outcome is a ProtocolError, never another exception."""
    if not line.isascii():  # an answer is almost always ASCII: checked in one pass, no copy
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"not UTF-8 text: byte 0x{line[exc.start]:02x} at column {exc.start + 1}") from None
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and (depth := nesting_depth(line)) > MAX_DEPTH:
        raise ProtocolError(f"JSON nested {depth} levels deep; at most {MAX_DEPTH} are accepted")
    try:
        message = _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise ProtocolError(f"invalid message: {exc}") from None
    except msgspec.DecodeError as exc:
        why = str(exc).removeprefix("JSON is malformed: ")
        raise NotJsonError(f"not JSON ({why[:1].lower()}{why[1:]})") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:  # a decoder limit, not a message
        raise ProtocolError(f"undecodable line: {type(exc).__name__}") from None
    if len(line) > _SHORT_LINE:
        _cut(message)
    return message


def _cut(message: BotMessage) -> None:
    """Cut what a long message holds to the caps, in place."""
    if isinstance(message, Action):
        if message.info is not None:
            message.info = cut_info(message.info)
    else:
        message.name = message.name[:READY_TEXT_CAP]
        message.version = message.version[:READY_TEXT_CAP]
        message.author = message.author[:READY_TEXT_CAP]


def cut_info(info: Info) -> Info:
    """`info` itself when the record's text of it (`score=.. depth=.. nodes=.. pv=a,b
    comment`) is within INFO_CAP bytes; else the scalar fields, as much of the pv and
    of the comment as fits, and at the end of the comment `[arena: cut to INFO_CAP of N
    bytes]`, all within INFO_CAP bytes."""
    scalars = info.scalars()
    pv_bytes = 3 + sum(len(move.encode()) + 1 for move in info.pv) - 1 if info.pv else 0
    comment = info.comment.encode() if info.comment else b""
    texts = [len(s) for s in scalars] + ([pv_bytes] if info.pv else []) + ([len(comment)] if comment else [])
    size = sum(texts) + max(len(texts) - 1, 0)
    if size <= INFO_CAP:
        return info
    note = f"[arena: cut to {INFO_CAP} of {size} bytes]"
    room = INFO_CAP - sum(len(s) + 1 for s in scalars) - len(note) - 1
    pv: list[str] | None = None
    if info.pv and room > 4:
        pv, used = [], 3
        for move in info.pv:
            cost = len(move.encode()) + (1 if pv else 0)
            if used + cost > room - 1:
                break
            pv.append(move)
            used += cost
        room -= used + 1
        pv = pv or None
    excerpt = comment[:max(room - 1, 0)].decode("utf-8", "ignore") if comment else ""
    return Info(score=info.score, depth=info.depth, nodes=info.nodes, pv=pv,
                comment=f"{excerpt} {note}" if excerpt else note)


def nesting_depth(line: bytes) -> int:
    """The deepest nesting of [ and { outside JSON strings (0 for a scalar). Cheap for
    real messages, which hold few brackets; linear in the line for a hostile one."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return line.count(b"[") + line.count(b"{")
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", line))
    depth = deepest = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def decode_referee(line: bytes) -> RefereeMessage:
    """Parse one referee line (used by tests and by msgspec-based bots)."""
    return _referee_decoder.decode(line)
