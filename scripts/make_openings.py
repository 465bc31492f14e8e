"""Make the shipped opening files (bots/openings/GAME.txt) of the games without chance.

    python scripts/make_openings.py [--per-game 12] [--games 4]

For each game, candidate openings are drawn at random (Treeblox: both first leaves and
Dark's next placement; Blox: one brick each; BTT: the null, the root and one pyramid
each), and each candidate is played out --games times in self-play by the shipped bot
of the game (Treeblox and Blox: the search bot at 50 ms a move, whose depth depends on
timing, so its games differ; BTT: the greedy bot, after one random ply that differs
from game to game, since greedy is deterministic). An opening is kept when both seats
win at least once: it does not decide the game. The files say how they were made."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena import games  # noqa: E402
from arena.games import CHANCE  # noqa: E402
from arena.games.base import State  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "bots" / "openings"
PLIES = {"treeblox": 3, "blox": 2, "btt": 4}
MOVE_S = 0.05


def _policy(game_id: str) -> Callable[[State, random.Random], str]:
    if game_id == "treeblox":
        from bots.treeblox_search import choose_action as treeblox_search

        return lambda state, rng: treeblox_search(state, MOVE_S)[0]  # type: ignore[arg-type]
    if game_id == "blox":
        from bots.blox_search import choose_action as blox_search

        return lambda state, rng: blox_search(state, rng, MOVE_S)[0]  # type: ignore[arg-type]
    from bots.btt_greedy import choose_action as btt_greedy

    return lambda state, rng: btt_greedy(state)  # type: ignore[arg-type]


def _winner(game_id: str, opening: list[str], seed: int) -> int | None:
    """The seat that wins a self-play game from `opening` (None for a draw)."""
    game = games.get(game_id)
    state = game.new_state(2, game.resolve_options({}))
    for action in opening:
        state.apply(action)
    rng = random.Random(seed)
    policy = _policy(game_id)
    if game_id == "btt" and not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))  # greedy is deterministic: one random ply tells games apart
    while not state.is_terminal():
        seat = state.current()
        action = state.sample_chance(rng) if seat == CHANCE else policy(state, rng)
        state.apply(action)
    ranks = state.result().ranks
    return None if ranks[0] == ranks[1] else ranks.index(1)


def _candidate(game_id: str, rng: random.Random) -> list[str]:
    game = games.get(game_id)
    state = game.new_state(2, game.resolve_options({}))
    actions = []
    for _ in range(PLIES[game_id]):
        legal = state.legal_actions()
        if game_id == "blox":  # bricks on the board, not hanging off its edge
            legal = [a for a in legal if a != "pass" and all(0 <= int(v) < 14 for v in a[1:].split(",")[:2])]
        actions.append(rng.choice(legal))
        state.apply(actions[-1])
    return actions


def make(game_id: str, per_game: int, games: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    kept: list[str] = []
    tried = 0
    while len(kept) < per_game and tried < per_game * 20:
        tried += 1
        opening = _candidate(game_id, rng)
        winners = {_winner(game_id, opening, seed * 1000 + k) for k in range(games)}
        if {0, 1} <= winners:
            kept.append(" ".join(opening))
            print(f"{game_id}: kept {len(kept)}/{per_game} after {tried} tried: {kept[-1]}", flush=True)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-game", type=int, default=12)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for game_id in ("btt", "treeblox", "blox"):
        kept = make(game_id, args.per_game, args.games, args.seed)
        header = (f"# Balanced openings of {game_id} (2 seats), made by scripts/make_openings.py --per-game "
                  f"{args.per_game} --games {args.games} --seed {args.seed}:\n# random openings of "
                  f"{PLIES[game_id]} plies, kept when both seats won at least once in {args.games} self-play games "
                  "of the shipped bot (docs/openings.md).\n")
        (OUT / f"{game_id}.txt").write_text(header + "".join(f"game={game_id} seats=2 {line}\n" for line in kept))
        print(f"wrote {OUT / f'{game_id}.txt'}")


if __name__ == "__main__":
    main()
