"""How well can any bot do against random at The Tree? An experiment, not a bot:
`python bots/the_tree_ceiling.py --sight hand --games 200`.

It plays 2-seat games in-process against a uniformly random opponent with a Monte-Carlo
player that knows its opponent is random (each candidate placement is scored by
playouts in which the opponent plays at random and the player plays search's quick
policy). What the player may see is the variable:
- `none`: what the rules allow; the unseen tiles are dealt at random for each playout
  (without the search bot's inference from draws, which `hand` bounds);
- `hand`: also the opponent's hand (the most any inference could learn); the supply's
  order is shuffled for each playout;
- `all`: also the supply's order, which no seat can learn.
The same seeds give the same deals at each sight, so the rows compare like with like.
docs/games/the-tree.md quotes the figures.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import Move
from bots.the_tree_search import playout_move, reward

SIGHTS = ("none", "hand", "all")


def random_move(state: TheTreeState, rng: random.Random) -> Move | None:
    moves = state.moves()
    return rng.choice(moves) if moves else None


def playout(state: TheTreeState, seat: int, rng: random.Random) -> float:
    """Finish the game (the seat on the quick policy, its opponent at random) and score
    it as the search bot does."""
    while not state.over:
        state.play(playout_move(state, rng) if state.current() == seat else random_move(state, rng))
    return reward(state, seat)


def guesses(state: TheTreeState, sight: str, count: int, rng: random.Random) -> list[TheTreeState]:
    """The positions the player may believe in, one per playout."""
    if sight == "all":
        return [state] * count
    if sight == "none":
        observation = state.observation(state.current())
        return [TheTreeState.from_observation(observation, rng) for _ in range(count)]
    result = []
    for _ in range(count):
        guess = state.clone()
        rng.shuffle(guess.supply)
        result.append(guess)
    return result


def best_move(state: TheTreeState, sight: str, playouts: int, rng: random.Random) -> Move | None:
    """The placement with the best playout mean, every candidate on the same guesses."""
    moves = state.moves()
    if len(moves) <= 1:
        return moves[0] if moves else None
    seat = state.current()
    positions = guesses(state, sight, playouts, rng)
    best, best_total = moves[0], -1.0
    for move in moves:
        total = 0.0
        for position in positions:
            child = position.clone()
            child.play(move)
            total += playout(child, seat, rng)
        if total > best_total:
            best, best_total = move, total
    return best


def play_game(seed: int, seat: int, sight: str, playouts: int) -> int:
    """One game from the deal of `seed` with the player at `seat`: 0 win, 1 draw, 2 loss."""
    rng = random.Random(seed)
    state = TheTreeState(2)
    state.apply(state.sample_chance(rng))
    while not state.over:
        if state.current() == seat:
            state.play(best_move(state, sight, playouts, rng))
        else:
            state.play(random_move(state, rng))
    ranks = state.result().ranks
    return 0 if ranks[seat] < ranks[1 - seat] else 2 if ranks[seat] > ranks[1 - seat] else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sight", choices=SIGHTS, default="none", help="what the player may see")
    parser.add_argument("--games", type=int, default=200, help="games, colours alternating")
    parser.add_argument("--playouts", type=int, default=100, help="playouts per candidate placement")
    parser.add_argument("--seed", type=int, default=5000, help="seed of the first deal")
    args = parser.parse_args()
    counts = [0, 0, 0]
    for game in range(args.games):
        counts[play_game(args.seed + game, game % 2, args.sight, args.playouts)] += 1
    wins, draws, losses = counts
    print(f"sight {args.sight}: {wins} wins, {draws} draws, {losses} losses in {args.games} games "
          f"({wins / args.games:.0%} won; {wins / max(wins + losses, 1):.0%} of decided games)")


if __name__ == "__main__":
    main()
