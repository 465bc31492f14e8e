"""The ladder's pages as HTML text, drawn on the server: the leaderboard, a bot's page
(its rating history as inline SVG; its info charts come from arena.ladder.web.info_chart),
a version's page, the games under way, and the forms. Pure functions from what
arena.ladder.web.queries read to text; every name, log, detail and option that reaches a
page goes through `esc`. No page runs a script: the forms post plain HTML and the
games under way refresh themselves."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from arena.games import Game
from arena.ladder.config import Ladder, LadderTable, Language
from arena.ladder.web.queries import (
    BoardRow,
    BotInfo,
    FaultRow,
    HeadToHead,
    HistoryPoint,
    RecentGame,
    VersionInfo,
    VersionRow,
)
from arena.league.under_way import GameUnderWay
from arena.render.svg import View, svg_defs, svg_state
from arena.stats.ratings import Rating
from arena.web.page import STYLE

LADDER_STYLE = STYLE + """
main.ladder { display: block; max-width: 1200px; }
nav { display: flex; gap: 1.2em; align-items: center; flex-wrap: wrap; margin-top: .4em; }
nav form { display: inline; margin: 0; }
nav .who { color: var(--muted); margin-left: auto; }
a { color: var(--accent); }
section { margin-bottom: 1.6em; }
.filters { display: flex; gap: .8em; flex-wrap: wrap; margin: .3em 0 1em; }
.filters .chosen { font-weight: 600; color: var(--ink); text-decoration: none; }
.status-active { color: #1d6b1d; }
.status-paused, .status-retired { color: var(--muted); }
.status-disqualified { color: #a40000; }
tr.inactive td { color: var(--muted); }
pre.log { background: #fff; border: 1px solid var(--line); padding: .6em; overflow-x: auto; white-space: pre-wrap;
          max-height: 70vh; }
form.stacked label { display: block; margin: .6em 0 .2em; }
form.stacked input[type=text], form.stacked input[type=password], form.stacked select { font: inherit;
          padding: .25em; min-width: 22em; }
.error { color: #a40000; font-weight: 600; }
.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; max-width: 680px; }
.info-charts { display: flex; flex-wrap: wrap; gap: 1em; }
.info-charts figure { margin: 0; }
.boards { display: flex; flex-wrap: wrap; gap: 1em; }
.boards .game-card { flex: 0 1 420px; }
"""


def esc(value: object) -> str:
    """Text as HTML text or an attribute's value (quotes included)."""
    return html.escape(str(value), quote=True)


@dataclass(frozen=True)
class Chrome:
    """What every page's header shows: the ladder and who is signed in."""

    ladder: str
    entrant: str | None
    signout_csrf: str


def layout(chrome: Chrome, title: str, body: str, refresh: int | None = None) -> str:
    """A whole page: the header with the shared navigation, then `body` (already HTML)."""
    if chrome.entrant is not None:
        who = (f'<span class="who">signed in as {esc(chrome.entrant)}</span>'
               f'<form method="post" action="/signout"><input type="hidden" name="csrf" '
               f'value="{esc(chrome.signout_csrf)}"><button type="submit">Sign out</button></form>')
    else:
        who = '<a href="/signin" class="who">Sign in</a>'
    meta = f'<meta http-equiv="refresh" content="{int(refresh)}">' if refresh else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{meta}<title>{esc(title)} · {esc(chrome.ladder)}</title>
<style>{LADDER_STYLE}</style>
</head>
<body>
<header><h1>{esc(chrome.ladder)}</h1>
<nav><a href="/">Leaderboard</a><a href="/under-way">Under way</a><a href="/submit">Submit</a>{who}</nav>
</header>
<main class="ladder">
<h2>{esc(title)}</h2>
{body}
</main>
</body>
</html>
"""


def message(text: str) -> str:
    return f"<p>{esc(text)}</p>"


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool],
           row_classes: Sequence[str] | None = None) -> str:
    """A table of cells that are already HTML."""
    head = "".join(f'<th{" class=num" if n else ""}>{esc(h)}</th>' for h, n in zip(headers, numeric, strict=True))
    lines = []
    for k, row in enumerate(rows):
        cells = "".join(f'<td{" class=num" if n else ""}>{c}</td>' for c, n in zip(row, numeric, strict=True))
        css = f' class="{row_classes[k]}"' if row_classes and row_classes[k] else ""
        lines.append(f"<tr{css}>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(lines)}</table>"


def bot_href(name: str) -> str:
    """The address of a bot's page, escaped for an attribute."""
    return esc("/bot/" + quote(name, safe=""))


def bot_link(name: str) -> str:
    return f'<a href="{bot_href(name)}">{esc(name)}</a>'


def game_link(game: int) -> str:
    return f'<a href="/game/{game}">{game}</a>'


def elo_text(elo: Rating | None) -> str:
    if elo is None or not math.isfinite(elo.error):
        return "–"
    return f"{elo.value:+.0f} ± {elo.error:.0f}"


def faults_text(faults: dict[str, int]) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in sorted(faults.items(), key=lambda f: (-f[1], f[0])))


# ---- the leaderboard ----------------------------------------------------------------------


def table_filters(ladder: Ladder, chosen: str | None, seats: int | None) -> str:
    """Links that show one table (a game at a seat count with its variant options), or
    every table of one seat count, or all."""
    links = [f'<a href="/"{" class=chosen" if chosen is None and seats is None else ""}>all tables</a>']
    counts = sorted({t.seats for t in ladder.tables})
    if len(counts) > 1:
        links += [f'<a href="/?seats={n}"{" class=chosen" if seats == n else ""}>{n} seats</a>' for n in counts]
    if len(ladder.tables) > 1:
        links += [f'<a href="/?table={esc(t.key)}"{" class=chosen" if chosen == t.key else ""}>{esc(t.label)}</a>'
                  for t in ladder.tables]
    return f'<div class="filters">{"".join(links)}</div>'


def board_section(table: LadderTable, rows: list[BoardRow]) -> str:
    """One table's leaderboard: OpenSkill (mu, its interval mu ± 2 sigma, the ordinal
    mu - 3 sigma it is sorted by), Elo for a 2-seat table, games, wins, faults, status."""
    elo = table.seats == 2
    headers = ["#", "bot", "version", "mu", "mu ± 2σ", "ordinal", *(["Elo"] if elo else []), "games", "wins",
               "faults", "status"]
    numeric = [True, False, False, True, True, True, *([True] if elo else []), True, True, False, False]
    lines = []
    for row in rows:
        bot = row.bot
        low, high = bot.skill.interval()
        status = f'<span class="status-{esc(bot.status)}" title="{esc(bot.reason)}">{esc(bot.status)}</span>'
        lines.append([
            "" if row.rank is None else str(row.rank), bot_link(bot.name), f"v{bot.number}",
            f"{bot.skill.mu:.1f}", f"{low:.1f} – {high:.1f}", f"{bot.skill.ordinal():.1f}",
            *([elo_text(row.elo)] if elo else []), str(row.stats.games), str(row.stats.wins),
            esc(faults_text(row.stats.faults)), status])
    body = (_table(headers, lines, numeric, ["" if r.rank is not None else "inactive" for r in rows]) if rows
            else '<p class="note">no bot plays here yet: submit one</p>')
    return f'<section id="table-{esc(table.key)}"><h2>{esc(table.label)}</h2>{body}</section>'


def leaderboard_body(ladder: Ladder, boards: list[tuple[LadderTable, list[BoardRow]]], chosen: str | None,
                     seats: int | None) -> str:
    note = ('<p class="note">Sorted by the ordinal (mu − 3σ, OpenSkill), so a version with few games does not top '
            "the table on luck; paused, retired and disqualified bots come after the active ones.</p>")
    return table_filters(ladder, chosen, seats) + note + "".join(board_section(t, rows) for t, rows in boards)


def board_json(table: LadderTable, rows: list[BoardRow]) -> dict[str, object]:
    """A table's board for the API (JSON has no infinity: an Elo without games is null)."""
    def elo(rating: Rating | None) -> dict[str, float] | None:
        if rating is None or not math.isfinite(rating.error):
            return None
        return {"value": round(rating.value, 1), "error": round(rating.error, 1)}

    return {"table": table.key, "label": table.label, "game": table.game.id, "seats": table.seats,
            "options": table.options, "rows": [
                {"rank": r.rank, "bot": r.bot.name, "owner": r.bot.owner, "version": r.bot.number,
                 "mu": round(r.bot.skill.mu, 3), "sigma": round(r.bot.skill.sigma, 3),
                 "interval": [round(x, 3) for x in r.bot.skill.interval()],
                 "ordinal": round(r.bot.skill.ordinal(), 3), "elo": elo(r.elo) if table.seats == 2 else None,
                 "games": r.stats.games, "wins": r.stats.wins, "faults": r.stats.faults, "status": r.bot.status}
                for r in rows]}


# ---- a bot's page -------------------------------------------------------------------------

CHART_POINTS = 400
"""Points drawn per chart at most (a long history is thinned evenly, the last kept)."""


def rating_chart(points: list[HistoryPoint], label: str) -> str:
    """The bot's mu after each of its games at one table, with the band mu ± 2 sigma
    shaded and a dashed line where a new version took over (it starts from the prior)."""
    width, height, left, right, top, bottom = 680, 220, 48, 12, 12, 28
    count = len(points)
    if count == 0:
        return ""
    step = max(1, math.ceil(count / CHART_POINTS))
    shown = [(k, p) for k, p in enumerate(points) if k % step == 0 or k == count - 1]
    low = min(p.mu - 2 * p.sigma for _, p in shown)
    high = max(p.mu + 2 * p.sigma for _, p in shown)
    if high - low < 1e-9:
        low, high = low - 1, high + 1

    def x(k: int) -> float:
        return left + (width - left - right) * (k / (count - 1) if count > 1 else 0.5)

    def y(value: float) -> float:
        return top + (height - top - bottom) * (high - value) / (high - low)

    upper = " ".join(f"{x(k):.1f},{y(p.mu + 2 * p.sigma):.1f}" for k, p in shown)
    lower = " ".join(f"{x(k):.1f},{y(p.mu - 2 * p.sigma):.1f}" for k, p in reversed(shown))
    line = " ".join(f"{x(k):.1f},{y(p.mu):.1f}" for k, p in shown)
    marks = []
    for k in range(1, count):
        if points[k].number != points[k - 1].number:
            marks.append(f'<line x1="{x(k):.1f}" x2="{x(k):.1f}" y1="{top}" y2="{height - bottom}" stroke="#888" '
                         f'stroke-dasharray="3 3"/><text x="{x(k) + 3:.1f}" y="{top + 10}" font-size="10" '
                         f'fill="#555">v{points[k].number}</text>')
    last = points[-1]
    title = (f"{label}: mu after each of {count} games (now {last.mu:.1f}, mu ± 2σ {last.mu - 2 * last.sigma:.1f} "
             f"to {last.mu + 2 * last.sigma:.1f})")
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="{esc(title)}"><title>{esc(title)}</title>'
            f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#999"/>'
            f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="#999"/>'
            f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end">{high:.0f}</text>'
            f'<text x="{left - 4}" y="{height - bottom}" font-size="10" text-anchor="end">{low:.0f}</text>'
            f'<text x="{left}" y="{height - 8}" font-size="10">game {points[0].game}</text>'
            f'<text x="{width - right}" y="{height - 8}" font-size="10" text-anchor="end">game {last.game}</text>'
            f'<polygon class="band" points="{upper} {lower}" fill="#bcd6f5" fill-opacity="0.7"/>'
            f'<polyline class="mu" points="{line}" fill="none" stroke="#0b5cad" stroke-width="1.5"/>'
            f'{"".join(marks)}</svg>')


