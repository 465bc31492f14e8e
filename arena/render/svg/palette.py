"""One palette for every picture: seat colours a colour-blind reader can tell apart
(Okabe and Ito's set), with a dark and a light shade of each for solids drawn in 3D, and
the colours of the board, text and the last action's highlight."""

from __future__ import annotations

SEATS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
"""Seat 0 .. 5: vermillion, blue, bluish green, reddish purple, orange, sky blue."""

SEAT_NAMES = ("vermillion", "blue", "green", "purple", "orange", "sky")

INK = "#1a1a1a"
"""Text and outlines (contrast 17:1 on PAPER)."""
PAPER = "#ffffff"
BOARD = "#f2efe6"
"""The table or board surface."""
GRID = "#b9b2a0"
MUTED = "#6b6b6b"
"""Secondary text (contrast 5.3:1 on PAPER)."""
HIGHLIGHT = "#ffd400"
"""The last action's outline: a thick yellow ring drawn under a dark one."""


def seat_colour(seat: int) -> str:
    return SEATS[seat % len(SEATS)]


def shade(colour: str, factor: float) -> str:
    """`colour` darkened (factor < 1) or lightened (factor > 1), for the faces of solids."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    if factor <= 1:
        r, g, b = (round(c * factor) for c in (r, g, b))
    else:
        r, g, b = (round(c + (255 - c) * (factor - 1)) for c in (r, g, b))
    return f"#{r:02x}{g:02x}{b:02x}"
