"""The games a league is playing right now, ply by ply: what the live page shows
beside the stored results. The runner tells it when a game begins, each ply, and when
the game ends; it keeps only the actions (cheap: a page redraws a game from them when
asked), and, so that `arena serve` in another process can show them too, writes them
to `live.json` in the league's folder a few times a second at most (atomically: a
reader never sees half a file). The folder is hidden from sandboxed bots."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.records.record import Ply

LIVE_FILE = "live.json"
WRITE_EVERY_S = 0.25
HEARTBEAT_S = 2.0
"""The file is rewritten this often even when nothing moved, so a reader can tell a
league that thinks from one that stopped."""


@dataclass
class GameUnderWay:
    """One game being played: enough to replay it to its current ply."""

    index: int
    round: str
    names: list[str]
    seats: int
    options: dict[str, str]
    actions: list[str] = field(default_factory=list)
    chance: list[bool] = field(default_factory=list)


class GamesUnderWay:
    """The league's games in flight, with a version that changes with every ply."""

    def __init__(self, game_id: str, folder: Path | None) -> None:
        self.game_id = game_id
        self.path = None if folder is None else folder / LIVE_FILE
        self.games: dict[int, GameUnderWay] = {}
        self.version = 0
        self._written = -1
        self.changed = trio.Event()

    def begin(self, index: int, round_label: str, names: list[str], options: dict[str, str]) -> None:
        self.games[index] = GameUnderWay(index, round_label, list(names), len(names), dict(options))
        self._bump()

    def ply(self, index: int, ply: Ply) -> None:
        game = self.games.get(index)
        if game is not None:
            game.actions.append(ply.action)
            game.chance.append(ply.chance)
            self._bump()

    def end(self, index: int) -> None:
        if self.games.pop(index, None) is not None:
            self._bump()

    def _bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = trio.Event()

    def snapshot(self) -> dict[str, Any]:
        return {"version": self.version, "game": self.game_id, "written": time.time(),
                "games": [asdict(g) for g in sorted(self.games.values(), key=lambda g: g.index)]}

    async def keep_file(self) -> None:
        """Write `live.json` whenever the games changed, at most every WRITE_EVERY_S;
        remove it when the league stops (nothing is under way then)."""
        if self.path is None:
            return
        last = 0.0
        try:
            while True:
                if self._written != self.version or time.monotonic() - last >= HEARTBEAT_S:
                    self._write()
                    last = time.monotonic()
                await trio.sleep(WRITE_EVERY_S)
        finally:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                pass

    def _write(self) -> None:
        assert self.path is not None
        temporary = self.path.with_name(f".{LIVE_FILE}.{os.getpid()}")
        try:
            temporary.write_text(json.dumps(self.snapshot(), separators=(",", ":")), encoding="utf-8")
            os.replace(temporary, self.path)
            self._written = self.version
        except OSError:
            pass  # the page is a courtesy: a full disk must not stop the league


def read_live_file(folder: Path, stale_after_s: float = 10.0) -> list[GameUnderWay]:
    """The games under way as another process wrote them; none when the file is
    missing, unreadable or old (its league is no longer running)."""
    try:
        data = json.loads((folder / LIVE_FILE).read_text(encoding="utf-8"))
        if time.time() - float(data.get("written", 0)) > stale_after_s:
            return []
        return [GameUnderWay(**g) for g in data.get("games", [])]
    except (OSError, ValueError, TypeError):
        return []
