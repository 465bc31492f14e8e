"""Branches and Twigs and Thorns for people: the board as it lies on the table.

The 2- and 4-seat wedge boards and every `rect` board are drawn as a chessboard (rank
1 at the bottom). The 3-, 5- and 6-seat wedge boards are drawn one 4 x 4 section per
panel, each as section a sits on a chessboard: local (0, 0), the centre corner, top
right; a square's name is the section letter, its column label (i), its row label (j).
An arrow off a panel's right edge points into the next section, off its top edge into
the previous one. Both views come from one list of styled segments, so the plain text
(`text_btt`) and the coloured one (`render_btt`) always agree.
"""

from __future__ import annotations

from rich.console import RenderableType

from arena.games.btt import BTTState
from arena.games.btt_board import EMPTY, NULL, ROOT, Panel
from arena.render.lines import Line, Segment, plain, styled

SEAT_STYLES = ("bold red", "bold blue", "bold green", "bold magenta", "bold cyan", "bold yellow")
PANELS_PER_ROW = 3
ASCII_ARROWS = {"up": "^", "down": "v", "left": "<", "right": ">"}
FANCY_ARROWS = {"up": "↑", "down": "↓", "left": "←", "right": "→"}


def text_btt(state: BTTState) -> str:
    """The board and the standings in plain ASCII."""
    return plain(_lines(state, fancy=False))


def render_btt(state: BTTState) -> RenderableType:
    """The board and the standings with seat colours and arrows, for a terminal."""
    return styled(_lines(state, fancy=True))


def direction(state: BTTState, sq: int, target: int) -> str:
    """Where a pyramid on sq points on the drawing: up, down, left or right."""
    geo = state.geo
    panel, row, col = geo.position[sq]
    other, trow, tcol = geo.position[target]
    if panel == other:
        if trow != row:
            return "up" if trow < row else "down"
        return "left" if tcol < col else "right"
    nxt = (geo.section[sq] + 1) % state.num_seats
    return "right" if geo.section[target] == nxt else "up"


def cell(state: BTTState, sq: int, fancy: bool) -> Segment:
    """Three characters for a square: `.` empty, `#` null, `@` root, or a pyramid as
    seat, size and arrow (`12>`: seat 1's size-2 pyramid pointing right)."""
    who = state.owner[sq]
    if who == EMPTY:
        return (" · " if fancy else " . ", "dim")
    if who == NULL:
        return (" ▪ " if fancy else " # ", "on grey23")
    if who == ROOT:
        return (" ◆ " if fancy else " @ ", "bold bright_white on dark_green")
    arrows = FANCY_ARROWS if fancy else ASCII_ARROWS
    arrow = arrows[direction(state, sq, state.target[sq])]
    return (f"{who}{state.size[sq]}{arrow}", SEAT_STYLES[who % len(SEAT_STYLES)])


def _panel_lines(state: BTTState, panel: Panel, fancy: bool) -> list[Line]:
    """A panel: optional title, one line per row with its label, column labels."""
    label_width = max(len(label) for label in panel.row_labels)
    lines: list[Line] = []
    if panel.title:
        lines.append([(" " * (label_width + 1) + panel.title, "bold")])
    for label, row in zip(panel.row_labels, panel.rows):
        line: Line = [(label.rjust(label_width) + " ", "dim")]
        for k, sq in enumerate(row):
            if k:
                line.append((" ", ""))
            line.append(("   ", "") if sq is None else cell(state, sq, fancy))
        lines.append(line)
    footer = " " * (label_width + 1) + " ".join(c.center(3) for c in panel.col_labels)
    lines.append([(footer, "dim")])
    return lines


def _width(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def _board_lines(state: BTTState, fancy: bool) -> list[Line]:
    """Panels side by side, at most PANELS_PER_ROW to a row of panels."""
    panels = [_panel_lines(state, p, fancy) for p in state.geo.panels]
    lines: list[Line] = []
    for start in range(0, len(panels), PANELS_PER_ROW):
        group = panels[start:start + PANELS_PER_ROW]
        if start:
            lines.append([])
        height = max(len(p) for p in group)
        widths = [max(_width(line) for line in p) for p in group]
        for r in range(height):
            line: Line = []
            for k, (p, w) in enumerate(zip(group, widths)):
                part = p[r] if r < len(p) else []
                line.extend(part)
                if k < len(group) - 1:
                    line.append((" " * (w - _width(part) + 4), ""))
            lines.append(line)
    return lines


def _status_lines(state: BTTState) -> list[Line]:
    """Scores and pyramids left per seat, and what happens next."""
    n = state.num_seats
    to_move = state.current()
    lines: list[Line] = [[]]
    for seat in range(n):
        ones, twos, threes = state.left[3 * seat:3 * seat + 3]
        marker = "  <- to move" if seat == to_move else ""
        lines.append([
            (f"seat {seat}", SEAT_STYLES[seat % len(SEAT_STYLES)]),
            (f"  score {state.scores[seat]:>3}  left 1:{ones} 2:{twos} 3:{threes}{marker}", ""),
        ])
    phase = state.phase()
    if phase == "setup":
        kind = "null" if state.ply < n // 2 else "root"
        summary = f"setup, ply {state.ply + 1}: seat {to_move} places a {kind}"
    elif phase == "play":
        summary = f"play, ply {state.ply + 1}: seat {to_move} places a pyramid"
    else:
        ranks = ", ".join(str(r) for r in state.result().ranks)
        summary = f"game over after {state.ply} actions; ranks by seat: {ranks}"
    lines.append([(summary, "italic")])
    return lines


def _lines(state: BTTState, fancy: bool) -> list[Line]:
    return _board_lines(state, fancy) + _status_lines(state)
