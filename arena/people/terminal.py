"""`human`: a person playing in the terminal. At each decision the board is drawn (the
terminal view; The Tree shows only the person's own hand), the legal actions are
listed with numbers, and the person types a number or the action itself. There is no
undo: an answer once given is played. The time the decision may take is shown before
the prompt; the referee's clock runs as for any bot."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

import trio
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.people.seat import SeatView
from arena.render import render_seat

COLUMNS = 4
"""Legal actions listed per line."""


def _seat_view(view: SeatView) -> object:
    return render_seat(view.game_id, view.state, view.seat)


def _seconds(ms: object) -> str:
    if not isinstance(ms, int | float):
        return "?"
    seconds = ms / 1000
    if seconds >= 24 * 3600:
        return "no limit"
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def pick(answer: str, legal: list[str]) -> str | None:
    """The action a typed answer names: its number in the list (from 1), or the action
    written out (spaces as typed, case as the game spells it)."""
    text = answer.strip()
    number = text.isascii() and text.isdigit() and len(text) <= 9  # int() refuses '²' and 5000 digits
    if number and 1 <= int(text) <= len(legal):
        return legal[int(text) - 1]
    if text in legal:
        return text
    folded = {action.lower(): action for action in legal}
    return folded.get(text.lower())


class TerminalPerson:
    """A person at this terminal (reads `source`, draws on `console`)."""

    def __init__(self, name: str = "human", console: Console | None = None, source: TextIO | None = None,
                 read_line: Callable[[], str] | None = None) -> None:
        self.name = name
        self.console = console or Console()
        self.source = source or sys.stdin
        self._read_line = read_line or self.source.readline

    async def choose(self, view: SeatView) -> str:
        console = self.console
        console.rule(f"{escape(view.names[view.seat])} (seat {view.seat}) to play")
        console.print(_seat_view(view))
        if view.last is not None:
            who = "chance" if view.last_actor == -1 else view.names[view.last_actor or 0]
            console.print(f"last: {escape(who)} played [bold]{escape(view.last)}[/]", highlight=False)
        table = Table.grid(padding=(0, 3))
        for _ in range(min(COLUMNS, len(view.legal))):
            table.add_column()
        row: list[str] = []
        for number, action in enumerate(view.legal, 1):
            row.append(f"[bold]{number:>3}[/] {escape(action)}")
            if len(row) == COLUMNS:
                table.add_row(*row)
                row = []
        if row:
            table.add_row(*row, *[""] * (min(COLUMNS, len(view.legal)) - len(row)))
        console.print(table)
        clock = view.clock
        remaining = f", clock {_seconds(clock.get('remaining_ms'))}" if clock.get("remaining_ms") is not None else ""
        while True:
            console.print(f"time for this move: {_seconds(clock.get('move_ms'))}{remaining}. "
                          "Type a number or an action (no undo): ", end="", highlight=False)
            answer = await trio.to_thread.run_sync(self._read_line, abandon_on_cancel=True)
            if answer == "":
                raise EOFError("the terminal closed its input: the person left the game")
            chosen = pick(answer, view.legal)
            if chosen is not None:
                return chosen
            console.print(f"[red]{escape(repr(answer.strip()))} is not one of the {len(view.legal)} actions above[/]; "
                          "type its number or write it out exactly")

    async def game_over(self, view: SeatView) -> None:
        self.console.rule("game over")
        self.console.print(_seat_view(view))
        result = view.result or {}
        ranks = result.get("ranks") or []
        mine = ranks[view.seat] if view.seat < len(ranks) else "?"
        self.console.print(f"you ({escape(view.names[view.seat])}) placed #{mine}; ranks {ranks}, scores "
                           f"{result.get('scores')}, {result.get('termination')}", highlight=False)
