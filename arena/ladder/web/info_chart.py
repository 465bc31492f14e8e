"""The info charts of a bot's page, drawn on the server as inline SVG: one small line
chart per field the bot reports in its info (arena.ladder.web.info_means), the ply on x
and the field's mean on y, each point titled with its count of games; `?field=NAME`
shows one field large. Every name that reaches the page goes through `esc`."""

from __future__ import annotations

from urllib.parse import quote

from arena.ladder.web.info_means import FieldMeans, InfoMeans
from arena.ladder.web.pages import esc

HINT = "report numbers in your action's info to chart them: docs/protocol.md"
SMALL = (330, 160)
LARGE = (680, 320)


def _value(value: float) -> str:
    return f"{value:.6g}"


def _axis(value: float) -> str:
    """A short label for an axis (the margin holds ten characters, as in `-1.235e+06`)."""
    return f"{value:.4g}"


def field_href(bot: str, field: str | None) -> str:
    """The address of the bot's page showing `field` large (all fields: None), escaped."""
    address = "/bot/" + quote(bot, safe="")
    return esc(address if field is None else f"{address}?field={quote(field, safe='')}")


def field_chart(field: FieldMeans, large: bool = False) -> str:
    """One field's means per ply as a line with a dot per ply number (two at least)."""
    width, height = LARGE if large else SMALL
    left, right, top, bottom = 62, 10, 10, 24
    points = field.points
    first, last = points[0].ply, points[-1].ply
    low, high = min(p.mean for p in points), max(p.mean for p in points)
    if high - low <= 1e-9 * max(1.0, abs(high)):
        low, high = low - 1, high + 1

    def x(ply: int) -> float:
        return left + (width - left - right) * (ply - first) / max(1, last - first)

    def y(value: float) -> float:
        return top + (height - top - bottom) * (high - value) / (high - low)

    line = " ".join(f"{x(p.ply):.1f},{y(p.mean):.1f}" for p in points)
    radius = 2.5 if large else 2
    dots = "".join(f'<circle cx="{x(p.ply):.1f}" cy="{y(p.mean):.1f}" r="{radius}" fill="#0b5cad">'
                   f"<title>ply {p.ply}: mean {_value(p.mean)} over {p.games} game{'s' if p.games != 1 else ''}"
                   "</title></circle>" for p in points)
    title = f"{field.name}: the mean per ply, plies {first} to {last}"
    return (f'<svg class="chart info" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="{esc(title)}"><title>{esc(title)}</title>'
            f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#999"/>'
            f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="#999"/>'
            f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end">{_axis(high)}</text>'
            f'<text x="{left - 4}" y="{height - bottom}" font-size="10" text-anchor="end">{_axis(low)}</text>'
            f'<text x="{left}" y="{height - 8}" font-size="10">ply {first}</text>'
            f'<text x="{width - right}" y="{height - 8}" font-size="10" text-anchor="end">ply {last}</text>'
            f'<polyline points="{line}" fill="none" stroke="#0b5cad" stroke-width="1.5"/>{dots}</svg>')


def info_section(bot: str, means: InfoMeans, chosen: str | None = None) -> str:
    """The bot page's section of info charts: every field small, or `chosen` large."""
    head = "<h2>Reported info</h2>"
    if not means.fields:
        seen = (f"no numbers in its info over its last {means.games} game{'s' if means.games != 1 else ''}"
                if means.games else "no recorded game of the version that plays yet")
        return f'{head}<p class="note">{esc(seen)}; {esc(HINT)}</p>'
    about = (f'<p class="note">The mean at each ply of what {esc(bot)} reports in its info, over the last '
             f"{means.games} games of the version that plays (a point's title says over how many).</p>")
    field = None if chosen is None else means.field(chosen)
    if field is not None:
        return (f'{head}{about}<h3>{esc(field.name)}</h3>{field_chart(field, large=True)}'
                f'<p><a href="{field_href(bot, None)}">all fields</a></p>')
    missing = ("" if chosen is None else
               f'<p class="error">no field {esc(chosen[:60])} is charted here; the fields are '
               f'{esc(", ".join(f.name for f in means.fields))}</p>')
    figures = "".join(f'<figure><figcaption><a href="{field_href(bot, f.name)}">{esc(f.name)}</a></figcaption>'
                      f"{field_chart(f)}</figure>" for f in means.fields)
    return f'{head}{about}{missing}<div class="info-charts">{figures}</div>'
