"""A small SVG writer for the board pictures: elements as compact text (coordinates
rounded to 0.1, no needless attributes), because a replay page holds one picture per
ply and must stay small; and the legend every picture shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from arena.render.svg.palette import INK, MUTED, PAPER, seat_colour

Point = tuple[float, float]


def num(value: float) -> str:
    """A coordinate in as few characters as it needs: 12, 12.5, -0.3."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def points(path: Iterable[Point]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in path)


def attrs(**values: object) -> str:
    """Attributes in order, `class_` as class, `data_x` as data-x; None left out."""
    out = []
    for name, value in values.items():
        if value is None:
            continue
        name = name.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = num(value)
        out.append(f' {name}="{escape(str(value), quote=True)}"')
    return "".join(out)


def polygon(path: Iterable[Point], fill: str, stroke: str | None = None, **more: object) -> str:
    return f"<polygon points=\"{points(path)}\"{attrs(fill=fill, stroke=stroke, **more)}/>"


def circle(x: float, y: float, r: float, fill: str, stroke: str | None = None, **more: object) -> str:
    return f"<circle{attrs(cx=x, cy=y, r=r, fill=fill, stroke=stroke, **more)}/>"


def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str | None = None, **more: object) -> str:
    return f"<rect{attrs(x=x, y=y, width=w, height=h, fill=fill, stroke=stroke, **more)}/>"


def line(a: Point, b: Point, stroke: str, width: float = 1, **more: object) -> str:
    return f"<line{attrs(x1=a[0], y1=a[1], x2=b[0], y2=b[1], stroke=stroke, stroke_width=width, **more)}/>"


def path(d: str, fill: str = "none", stroke: str | None = None, width: float | None = None, **more: object) -> str:
    return f"<path{attrs(d=d, fill=fill, stroke=stroke, stroke_width=width, **more)}/>"


def text(x: float, y: float, content: str, size: float = 12, fill: str = INK, anchor: str | None = None,
         **more: object) -> str:
    shown = " ".join(content.split())  # a name from a record may hold line breaks
    return (f"<text{attrs(x=x, y=y, font_size=size, fill=fill, text_anchor=anchor, **more)}>"
            f"{escape(shown)}</text>")


def group(children: Iterable[str], **more: object) -> str:
    return f"<g{attrs(**more)}>{''.join(children)}</g>"


def document(width: float, height: float, children: Iterable[str], title: str = "") -> str:
    """A whole picture, scaled to its container, text in the page's font. Its children
    stand one to a line: a page keeps each distinct line once, so a part that did not
    change from one ply to the next (the board while dice are rolled) costs nothing."""
    head = f"<title>{escape(title)}</title>" if title else ""
    lines = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {num(width)} {num(height)}\" "
             f"font-family=\"system-ui,sans-serif\" role=\"img\">{head}", *children, "</svg>"]
    return "\n".join(line.replace("\n", " ") for line in lines)


NAME_COLUMN = 180.0
"""The widest a legend's name column grows (at size 13; in proportion at other sizes):
a longer name is cut with an ellipsis, its whole in a tooltip."""
GAP = 16.0
"""The space between a name's column and its seat's note: a name ending in a digit
never reads as one with the figure after it ("random2" and "5 tokens")."""


def legend(names: Sequence[str], x: float, y: float, notes: Sequence[str] = (), to_move: int | None = None,
           size: float = 13, colours: Sequence[str] | None = None) -> tuple[list[str], float]:
    """Each seat's colour swatch, name and a note (score, hand size...), the seat to move
    marked with a triangle; returns the elements (one group) and the height they take.
    Names and notes stand in two columns (legend_width gives their width): the notes
    start where the longest name ends, and a name too long for NAME_COLUMN is cut."""
    out = []
    column = name_column(names, size)
    for seat, name in enumerate(names):
        top = y + seat * (size + 8)
        colour = colours[seat] if colours is not None else seat_colour(seat)
        out.append(rect(x + 12, top, size, size, colour, INK, rx=2, class_="swatch", data_seat=seat))
        out.append(name_cell(x + 18 + size, top + size - 2, name, column, size, data_seat=seat))
        if seat < len(notes) and notes[seat]:
            out.append(text(x + 18 + size + column + GAP * size / 13, top + size - 2, notes[seat], size, INK,
                            class_="note", data_seat=seat))
        if seat == to_move:
            out.append(polygon([(x, top + 1), (x + 8, top + size / 2), (x, top + size - 1)], INK, class_="to-move"))
    return [group(out, class_="legend")], len(names) * (size + 8)


def name_column(names: Sequence[str], size: float = 13) -> float:
    """The width of a legend's name column: its longest name's, at most NAME_COLUMN."""
    widest = max((text_width(name, size) for name in names), default=0.0)
    return min(widest, NAME_COLUMN * size / 13)


def legend_width(names: Sequence[str], notes: Sequence[str] = (), size: float = 13) -> float:
    """How wide `legend` draws, from its x to the end of its longest note."""
    note = max((text_width(n, size) for n in notes), default=0.0)
    return 18 + size + name_column(names, size) + (GAP * size / 13 + note if note else 0)


def name_cell(x: float, y: float, name: str, width: float, size: float = 13, fill: str = INK,
              class_: str = "name", **more: object) -> str:
    """A bot's name in a column `width` wide: cut with an ellipsis when it does not fit,
    the whole name in a tooltip (a `<title>` of a group around it, so the text element
    holds only what is shown)."""
    whole = " ".join(name.split())
    shown = fit(whole, width, size)
    shown_text = text(x, y, shown, size, fill, None, class_=class_, **more)
    return f"<g class=\"seat-name\"><title>{escape(whole)}</title>{shown_text}</g>"


def fit(content: str, width: float, size: float = 13) -> str:
    """`content`, cut with an ellipsis when it is wider than `width`."""
    if text_width(content, size) <= width:
        return content
    cut = content
    while cut and text_width(cut + ELLIPSIS, size) > width:
        cut = cut[:-1]
    return cut.rstrip() + ELLIPSIS


ELLIPSIS = "\u2026"
NARROW = frozenset(" '`ijlIJ,.:;/\\|f")
SLIM = frozenset("-()[]{}t!r\"*_")
WIDE = frozenset("mwMW@%")


def text_width(content: str, size: float = 13, monospace: bool = False) -> float:
    """About how wide a line of text is drawn, never much less (for sizing a picture
    around it and for keeping columns apart): per character, the advance of the widest
    common sans-serif (DejaVu Sans, the fallback of Linux browsers) rounded up."""
    if monospace:
        return len(content) * size * 0.62
    em = 0.0
    for char in content:
        if char in NARROW:
            em += 0.34
        elif char in SLIM:
            em += 0.5
        elif char in WIDE or not char.isascii():
            em += 1.0
        elif char.isupper():
            em += 0.8
        else:
            em += 0.65
    return em * size


def caption(x: float, y: float, content: str, size: float = 12) -> str:
    return text(x, y, content, size, MUTED)


def background(width: float, height: float) -> str:
    return rect(0, 0, width, height, PAPER)
