"""The picture any game gets until it has one of its own: the players (the seat to
move marked), the position as the lines of its JSON observation, the last action and
the status line. Enough for the replay page, the live page and a person's page to
show a new game; a person picks actions from the page's list (no spots)."""

from __future__ import annotations

import json
import textwrap

from arena.games.base import CHANCE, State
from arena.render.svg import View
from arena.render.svg.draw import background, caption, document, legend, legend_width, rect, text, text_width
from arena.render.svg.palette import HIGHLIGHT, INK

WIDTH = 560.0
MARGIN = 16.0
SIZE = 13.0
LINE = 18.0
WRAP = 72
"""Characters per line of the observation."""


def facts(state: State, seat: int | None) -> list[str]:
    """The position as lines: `key: value` of the viewer's observation; for a replay (no
    viewer) of a game that hides something, every seat's, one after the other."""
    if seat is None and state.game.has_hidden_information:
        views = [(f"seat {s} sees", state.observation(s)) for s in range(state.num_seats)]
    else:
        views = [("", state.observation(0 if seat is None else seat))]
    lines: list[str] = []
    for title, observation in views:
        if title:
            lines.append(title)
        for key in sorted(observation):
            value = json.dumps(observation[key], separators=(",", ":"), sort_keys=True)
            lines.extend(textwrap.wrap(f"{key}: {value}", WRAP, subsequent_indent="    ") or [f"{key}:"])
    return lines


def draw(state: State, view: View) -> str:
    current = state.current()
    parts, height = legend(view.names, MARGIN, MARGIN, to_move=current if current >= 0 else None)
    y = MARGIN + height + LINE
    if view.last is not None:
        who = "chance" if view.last_actor == CHANCE else (
            view.names[view.last_actor] if view.last_actor is not None and 0 <= view.last_actor < len(view.names)
            else "?")
        label = f"last: {who}: {view.last}"
        parts.append(rect(MARGIN - 4, y - SIZE, text_width(label, SIZE) + 8, LINE, HIGHLIGHT, rx=3, class_="last"))
        parts.append(text(MARGIN, y, label, SIZE, INK, class_="last-action"))
        y += LINE * 1.5
    lines = facts(state, view.seat)
    for line in lines:
        parts.append(text(MARGIN, y, line, SIZE, INK, class_="fact", font_family="monospace"))
        y += LINE
    if view.status:
        y += LINE / 2
        parts.append(caption(MARGIN, y, view.status))
    height = y + MARGIN
    width = max([WIDTH, legend_width(view.names) + 2 * MARGIN]
                + [text_width(line, SIZE, monospace=True) + 2 * MARGIN for line in lines])
    return document(width, height, [background(width, height), *parts], state.game.name)


def defs(state: State, view: View) -> str:
    """Nothing shared: the picture is text."""
    return ""


def spot(state: State, action: str) -> str | None:
    """No place to click: a person picks from the list of legal actions."""
    return None
