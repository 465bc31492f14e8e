"""Blox for people: the construction seen from above, one level at a time on request.

The top view shows, for every stud of the board and of the margin where bricks stand,
the highest brick over it: the owner's seat digit coloured, and its level as a letter
a-p (a = level 0) in plain text, `.` for an empty board stud and ` ` for empty margin.
`text_blox_level(state, z)` draws one level. Below the view each seat's chains that
touch board edges are listed with the edges (W, E, S, N: x = 0, x = W-1, y = 0, y = H-1).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arena.games.blox import BloxState

SEAT_STYLES = ("bold red", "bold cyan", "bold green", "bold magenta")
EDGE_NAMES = "WESN"
LEVELS = "abcdefghijklmnop"


TOP_TITLE = "top view: seat digit + level letter (a = level 0) of the highest brick per stud"


def _extent(state: BloxState) -> tuple[range, range]:
    geo = state.geo
    xs = [0, geo.width - 1]
    ys = [0, geo.height - 1]
    for brick in state.bricks:
        for offset in geo.offsets[brick.orientation]:
            x, y = geo.coords(brick.position + offset)
            xs.append(x)
            ys.append(y)
    return range(min(xs), max(xs) + 1), range(min(ys), max(ys) + 1)


def _cells(state: BloxState, level: int | None) -> dict[tuple[int, int], tuple[int, int]]:
    """(x, y) -> (owner, level) of the highest brick over each stud (or of `level`)."""
    geo = state.geo
    cells: dict[tuple[int, int], tuple[int, int]] = {}
    for brick in state.bricks:
        if level is not None and brick.level != level:
            continue
        for offset in geo.offsets[brick.orientation]:
            stud = geo.coords(brick.position + offset)
            if stud not in cells or cells[stud][1] < brick.level:
                cells[stud] = (brick.owner, brick.level)
    return cells


def _grid(state: BloxState, level: int | None) -> list[list[tuple[str, str]]]:
    xs, ys = _extent(state)
    cells = _cells(state, level)
    geo = state.geo
    lines = []
    for y in reversed(ys):
        row = [(f"{y:>4} ", "dim")]
        for x in xs:
            if (x, y) in cells:
                owner, z = cells[(x, y)]
                row.append((f"{owner}{LEVELS[z]}", SEAT_STYLES[owner % 4]))
            elif 0 <= x < geo.width and 0 <= y < geo.height:
                row.append((" .", "dim"))
            else:
                row.append(("  ", ""))
        lines.append(row)
    lines.append([("     " + "".join(f"{x:>2}" for x in xs), "dim")])
    return lines


def _footer(state: BloxState) -> list[tuple[str, str]]:
    lines = []
    for seat in range(state.num_seats):
        chains = sorted((edges, len(members)) for members, edges in state.chain_edges(seat) if edges)
        described = ", ".join(
            f"{''.join(EDGE_NAMES[k] for k in range(4) if edges >> k & 1)} ({size} bricks)"
            for edges, size in reversed(chains)) or "none"
        marker = "> " if state.current() == seat else "  "
        goal = f"chains on edges: {described}"
        if state.starts:
            goal = f"starting bricks {'joined' if state.joined(seat) else 'apart'}"
        lines.append((f"{marker}seat {seat}: {state.left[seat]} bricks left; {goal}", SEAT_STYLES[seat % 4]))
    if state.over:
        result = state.result()
        text = f"game over: seat {state.winner} wins" if state.winner is not None else "game over: a draw"
        lines.append((text + f" (ranks {', '.join(map(str, result.ranks))})", "bold"))
    else:
        lines.append((f"turn {state.turns + 1} of at most {state.max_turns * state.num_seats}", "dim"))
    return lines


def text_blox_level(state: BloxState, level: int) -> str:
    """The bricks of one level (seat digit and level letter per stud)."""
    return "\n".join("".join(t for t, _ in row).rstrip() for row in _grid(state, level))


def text_blox(state: BloxState) -> str:
    """Top view (highest brick per stud), then the chains and counts, in plain ASCII."""
    title = TOP_TITLE
    rows = ["".join(t for t, _ in row).rstrip() for row in _grid(state, None)]
    return "\n".join([title, *rows, *(t for t, _ in _footer(state))])


def render_blox(state: BloxState, level: int | None = None) -> RenderableType:
    """The same with seat colours; only the bricks of `level` when one is given."""
    title = TOP_TITLE if level is None else f"level {level}: seat digit + level letter per stud"
    texts = [Text(title, style="bold")]
    for row in _grid(state, level):
        text = Text()
        for chunk, style in row:
            text.append(chunk, style=style or None)
        texts.append(text)
    texts.extend(Text(t, style=s) for t, s in _footer(state))
    return Group(*texts)


__all__ = ["render_blox", "text_blox", "text_blox_level"]
