"""A match between shipped bots through the real referee, for the bot tests: seeded
bots, a per-move time limit on the CPU basis (the bots' play and faults are the point,
not the machine's load: the bots plan on the clock they are charged), every game's
record at hand for verification."""

from __future__ import annotations

import trio

from arena.games import get_game
from arena.process.botnames import resolve_bot
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.seeds import derived_bot_seed
from arena.timecontrol import Basis, TimeControl
from tests.helpers.exclusive import apart_from_stalls


def match(game_id: str, bots: list[str], games: int, per_move: float, seed: int = 1,
          options: dict[str, str] | None = None, basis: Basis = "cpu") -> MatchResult:
    """Play `games` games between `bots` (short names or commands), seats rotating."""
    specs = [resolve_bot(bot, game_id) for bot in bots]
    for index, spec in enumerate(specs):
        spec.env["ARENA_BOT_SEED"] = str(derived_bot_seed(str(seed).encode(), index))
    control = TimeControl(per_move_s=per_move, basis=basis)
    config = MatchConfig(get_game(game_id), options or {}, control, seed=seed, games=games)
    with apart_from_stalls():  # the bot tests assert no fault at a few hundred ms a move
        return trio.run(play_match, config, specs)