@dataclass(frozen=True)
class BotPage:
    """Everything a bot's page shows, as read for one viewer."""

    bot: BotInfo
    versions: list[VersionRow]
    history: dict[str, list[HistoryPoint]]
    games: list[RecentGame]
    rivals: list[HeadToHead]
    fault_counts: dict[str, int]
    faults: list[FaultRow]
    logs_allowed: bool
    owner: bool
    units_with_logs: frozenset[int]


def _versions_table(page: BotPage, rollback_csrf: str) -> str:
    rows = []
    for v in page.versions:
        log = f'<a href="/version/{v.id}/log">log</a>' if page.logs_allowed and v.has_log else ""
        play = "plays" if v.playing else ""
        if page.owner and v.state == "ready" and not v.playing:
            play = (f'<form method="post" action="{bot_href(page.bot.name)}/rollback">'
                    f'<input type="hidden" name="csrf" value="{esc(rollback_csrf)}">'
                    f'<input type="hidden" name="version" value="{v.number}">'
                    '<button type="submit">play this one</button></form>')
        rows.append([f'<a href="/version/{v.id}">v{v.number}</a>', esc(v.language), esc(v.state), esc(v.submitted),
                     log, play])
    return _table(["version", "language", "state", "submitted", "log", ""], rows, [False] * 6)


