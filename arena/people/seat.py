"""A person's seat: the protocol spoken for a person, and the game kept as the person
sees it. `serve_person` answers hello, follows each game from its start message and
the events of each request, and asks the `Person` (terminal or browser) for each
action. With hidden information the position is the game's guess from the seat's
observation (`Game.determinize`: The Tree's unseen tiles dealt at random), and what the
seat cannot see is never drawn."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Protocol

from arena import games
from arena.games.base import State
from arena.process.channel import FakeBotIO
from arena.render.svg import action_spots


@dataclass
class SeatView:
    """What a person sees at a decision (or at the end of a game)."""

    game_id: str
    seat: int
    names: list[str]
    state: State
    legal: list[str]
    spots: dict[str, str]
    """Where on the picture each legal action is played, where it has one place."""
    last: str | None
    last_actor: int | None
    clock: dict[str, Any]
    """The request's clock: move_ms (this decision's limit), remaining_ms, increment_ms."""
    result: dict[str, Any] | None = None
    """The end message's result, once the game is over."""


class Person(Protocol):
    """A person's way of seeing the game and choosing actions."""

    name: str

    async def choose(self, view: SeatView) -> str:
        """The action the person picks (one of `view.legal`)."""

    async def game_over(self, view: SeatView) -> None:
        """Show the end of a game."""


class _Game:
    """One game as a seat follows it."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.game = games.get(str(start["game"]))
        self.seat = int(start["seat"])
        self.names = [str(n) for n in start["players"]]
        self.state = self.game.new_state(int(start["seats"]), dict(start.get("options") or {}))
        self.applied = 0
        self.last: str | None = None
        self.last_actor: int | None = None
        self.rng = random.Random(0)

    def follow(self, request: dict[str, Any]) -> None:
        """Apply the events not yet seen (a perfect-information game), or rebuild the
        position from the observation (hidden information)."""
        for event in request.get("events") or []:
            if int(event["ply"]) > self.applied:
                self.applied = int(event["ply"])
                self.last, self.last_actor = str(event["action"]), int(event["seat"])
                if not self.game.has_hidden_information:
                    self.state.apply(self.last)
        if self.game.has_hidden_information and request.get("observation") is not None:
            self.state = self.game.determinize(request["observation"], self.rng)

    def view(self, request: dict[str, Any] | None, result: dict[str, Any] | None = None) -> SeatView:
        legal = [str(a) for a in (request or {}).get("legal") or []]
        return SeatView(self.game.id, self.seat, self.names, self.state, legal,
                        action_spots(self.game.id, self.state, legal), self.last, self.last_actor,
                        dict((request or {}).get("clock") or {}), result)


async def serve_person(io: FakeBotIO, person: Person) -> None:
    """Speak the protocol for `person` until quit (a FakeBot for MemoryChannel)."""
    game: _Game | None = None
    while (line := await io.read_line()) is not None:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            await _send(io, {"type": "ready", "name": person.name, "legal": True, "observation": True})
        elif kind == "start":
            game = _Game(message)
        elif kind == "request" and game is not None:
            game.follow(message)
            action = await person.choose(game.view(message))
            await _send(io, {"type": "action", "action": action})
        elif kind == "end" and game is not None:
            game.follow({"events": message.get("events")})
            await person.game_over(game.view(None, {**dict(message.get("result") or {}),
                                                    "termination": message.get("termination")}))
        elif kind == "quit":
            return


async def _send(io: FakeBotIO, message: dict[str, Any]) -> None:
    await io.write(json.dumps(message).encode() + b"\n")
