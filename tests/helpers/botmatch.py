"""The one way tests play a match through the real referee (`run_match`: a test names
the game, the bots, the time control and whichever other MatchConfig fields matter to
it), and `match` for the bot tests: seeded bots, a per-move time limit on the CPU basis
(the bots' play and faults are the point, not the machine's load: the bots plan on the
clock they are charged), every game's record at hand for verification."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TypedDict, Unpack

import trio
import trio.testing

from arena import games
from arena.games.base import Game
from arena.process.botnames import resolve_bot
from arena.process.channel import Launcher
from arena.process.spec import BotSpec, Limits, timed
from arena.referee.match import MatchConfig, MatchResult, PlannedGame, play_match
from arena.referee.openings import Opening
from arena.referee.player import Timing
from arena.referee.seeds import Deals, derived_bot_seed
from arena.timecontrol import Basis, TimeControl
from tests.helpers.exclusive import apart_from_stalls
from tests.helpers.processes import ProcessGroups


class Settings(TypedDict, total=False):
    """MatchConfig's fields beyond the game, its options and the time control: a test
    names the ones it cares about and every other keeps MatchConfig's default."""

    seed: int
    games: int
    event: str
    log_dir: Path | None
    limits: Limits
    timing: Timing
    plan: tuple[PlannedGame, ...] | None
    launcher: Launcher
    chance_key: bytes
    hidden: tuple[Path, ...]
    log_protocol: bool
    openings: tuple[Opening, ...]
    random_opening: int
    features: tuple[str, ...]
    deals: Deals
    prepared: bool


@dataclass
class PlayedMatch(MatchResult):
    """A match's result with what tests check beside it: every process group its bots
    ran in, read from the launcher (a result keeps no such thing)."""

    pgids: list[int] = field(default_factory=list)


def run_match(game: str | Game | MatchConfig, specs: list[BotSpec], control: TimeControl | None, *,
              options: dict[str, str] | None = None, mock_clock: bool = False,
              before_game: Callable[[int], Awaitable[None]] | None = None,
              **settings: Unpack[Settings]) -> PlayedMatch:
    """Play the match that `settings` describe between `specs` (one per seat), each under
    its own time control, else `control` (None: the specs go to the referee as they are,
    so a test can seat a bot with none). `game` may be a MatchConfig made elsewhere (a
    session's prepared match): it plays as made, but for the settings given. With
    `mock_clock`, on Trio's MockClock jumping ahead whenever every task sleeps: fake bots
    whose thinking is sleeping take no real time, and their times are exact."""
    groups = ProcessGroups()
    if isinstance(game, MatchConfig):
        base = game
    else:
        base = MatchConfig(games.get(game) if isinstance(game, str) else game, {})
    settings["launcher"] = groups.launcher(settings.get("launcher", base.launcher))
    config = replace(base, **settings) if options is None else replace(base, options=options, **settings)
    seated = specs if control is None else timed(specs, control)

    async def main() -> MatchResult:
        return await play_match(config, seated, before_game=before_game)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0) if mock_clock else None)
    return PlayedMatch(**{item.name: getattr(result, item.name) for item in fields(result)}, pgids=groups.pgids)


def match(game_id: str, bots: list[str], games: int, per_move: float, seed: int = 1,
          options: dict[str, str] | None = None, basis: Basis = "cpu") -> MatchResult:
    """Play `games` games between `bots` (short names or commands), seats rotating."""
    specs = [resolve_bot(bot, game_id) for bot in bots]
    for index, spec in enumerate(specs):
        spec.bot_seed = derived_bot_seed(str(seed).encode(), index)
    control = TimeControl(per_move_s=per_move, basis=basis)
    with apart_from_stalls():  # the bot tests assert no fault at a few hundred ms a move
        return run_match(game_id, specs, control, options=options, seed=seed, games=games)
