"""The arena's wire protocol: JSON lines over a bot's stdin and stdout.

Kept import-light on purpose: `protocol.bot` (the helper for Python bots) uses only the
standard library, so a bot starts fast; `protocol.messages` and `protocol.codec` (msgspec)
are for the referee.
"""

PROTOCOL_VERSION = 1
"""Bumped on any change a bot could notice; sent in the hello message."""

MAX_LINE_BYTES = 1 << 20
"""Default longest line a bot may write (1 MiB); longer is a protocol error."""