def _result(game: RecentGame) -> str:
    if game.seats == 2:
        others = [o.rank for o in game.others]
        text = "draw" if others and others[0] == game.rank else "won" if game.rank == 1 else "lost"
    else:
        text = f"#{game.rank} of {game.seats}"
    if game.score is not None:
        text += f" ({game.score:g})"
    return text


def bot_body(page: BotPage, tables: dict[str, LadderTable], rollback_csrf: str, retire_csrf: str,
             info: str = "") -> str:
    """A bot's page; `info` is its section of info charts (arena.ladder.web.info_chart), if any."""
    bot = page.bot
    parts = [f"<p>owner <b>{esc(bot.owner)}</b> · status <span class=\"status-{esc(bot.status)}\">"
             f"{esc(bot.status)}</span>{' · ' + esc(bot.reason) if bot.reason else ''}</p>"]
    if page.owner and bot.status in ("active", "paused"):
        parts.append(f'<form method="post" action="{bot_href(bot.name)}/retire">'
                     f'<input type="hidden" name="csrf" value="{esc(retire_csrf)}">'
                     '<button type="submit">retire this bot</button> <span class="note">(it stops playing; its '
                     "games stay on the board's history; the organiser can bring it back)</span></form>")
    parts.append("<h2>Versions</h2>" + (_versions_table(page, rollback_csrf) if page.versions else
                                        '<p class="note">none</p>'))
    parts.append("<h2>Rating history</h2>")
    if not page.history:
        parts.append('<p class="note">no game yet</p>')
    for key, points in page.history.items():
        table = tables.get(key)
        label = table.label if table is not None else key
        parts.append(f"<h3>{esc(label)}</h3>{rating_chart(points, label)}")
    parts.append(info)
    parts.append("<h2>Recent games</h2>")
    if page.games:
        rows = []
        for g in page.games:
            opponents = ", ".join(f"{bot_link(o.name)} v{o.number}" for o in g.others)
            logs = (f'<a href="{bot_href(bot.name)}/logs/{g.unit}">stderr</a>'
                    if page.logs_allowed and g.unit in page.units_with_logs else "")
            rows.append([game_link(g.game), esc(g.table), f"v{g.number}", opponents, esc(_result(g)),
                         esc(g.termination) + (f' <span class="fault">({esc(g.fault)})</span>' if g.fault else ""),
                         esc(g.finished), logs])
        parts.append(_table(["game", "table", "version", "against", "result", "termination", "finished", "logs"],
                            rows, [True, False, False, False, False, False, False, False]))
    else:
        parts.append('<p class="note">none yet</p>')
    parts.append("<h2>Head to head</h2>")
    if page.rivals:
        rows = [[bot_link(r.opponent), str(r.games), f"{r.points:g}", f"{100 * r.points / r.games:.0f}%"]
                for r in page.rivals]
        parts.append(_table(["opponent", "games", "points", "score"], rows, [False, True, True, True]))
    else:
        parts.append('<p class="note">none yet</p>')
    parts.append("<h2>Faults</h2>")
    if page.faults:
        parts.append(f"<p>{esc(faults_text(page.fault_counts))}</p>")
        rows = [[game_link(f.game), f"v{f.number}", esc(f.reason), esc(f.detail)] for f in page.faults]
        parts.append(_table(["game", "version", "reason", "detail"], rows, [True, False, False, False]))
    else:
        parts.append('<p class="note">none</p>')
    if not page.logs_allowed:
        parts.append('<p class="note">The stderr and build logs of a bot are shown to its owner only '
                     "(signed in).</p>")
    return "".join(parts)


