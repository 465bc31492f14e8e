"""Roots for people: the hex planet as a map of regions, then every region's strokes
written side to side, the open tips, the pools, the kept dice, the power-ups left, the
round and the score.

Each region is a cell of the map in its hex position (columns q, rows 2r + q, so
neighbours touch): `A`/`B` when only seat 0/1 has drawn in it, `X` when both have,
`.` when it is empty, followed by how many strokes it holds, and `a`/`b`/`+` when a
tip of seat 0/1/both waits on one of its sides. A stroke is written entry side first:
`A 0>3` is a chord of seat 0 from side 0 (N) to side 3 (S), `B 1>3,5 Y` a fork.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arena.games.roots import ROUNDS, RootsState

SEAT_MARK = ("A", "B")
SEAT_STYLE = ("bold green", "bold magenta")
SIDE_NAMES = ("N", "NE", "SE", "S", "SW", "NW")


def _cell(state: RootsState, region: int) -> list[tuple[str, str]]:
    owners = {s.owner for s in state.strokes[region]}
    count = len(state.strokes[region])
    if owners == {0, 1}:
        mark, style = "X", "bold yellow"
    elif owners:
        seat = owners.pop()
        mark, style = SEAT_MARK[seat], SEAT_STYLE[seat]
    else:
        mark, style = ".", "dim"
    tips = {seat for seat in (0, 1) for tip in state.tips[seat] if tip[0] == region}
    tip_mark = {frozenset(): " ", frozenset({0}): "a", frozenset({1}): "b"}.get(frozenset(tips), "+")
    tip_style = SEAT_STYLE[min(tips)] if len(tips) == 1 else "bold yellow"
    return [(mark, style), (str(count) if count else " ", style), (tip_mark, tip_style), (" ", "")]


def _map_rows(state: RootsState) -> list[list[tuple[str, str]]]:
    planet = state.planet
    columns = sorted({q for q, _ in planet.axial})
    rows = sorted({2 * r + q for q, r in planet.axial})
    at = {(q, 2 * r + q): i for i, (q, r) in enumerate(planet.axial)}
    lines = []
    for row in rows:
        line: list[tuple[str, str]] = []
        for q in columns:
            region = at.get((q, row))
            line.extend(_cell(state, region) if region is not None else [("    ", "")])
        lines.append(line)
    return lines


def _stroke_lines(state: RootsState) -> list[tuple[str, str]]:
    lines = []
    for region, strokes in enumerate(state.strokes):
        if not strokes:
            continue
        parts = []
        for s in strokes:
            exits = state.exits_of(s)
            fork = " Y" if len(exits) > 1 else ""
            parts.append(f"{SEAT_MARK[s.owner]} {s.entry}>{','.join(map(str, exits))}{fork}")
        lines.append((f"  {state.planet.names[region]:>6}: " + "; ".join(parts), ""))
    return lines


def _status(state: RootsState) -> list[tuple[str, str]]:
    score = state.scores()
    lines = [(f"round {state.round} of {ROUNDS}; {state.phase()}"
              + ("" if state.over or state.rolling else f"; seat {state.mover} ({SEAT_MARK[state.mover]}) to move"),
              "bold")]
    lines.append((f"pools: regular {state.regular or '-'}  special {state.special or '-'}", ""))
    for seat in (0, 1):
        powers = [name for name in ("reroll", "fast", "cross") if getattr(state.powers[seat], name)]
        tips = ", ".join(sorted(state.tip_name(t) for t in state.tips[seat])) or "none"
        kept = state.kept[seat]
        lines.append((f"seat {seat} ({SEAT_MARK[seat]}): {score[seat]} regions; kept {kept if kept else '-'}; "
                      f"{'left the round; ' if state.left[seat] else ''}power-ups {', '.join(powers) or 'none'}; "
                      f"tips {tips}", SEAT_STYLE[seat]))
    return lines


def _all_lines(state: RootsState) -> list[list[tuple[str, str]]]:
    title = [("planet: A/B seat alone, X both, . empty; stroke count; a/b/+ tips waiting", "bold")]
    strokes = [[line] for line in _stroke_lines(state)]
    header = [[("strokes (entry>exits, sides 0 N 1 NE 2 SE 3 S 4 SW 5 NW):", "bold")]] if strokes else []
    return [title, *_map_rows(state), *header, *strokes, *[[line] for line in _status(state)]]


def text_roots(state: RootsState) -> str:
    """Plain text of the planet and the state of play."""
    return "\n".join("".join(t for t, _ in line).rstrip() for line in _all_lines(state))


def render_roots(state: RootsState) -> RenderableType:
    """The same with seat colours."""
    texts = []
    for line in _all_lines(state):
        text = Text()
        for chunk, style in line:
            text.append(chunk, style=style or None)
        texts.append(text)
    return Group(*texts)


__all__ = ["render_roots", "text_roots"]
