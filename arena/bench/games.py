"""`arena bench` for the rules engines: full random games per second on one core, and
the time to list the legal actions in a mid-game position (the game's `midgame_ply`)
and to clone it (what a search bot pays per node), for every registered game."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from arena.games import CHANCE, GAMES, TERMINAL, Game, State


def bench_seats(game: Game) -> int:
    """The seat count of the engine figures: the game's fewest, at least 2."""
    return max(2, game.min_seats)


@dataclass(frozen=True)
class EngineFigures:
    games_per_s: float
    decisions_per_s: float
    legal_median_ms: float
    legal_count: int
    clone_median_us: float


def random_game(game: Game, seats: int, rng: random.Random) -> int:
    """Play one uniformly random game with the referee's engine; decisions played."""
    state = game.new_state(seats, {})
    decisions = 0
    while (current := state.current()) != TERMINAL:
        if current == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
        decisions += 1
    return decisions


def midgame_state(game: Game, seats: int, seed: int) -> tuple[State, str] | None:
    """A random position `game.midgame_ply` placements in (passes and chance not counted),
    as the state before its last action and that action: applying it gives a state
    whose legal actions nobody has listed yet."""
    rng = random.Random(seed)
    state = game.new_state(seats, {})
    placed = 0
    target = game.midgame_ply
    while state.current() != TERMINAL:
        if state.current() == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        action = rng.choice(state.legal_actions())
        if placed + 1 == target and action != "pass":
            return state, action
        state.apply(action)
        placed += action != "pass"
    return None


def engine_figures(game: Game, budget_s: float = 2.0) -> EngineFigures:
    seats = bench_seats(game)
    rng = random.Random(1)
    games = decisions = 0
    begin = time.process_time()
    while time.process_time() - begin < budget_s or games < 3:
        decisions += random_game(game, seats, rng)
        games += 1
    elapsed = time.process_time() - begin
    timings: list[float] = []
    clones: list[float] = []
    count = 0
    for seed in range(40):
        found = midgame_state(game, seats, seed)
        if found is None:
            continue
        before, action = found
        state = before.clone()
        state.apply(action)
        start = time.perf_counter()
        count = len(state.legal_actions())
        timings.append(time.perf_counter() - start)
        clones.append(clone_seconds(state))
    legal_ms = statistics.median(timings) * 1000 if timings else float("nan")
    clone_us = statistics.median(clones) * 1e6 if clones else float("nan")
    return EngineFigures(games / elapsed, decisions / elapsed, legal_ms, count, clone_us)


def clone_seconds(state: State, copies: int = 200) -> float:
    """The time of one clone of `state` (a search bot's cost per node): the best of
    five runs of `copies` clones."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(copies):
            state.clone()
        best = min(best, (time.perf_counter() - start) / copies)
    return best


def engine_table(console: Console, budget_s: float = 2.0) -> Table:
    table = Table(title="Rules engines (one core, uniformly random play)")
    for column in ("game", "seats", "random games/s", "decisions/s", "mid-game position", "legal actions (median)",
                   "clone (median)"):
        table.add_column(column, justify="right")
    for game in GAMES.values():
        figures = engine_figures(game, budget_s)
        seats = bench_seats(game)
        table.add_row(game.id, str(seats), f"{figures.games_per_s:,.0f}", f"{figures.decisions_per_s:,.0f}",
                      f"ply {game.midgame_ply}, {figures.legal_count} legal",
                      f"{figures.legal_median_ms:.3f} ms", f"{figures.clone_median_us:.1f} us")
    return table