# ---- a version ----------------------------------------------------------------------------


def version_body(info: VersionInfo, log_allowed: bool) -> str:
    parts = [f"<p>{bot_link(info.bot)} version {info.number} · {esc(info.language)} · submitted "
             f"{esc(info.submitted)} · <b>{esc(info.state)}</b></p>"]
    if info.state in ("building", "checking"):
        parts.append('<p class="note">This page refreshes until the build and check are done.</p>')
    if log_allowed:
        parts.append(f'<pre class="log">{esc(info.log) or "(no log yet)"}</pre>')
    else:
        parts.append('<p class="note">Its build and check log is shown to its owner only (signed in).</p>')
    return "".join(parts)


# ---- forms --------------------------------------------------------------------------------


def signin_body(csrf: str, error: str = "") -> str:
    return (f'{f"<p class=error>{esc(error)}</p>" if error else ""}'
            '<p>Sign in with the token the organiser gave you (<code>arena ladder entrant add</code>).</p>'
            '<form class="stacked" method="post" action="/signin">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            '<label for="token">token</label><input type="password" id="token" name="token" autocomplete="off" '
            'required><p><button type="submit">Sign in</button></p></form>')


def submit_body(languages: dict[str, Language], csrf: str, name: str, max_bytes: int, error: str = "") -> str:
    options = "".join(f'<option value="{esc(k)}">{esc(k)}{" (" + esc(v.files) + ")" if v.files else ""}</option>'
                      for k, v in sorted(languages.items()))
    return (f'{f"<p class=error>{esc(error)}</p>" if error else ""}'
            '<form class="stacked" method="post" action="/submit" enctype="multipart/form-data">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<label for="name">bot name</label><input type="text" id="name" name="name" value="{esc(name)}" '
            'required maxlength="32" pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]*">'
            f'<label for="language">language</label><select id="language" name="language">{options}</select>'
            f'<label for="bot">the bot: a source file or an archive (.zip, .tar.gz), at most {max_bytes:,} bytes'
            '</label><input type="file" id="bot" name="bot" required>'
            '<p><button type="submit">Submit</button></p></form>'
            '<p class="note">The version is built (without network: put what it needs in the upload) and checked; '
            "its page shows the log. From a script: <code>curl -H \"Authorization: Bearer TOKEN\" -F bot=@bot.zip "
            "-F language=python URL/api/bots</code>.</p>")


