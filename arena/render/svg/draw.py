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


def legend(names: Sequence[str], x: float, y: float, notes: Sequence[str] = (), to_move: int | None = None,
           size: float = 13, colours: Sequence[str] | None = None) -> tuple[list[str], float]:
    """Each seat's colour swatch, name and a note (score, hand size...), the seat to move
    marked with a triangle; returns the elements (one group) and the height they take."""
    out = []
    for seat, name in enumerate(names):
        top = y + seat * (size + 8)
        colour = colours[seat] if colours is not None else seat_colour(seat)
        out.append(rect(x + 12, top, size, size, colour, INK, rx=2, class_="swatch", data_seat=seat))
        out.append(text(x + 18 + size, top + size - 2, name, size, INK, class_="name", data_seat=seat))
        if seat < len(notes) and notes[seat]:
            out.append(text(x + 18 + size + text_width(name + " ", size), top + size - 2, notes[seat], size, INK,
                            class_="note"))
        if seat == to_move:
            out.append(polygon([(x, top + 1), (x + 8, top + size / 2), (x, top + size - 1)], INK, class_="to-move"))
    return [group(out, class_="legend")], len(names) * (size + 8)


def text_width(content: str, size: float = 13) -> float:
    """About how wide a line of text is drawn (for sizing a picture around it)."""
    return len(content) * size * 0.56


def caption(x: float, y: float, content: str, size: float = 12) -> str:
    return text(x, y, content, size, MUTED)


def background(width: float, height: float) -> str:
    return rect(0, 0, width, height, PAPER)
