"""Writing records as text: tag lines in the standard order, then the move text wrapped
at LINE_WIDTH. The writer refuses (ValueError) a record it could not read back."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from arena.errors import excerpt
from arena.records.record import STANDARD_TAGS, GameRecord, Ply, tag_value_problem
from arena.records.syntax import PLAYER_TAG_RE, RESULT_MARKERS, TAG_NAME_RE, clean_comment, escape, needs_quotes

LINE_WIDTH: Final = 79
"""Move text lines are wrapped to this width (a single longer token gets a line of its own)."""

_PLAYERS_AFTER: Final = "Seats"

def write(game: GameRecord) -> str:
    """One game as text: tag lines, a blank line, the move text lines (each line ends
    with a newline). ValueError if the record could not be read back as it is."""
    _check_tags(game.tags)
    lines = [f'[{name} "{escape(game.tags[name])}"]' for name in _ordered_tag_names(game.tags)]
    lines.append("")
    marker = game.tags.get("Result")
    units = list(_movetext_units(game.plies))
    if marker in RESULT_MARKERS:  # PGN's game termination marker ends the move text
        units.append([marker])
    lines.extend(_wrap(units))
    return "\n".join(lines) + "\n"


def write_all(games: Iterable[GameRecord]) -> str:
    """Several games, a blank line between them."""
    return "\n".join(write(game) for game in games)


def _ordered_tag_names(tags: dict[str, str]) -> list[str]:
    """Standard tags in the standard order (players by seat after Seats), then the rest
    in insertion order."""
    players = sorted((name for name in tags if PLAYER_TAG_RE.fullmatch(name)), key=lambda n: int(n[6:]))
    ordered: list[str] = []
    for name in STANDARD_TAGS:
        if name in tags:
            ordered.append(name)
        if name == _PLAYERS_AFTER:
            ordered.extend(players)
    known = set(ordered)
    ordered.extend(name for name in tags if name not in known)
    return ordered


def _check_tags(tags: dict[str, str]) -> None:
    for name, value in tags.items():
        if TAG_NAME_RE.fullmatch(name) is None:
            raise ValueError(f"tag name {excerpt(name)} must be a letter then letters, digits or '_'")
        problem = tag_value_problem(name, value)
        if problem is not None:
            raise ValueError(problem)
    for required in ("Game", "Seats"):
        if required not in tags:
            raise ValueError(f"a record needs a {required} tag")


def _movetext_units(plies: list[Ply]) -> Iterator[list[str]]:
    """Per ply, its tokens: the turn number when a turn starts, the action (chance ones
    prefixed with '~'), the comment. A ply's tokens share a line when they fit."""
    turn = 0
    for index, ply in enumerate(plies, 1):
        if ply.turn < turn or ply.turn < 1:
            raise ValueError(f"ply {index} has turn number {ply.turn} after turn {turn}; "
                             "turn numbers start at 1 and never decrease")
        unit: list[str] = []
        if ply.turn != turn:
            turn = ply.turn
            unit.append(f"{turn}.")
        action = f'"{escape(ply.action)}"' if needs_quotes(ply.action) else ply.action
        unit.append("~" + action if ply.chance else action)
        comment = ply.comment_text()
        if comment is not None:
            unit.append("{" + clean_comment(comment) + "}")
        yield unit


def _wrap(units: Iterable[list[str]]) -> list[str]:
    """Greedy wrap with single spaces: a ply's tokens stay on one line when they fit in
    LINE_WIDTH, otherwise they wrap between tokens; only a single token longer than the
    width makes a longer line (alone)."""
    lines: list[str] = []
    current: list[str] = []
    width = -1  # the width of `current` joined, -1 when empty

    def add(text: str) -> None:
        nonlocal current, width
        if current and width + 1 + len(text) > LINE_WIDTH:
            lines.append(" ".join(current))
            current, width = [], -1
        current.append(text)
        width += 1 + len(text)

    for unit in units:
        joined = " ".join(unit)
        if len(joined) <= LINE_WIDTH:
            add(joined)
        else:
            for token in unit:
                add(token)
    if current:
        lines.append(" ".join(current))
    return lines