# ---- the games under way ------------------------------------------------------------------

_ID = re.compile(r'\bid="([^"]+)"')


def scoped(svg: str, ids: Sequence[str], prefix: str) -> str:
    """`svg` with each of `ids` (and every reference to one) given `prefix`: two tables
    of one game at different seat counts share a page without their shared pictures
    (the game's defs) clashing."""
    if not ids:
        return svg
    names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    svg = re.sub(rf'\bid="({names})"', lambda m: f'id="{prefix}{m[1]}"', svg)
    return re.sub(rf'#({names})(?=["\')])', lambda m: f"#{prefix}{m[1]}", svg)


def board_picture(game: Game, playing: GameUnderWay) -> tuple[str, str, str]:
    """(defs, board, label) of a game under way, redrawn from its actions (as the live
    league page does)."""
    state = game.new_state(playing.seats, playing.options)
    last, actor = None, None
    for action in playing.actions:
        actor = state.current()
        state.apply(action)
        last = action
    to_move = state.current()
    status = f"{playing.names[to_move]} to play" if 0 <= to_move < len(playing.names) else ""
    view = View(tuple(playing.names), last, actor, status=status)
    label = f"ply {len(playing.actions)}" + (f" · {last}" if last is not None else " · the start")
    return svg_defs(game.id, state, view), svg_state(game.id, state, view), label


_LABEL = re.compile(r"(.+) v(\d+)")


def label_link(label: str) -> str:
    """A seat's label ('alpha v3') with the bot's name linked to its page."""
    match = _LABEL.fullmatch(label)
    return esc(label) if match is None else f"{bot_link(match[1])} v{match[2]}"


def under_way_section(table: LadderTable, cards: list[tuple[GameUnderWay, str, str]], defs: str) -> str:
    """A table's games in flight: (game, board svg, label) each, its defs once."""
    if not cards:
        body = '<p class="note">no game under way</p>'
    else:
        ids = _ID.findall(defs)
        prefix = f"{table.key}-"
        defs = scoped(defs, ids, prefix)
        cards = [(g, scoped(svg, ids, prefix), label) for g, svg, label in cards]
        body = (f'<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>{defs}</defs></svg>'
                '<div class="boards">' + "".join(
                    f'<div class="game-card"><div><b>unit {g.index // 1000} · game {esc(g.round)}</b>: '
                    f'{" v ".join(label_link(name) for name in g.names)}'
                    f' · {esc(label)}</div>{svg}</div>' for g, svg, label in cards) + "</div>")
    return f'<section id="table-{esc(table.key)}"><h2>{esc(table.label)}</h2>{body}</section>'
