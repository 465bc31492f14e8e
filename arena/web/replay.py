"""A recorded game as one self-contained page: every ply drawn (frame N is the board
after ply N, as `arena replay --ply N` draws it), stepped through with buttons, a
slider or the arrow keys; `#ply=N` in the address opens ply N. Nothing is fetched, so
the file can be mailed, attached to an issue or opened offline."""

from __future__ import annotations

from arena import games
from arena.records.record import GameRecord
from arena.web.frames import record_film, result_line
from arena.web.page import page


def replay_page(record: GameRecord, level: int | None = None) -> str:
    """The whole page for one game (ReplayError or GameError as replaying raises);
    `level` sets the highest level shown at first (games built in levels)."""
    film = record_film(record)
    data = film.to_json()
    name = games.get(record.game_id).name
    players = " v ".join(record.players)
    tags = record.tags
    subtitle = " · ".join(part for part in (tags.get("Event"), tags.get("Date"), tags.get("Round") and
                                            f"round {tags['Round']}", result_line(record)) if part)
    return page("replay", f"{name}: {players}", subtitle, {"film": data, "tags": dict(tags),
                                                           "level": level})
