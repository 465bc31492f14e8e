"""The arena: a referee for bots playing tree-growing strategy games, and a library to
play them from Python (docs/library.md).

    import arena
    result = arena.play("btt", ["greedy", "random"], games=2, time="100ms")

Names load on first use, so a bot that imports only the rules (`arena.games`) does not
pay for the referee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_names

__version__ = "0.1.0"

_WHERE = {
    "play": "arena.api",
    "play_async": "arena.api",
    "match": "arena.api",
    "match_async": "arena.api",
    "Bot": "arena.simplebot",
    "SimpleBot": "arena.simplebot",
    "Answer": "arena.referee.decision",
    "MatchResult": "arena.referee.match",
    "PairedResult": "arena.paired_match",
    "GameOutcome": "arena.referee.outcome",
    "SeatFault": "arena.referee.faults",
    "BotFault": "arena.referee.faults",
    "Termination": "arena.termination",
    "GameRecord": "arena.records.record",
    "Ply": "arena.records.record",
    "BotSpec": "arena.referee.spec",
    "Limits": "arena.referee.spec",
    "TimeControl": "arena.referee.timecontrol",
    "Timing": "arena.referee.player",
    "SprtParameters": "arena.stats.sprt",
    "ArenaError": "arena.errors",
    "SetupError": "arena.match_setup",
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
    from arena.api import match, match_async, play, play_async
    from arena.errors import ArenaError
    from arena.games.base import Game, GameError, IllegalAction, State
    from arena.match_setup import SetupError
    from arena.paired_match import PairedResult
    from arena.records.record import GameRecord, Ply
    from arena.referee.decision import Answer
    from arena.referee.faults import BotFault, SeatFault
    from arena.referee.match import MatchResult
    from arena.referee.outcome import GameOutcome
    from arena.referee.player import Timing
    from arena.referee.spec import BotSpec, Limits
    from arena.referee.timecontrol import TimeControl
    from arena.simplebot import Bot, SimpleBot
    from arena.stats.sprt import SprtParameters
    from arena.termination import Termination


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
