"""Line codec: encode referee messages to lines, decode and validate bot lines.

`decode_bot` is the one path from a bot's bytes to a message: whatever the bytes, it
returns a Ready or an Action, or raises ProtocolError. Bytes that could make a decoder
misbehave are refused first: invalid UTF-8, nesting deeper than MAX_DEPTH (msgspec
recurses, so a line of 100,000 '[' would raise RecursionError), and numbers out of the
ranges the message types declare.
"""

from __future__ import annotations

import re

import msgspec

from protocol.messages import BotMessage, RefereeMessage

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a bot's line; real messages use 3."""

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[BotMessage] = msgspec.json.Decoder(BotMessage)
_referee_decoder: msgspec.json.Decoder[RefereeMessage] = msgspec.json.Decoder(RefereeMessage)

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


class ProtocolError(ValueError):
    """A bot line that is not a valid message; the text says exactly what is wrong."""


def encode(message: RefereeMessage | BotMessage) -> bytes:
    """One message as a line of JSON ending in a newline."""
    return _encoder.encode(message) + b"\n"


def decode_bot(line: bytes) -> BotMessage:
    """Parse one line from a bot (without its newline) into Ready or Action; any other
    outcome is a ProtocolError, never another exception."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"not UTF-8 text: byte 0x{line[exc.start]:02x} at column {exc.start + 1}") from None
    depth = nesting_depth(line)
    if depth > MAX_DEPTH:
        raise ProtocolError(f"JSON nested {depth} levels deep; at most {MAX_DEPTH} are accepted")
    try:
        return _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise ProtocolError(f"invalid message: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"malformed JSON: {exc}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:  # a decoder limit, not a message
        raise ProtocolError(f"undecodable line: {type(exc).__name__}") from None


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
