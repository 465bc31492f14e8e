"""The arena: a referee for bots playing tree-growing strategy games, and a library to
play them from Python (docs/library.md).

    import arena
    result = arena.play("btt", ["greedy", "random"], games=2, time="100ms")

Names load on first use, so a bot that imports only the rules (`arena.games`) does not
pay for the referee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import lazy_names

if TYPE_CHECKING:  # The public names, written once: arena.lazy reads this block (docs/library.md).
    from arena.errors import ArenaError as ArenaError
    from arena.games.base import Game as Game
    from arena.games.base import GameError as GameError
    from arena.games.base import IllegalAction as IllegalAction
    from arena.games.base import State as State
    from arena.process.faults import BotFault as BotFault
    from arena.process.faults import SeatFault as SeatFault
    from arena.process.spec import BotSpec as BotSpec
    from arena.process.spec import Limits as Limits
    from arena.records.record import GameRecord as GameRecord
    from arena.records.record import Ply as Ply
    from arena.referee.decision import Answer as Answer
    from arena.referee.match import MatchResult as MatchResult
    from arena.referee.outcome import GameOutcome as GameOutcome
    from arena.referee.player import Timing as Timing
    from arena.session.api import match as match
    from arena.session.api import match_async as match_async
    from arena.session.api import play as play
    from arena.session.api import play_async as play_async
    from arena.session.inprocess import Clock as Clock
    from arena.session.inprocess import PythonBot as PythonBot
    from arena.session.paired import PairedResult as PairedResult
    from arena.session.setup import SetupError as SetupError
    from arena.session.simplebot import Bot as Bot
    from arena.session.simplebot import SimpleBot as SimpleBot
    from arena.stats.sprt import SprtDecision as SprtDecision
    from arena.stats.sprt import SprtParameters as SprtParameters
    from arena.termination import Termination as Termination
    from arena.timecontrol import Time as Time
    from arena.timecontrol import TimeControl as TimeControl
    from arena.version import __version__ as __version__

__getattr__, __dir__, __all__ = lazy_names(__name__)
