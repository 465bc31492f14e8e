"""The one frame format every page shares (replay, live league, a person's seat).

A `Film` is a game's pictures: the SVG shapes every picture of the game uses (`defs`,
written once), a table of distinct lines (`chunks`: the drawings put each layer on a
line of its own, and a layer that did not change from one ply to the next is kept
once), and one `Frame` per ply, the board after that many plies, as it is numbered by
`arena replay --ply`: frame 0 is the start, frame N the board after ply N. A frame
lists its lines by number, so the page only joins strings to show one: no drawing
happens in the browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.base import CHANCE, State
from arena.records.record import GameRecord
from arena.records.replay import replay
from arena.render.svg import View, svg_defs, svg_state


@dataclass
class Frame:
    """The board after `ply` plies: the action that led to it and who played it."""

    ply: int
    turn: int
    actor: int | None
    action: str | None
    label: str
    parts: list[int]


@dataclass
class Film:
    """A game's pictures, ready to be written into a page as JSON."""

    game: str
    names: list[str]
    defs: str
    chunks: list[str] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    levels: int = 0
    """The highest level a frame shows (games built in levels; 0 otherwise)."""
    turnable: bool = False
    """Whether the pictures hold four quarter turns of the scene (Treeblox)."""
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def add(self, frame_ply: int, turn: int, actor: int | None, action: str | None, label: str, svg: str) -> Frame:
        """Append the picture of one ply, keeping each distinct line once."""
        parts = []
        for line in svg.split("\n"):
            number = self._index.get(line)
            if number is None:
                number = self._index[line] = len(self.chunks)
                self.chunks.append(line)
            parts.append(number)
        if "class=\"rot rot-" in svg:
            self.turnable = True
        frame = Frame(frame_ply, turn, actor, action, label, parts)
        self.frames.append(frame)
        return frame

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game, "names": self.names, "defs": self.defs, "chunks": self.chunks,
            "frames": [[f.ply, f.turn, f.actor, f.action, f.label, f.parts] for f in self.frames],
            "levels": self.levels, "turnable": self.turnable,
        }


def ply_label(ply: int, plies: int, turn: int, actor: int | None, action: str | None,
              names: Sequence[str]) -> str:
    """'ply 12 of 80 · turn 7 · greedy (seat 1): Nc3', numbered as `arena replay --ply`."""
    if action is None:
        return f"ply 0 of {plies} · the start"
    who = "chance" if actor == CHANCE else (
        f"{names[actor]} (seat {actor})" if actor is not None and 0 <= actor < len(names) else "?")
    return f"ply {ply} of {plies} · turn {turn} · {who}: {action}"


def result_line(record: GameRecord) -> str:
    """The record's result as people read it: the places by name ("1st greedy, 2nd
    random"), scores and how the game ended."""
    tags = record.tags
    parts = []
    places = record.places
    if places:
        parts.append(places)
    if tags.get("Scores"):
        parts.append(f"scores {tags['Scores']}")
    if tags.get("Termination"):
        detail = tags.get("TerminationDetail")
        parts.append(f"{tags['Termination']}" + (f" ({detail})" if detail else ""))
    return "result: " + " · ".join(parts) if parts else "no result recorded"


def _level_of(state: State) -> int:
    top = getattr(state, "top_level", None)
    return int(top()) if callable(top) else 0


def record_film(record: GameRecord) -> Film:
    """Every ply of a recorded game drawn, omniscient (hidden hands shown, as a replay
    is watched after the game); ReplayError or GameError as replaying raises."""
    game_id = record.game_id
    names = list(record.players)
    film: Film | None = None
    plies = len(record.plies)
    mover: int | None = None
    for index, entry, state in replay(record):
        actor = None if entry is None else mover  # who was to decide before this ply
        mover = state.current()
        action = None if entry is None else entry.action
        turn = 0 if entry is None else entry.turn
        status = result_line(record) if index == plies else _to_move(state, names)
        view = View(tuple(names), last=action, last_actor=actor, status=status)
        if film is None:
            film = Film(game_id, names, svg_defs(game_id, state, view))
        film.add(index, turn, actor, action, ply_label(index, plies, turn, actor, action, names),
                 svg_state(game_id, state, view))
        film.levels = max(film.levels, _level_of(state))
    assert film is not None  # replay always yields the start
    return film


def _to_move(state: State, names: Sequence[str]) -> str:
    seat = state.current()
    if seat == CHANCE:
        return "chance to play"
    if 0 <= seat < len(names):
        return f"{names[seat]} (seat {seat}) to play"
    return ""
