"""Line codec: encode referee messages to lines, decode and validate bot lines."""

from __future__ import annotations

import msgspec

from protocol.messages import BotMessage, RefereeMessage

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[BotMessage] = msgspec.json.Decoder(BotMessage)
_referee_decoder: msgspec.json.Decoder[RefereeMessage] = msgspec.json.Decoder(RefereeMessage)


class ProtocolError(ValueError):
    """A bot line that is not a valid message; the text says exactly what is wrong."""


def encode(message: RefereeMessage | BotMessage) -> bytes:
    """One message as a line of JSON ending in a newline."""
    return _encoder.encode(message) + b"\n"


def decode_bot(line: bytes) -> BotMessage:
    """Parse one line from a bot (without its newline) into Ready or Action."""
    try:
        return _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise ProtocolError(f"invalid message: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"malformed JSON: {exc}") from None


def decode_referee(line: bytes) -> RefereeMessage:
    """Parse one referee line (used by tests and by msgspec-based bots)."""
    return _referee_decoder.decode(line)
