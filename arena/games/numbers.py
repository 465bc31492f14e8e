"""Numbers inside action strings, read totally: a bot's string is either a canonical
number in range or not a number, never an exception. `int()` alone is not that: it
reads unicode digits ("٣", "１"), signs, underscores and padding, and raises ValueError
on some strings that `str.isdigit()` accepts ("²") and on any over 4300 digits."""

from __future__ import annotations

import re

_CANONICAL = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
"""ASCII digits without leading zeros, at most 18 of them (well inside int()'s limit)."""


def canonical_int(text: str, low: int, high: int) -> int | None:
    """The number `text` writes canonically (ASCII digits, `-` for negatives, no leading
    zero, no `+`, no `-0`), if it lies in low..high; None for anything else."""
    if _CANONICAL.fullmatch(text) is None or text == "-0":
        return None
    value = int(text)
    return value if low <= value <= high else None
