"""The arena: a referee for bots playing tree-growing strategy games, and a library to
play them from Python (docs/library.md).

    import arena
    result = arena.play("btt", ["greedy", "random"], games=2, time="100ms")

Names load on first use, so a bot that imports only the rules (`arena.games`) does not
pay for the referee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_names
from arena.version import __version__

_WHERE = {
    "play": "arena.session.api",
    "play_async": "arena.session.api",
    "match": "arena.session.api",
    "match_async": "arena.session.api",
    "Bot": "arena.session.simplebot",
    "SimpleBot": "arena.session.simplebot",
    "Answer": "arena.referee.decision",
    "MatchResult": "arena.referee.match",
    "PairedResult": "arena.session.paired",
    "GameOutcome": "arena.referee.outcome",
    "SeatFault": "arena.process.faults",
    "BotFault": "arena.process.faults",
    "Termination": "arena.termination",
    "GameRecord": "arena.records.record",
    "Ply": "arena.records.record",
    "BotSpec": "arena.process.spec",
    "Limits": "arena.process.spec",
    "TimeControl": "arena.timecontrol",
    "Timing": "arena.referee.player",
    "SprtParameters": "arena.stats.sprt",
    "ArenaError": "arena.errors",
    "SetupError": "arena.session.setup",
    "Game": "arena.games.base",
    "State": "arena.games.base",
    "GameError": "arena.games.base",
    "IllegalAction": "arena.games.base",
}
"""Each public name and the module that defines it."""

__all__ = [
    "__version__",
    # play from Python
    "play", "play_async", "match", "match_async", "Bot", "SimpleBot",
    # what comes back
    "MatchResult", "PairedResult", "GameOutcome", "SeatFault", "Termination", "GameRecord", "Ply", "Answer",
    # what goes in
    "BotSpec", "Limits", "TimeControl", "Timing", "SprtParameters", "Game", "State",
    # what can go wrong
    "ArenaError", "SetupError", "BotFault", "GameError", "IllegalAction",
]

if TYPE_CHECKING:
    from arena.errors import ArenaError
    from arena.games.base import Game, GameError, IllegalAction, State
    from arena.process.faults import BotFault, SeatFault
    from arena.process.spec import BotSpec, Limits
    from arena.records.record import GameRecord, Ply
    from arena.referee.decision import Answer
    from arena.referee.match import MatchResult
    from arena.referee.outcome import GameOutcome
    from arena.referee.player import Timing
    from arena.session.api import match, match_async, play, play_async
    from arena.session.paired import PairedResult
    from arena.session.setup import SetupError
    from arena.session.simplebot import Bot, SimpleBot
    from arena.stats.sprt import SprtParameters
    from arena.termination import Termination
    from arena.timecontrol import TimeControl


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
