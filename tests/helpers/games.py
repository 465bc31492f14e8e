"""Games played for tests: seeded random games recorded as the referee records them."""

from __future__ import annotations

import random

from arena import games
from arena.games import CHANCE, TERMINAL
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.referee.outcome import GameSetup, game_tags
from arena.termination import Termination
from arena.timecontrol import TimeControl


def random_game_record(game_id: str, seats: int, seed: int, options: dict[str, str]) -> GameRecord:
    """One game of uniformly random actions, recorded as the referee records it."""
    game = games.get(game_id)
    options = game.resolve_options(options)
    state = game.new_state(seats, options)
    rng = random.Random(seed)
    actors: list[int] = []
    actions: list[str] = []
    while (actor := state.current()) != TERMINAL:
        action = state.sample_chance(rng) if actor == CHANCE else rng.choice(state.legal_actions())
        state.apply(action)
        actors.append(actor)
        actions.append(action)
    result = state.result()
    plies = [Ply(turn, action, actor == CHANCE) for turn, action, actor in zip(turn_numbers(actors), actions, actors)]
    setup = GameSetup(game, options, (TimeControl(),) * seats, seed)
    names = [f"random-{s}" for s in range(seats)]
    tags = game_tags(setup, names, result.ranks, result.scores, Termination.NORMAL, "", len(plies))
    return GameRecord(tags=tags, plies=plies)
