"""Board views as lines of styled segments: the terminal renderers build those, and
these two functions turn them into plain text or a rich renderable."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.text import Text

Segment = tuple[str, str]
"""Some text and its rich style ("" for none)."""
Line = list[Segment]


def plain(lines: Iterable[Line]) -> str:
    """The lines as plain text, trailing blanks removed."""
    return "\n".join("".join(text for text, _ in line).rstrip() for line in lines)


def styled(lines: Iterable[Line]) -> RenderableType:
    """The lines as rich text with their styles."""
    texts = []
    for line in lines:
        text = Text()
        for chunk, style in line:
            text.append(chunk, style=style or None)
        texts.append(text)
    return Group(*texts)
