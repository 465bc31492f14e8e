"""A search The Tree bot: `python bots/the_tree_search.py`.

Determinised Monte-Carlo search. The bot cannot see the other hands or the supply, so
every playout starts from a guess: the tiles it has not seen are dealt into the other
hands and the supply with the sizes it was told, consistent with what the events showed
(a seat that drew or passed held no tile that fitted the tree at that moment, apart from
tiles it has drawn since). It plays one candidate placement there and finishes the game
with every seat on a quick policy (an extra turn when one is offered, else shed the
hardest tile). UCB1 picks the candidate of the next playout until half the time for the
move is spent (with a third, its lead over greedy was smaller); the candidate with the
best mean result is played. A result is 1 for beating a seat, 0.3 for sharing its rank,
0 for losing to it, averaged over the other seats (solo: 1 for emptying the hand).
"""

from __future__ import annotations

import math
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import DRAW, PASS, TILE_BY_NAME, TILES, Move, Tile, move_name, parse_placement, tile_of
from bots.the_tree_greedy import RARITY, fit_count, spot_masks
from bots.the_tree_greedy import choose_move as greedy_move
from bots.tracking import reseed, seed_from_environment, think_time
from protocol.bot import Choice, clock, run

EXPLORATION = 0.5
SHARED = 0.3
"""Worth of sharing a rank with a seat (a blocked end), between losing (0) and beating it (1)."""
SAMPLE_TRIES = 20


@dataclass
class Block:
    """A seat had no placement for any tile in its hand: the tiles that fitted the tree
    then, and how many tiles it has drawn since (the draw at that moment included)."""

    seat: int
    fitting: frozenset[Tile]
    drawn_since: int = 0


@dataclass
class Knowledge:
    """What the events told this seat beyond the observation: the blocks of other seats."""

    seat: int = 0
    seats: int = 1
    placed: list[Move] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def start(self, seat: int, seats: int) -> None:
        self.seat, self.seats = seat, seats
        self.placed = []
        self.blocks = []

    def event(self, actor: int, action: str) -> None:
        if actor < 0 or action.startswith("deal"):
            return
        if action in (DRAW, PASS) or action.startswith(DRAW + " "):
            if actor != self.seat and self.placed:
                self.blocks.append(Block(actor, fitting_tiles(self.placed, self.seats)))
            if action.startswith(DRAW):
                for block in self.blocks:
                    if block.seat == actor:
                        block.drawn_since += 1
            return
        move = parse_placement(action)
        if move is not None:
            self.placed.append(move)


def fitting_tiles(placed: list[Move], seats: int) -> frozenset[Tile]:
    """Every tile that has a placement on this tree."""
    tree = TheTreeState.from_position(placed, [[] for _ in range(seats)])
    masks = spot_masks(tree)
    return frozenset(t for t in TILES if fit_count(t, masks))


def determinise(observation: dict[str, Any], knowledge: Knowledge, rng: random.Random) -> TheTreeState:
    """A full position: the unseen tiles dealt so that every other hand fits what its
    blocks showed (tile by tile; after a few failed tries, ignoring the blocks)."""
    seat = int(observation["seat"])
    sizes = [int(n) for n in observation["hand_sizes"]]
    hands: dict[int, list[Tile]] = {}
    if knowledge.blocks:
        own = {TILE_BY_NAME[n] for n in observation["hand"]}
        placed = {tile_of(m[0], m[1]) for m in (parse_placement(str(t)) for t in observation["tiles"]) if m}
        pool = [t for t in TILES if t not in own and t not in placed]
        for _ in range(SAMPLE_TRIES):
            hands = _constrained_hands(pool, sizes, seat, knowledge.blocks, rng)
            if hands:
                break
    return TheTreeState.from_observation(observation, rng, hands)


def _constrained_hands(pool: list[Tile], sizes: list[int], seat: int, blocks: list[Block],
                       rng: random.Random) -> dict[int, list[Tile]]:
    """Other seats' hands dealt from the shuffled pool, each tile skipped when it would
    put more fitting tiles in a hand than its blocks allow; {} when a hand stays short."""
    rng.shuffle(pool)
    taken: set[Tile] = set()
    hands: dict[int, list[Tile]] = {}
    for other, size in enumerate(sizes):
        if other == seat or size == 0:
            continue
        mine = [b for b in blocks if b.seat == other]
        room = [b.drawn_since for b in mine]
        hand: list[Tile] = []
        for tile in pool:
            if len(hand) == size:
                break
            if tile in taken:
                continue
            hits = [k for k, b in enumerate(mine) if tile in b.fitting]
            if any(room[k] == 0 for k in hits):
                continue
            for k in hits:
                room[k] -= 1
            hand.append(tile)
        if len(hand) < size:
            return {}
        taken.update(hand)
        hands[other] = hand
    return hands


def playout_move(state: TheTreeState, rng: random.Random) -> Move | None:
    """The quick policy: an extra turn if offered, else the hardest tile, ties at random."""
    moves = state.moves()
    if not moves:
        return None
    best, best_key = moves[0], -1.0
    for move in moves:
        key = RARITY[tile_of(move[0], move[1])] + rng.random() * 0.3
        if state.extra_turn(move[2], move[3]):
            key += 2.0
        if key > best_key:
            best, best_key = move, key
    return best


def reward(state: TheTreeState, seat: int) -> float:
    ranks = state.result().ranks
    if len(ranks) == 1:
        return 1.0 if ranks[0] == 1 else 0.0
    mine = ranks[seat]
    total = sum(1.0 if mine < r else SHARED if mine == r else 0.0 for k, r in enumerate(ranks) if k != seat)
    return total / (len(ranks) - 1)


def search(observation: dict[str, Any], knowledge: Knowledge, seconds: float, rng: random.Random,
           playouts: int | None = None) -> tuple[Move | None, dict[str, Any]]:
    """The best placement found in `seconds` (or exactly `playouts` playouts)."""
    root = TheTreeState.from_observation(observation, rng)
    seat = root.current()
    moves = root.moves()
    if len(moves) <= 1:
        return (moves[0] if moves else None), {}
    # The greedy choice is tried first and wins ties: a sound default when time is short.
    first = greedy_move(root)
    moves.sort(key=lambda m: m != first)
    n = len(moves)
    totals = [0.0] * n
    counts = [0] * n
    deadline = clock() + seconds
    done = 0
    while (done < playouts) if playouts is not None else (done < n or clock() < deadline):
        if done < n:
            pick = done
        else:
            log_n = math.log(done)
            pick = max(range(n), key=lambda k: totals[k] / counts[k] + EXPLORATION * math.sqrt(log_n / counts[k]))
        state = determinise(observation, knowledge, rng)
        state.play(moves[pick])
        while not state.over:
            state.play(playout_move(state, rng))
        totals[pick] += reward(state, seat)
        counts[pick] += 1
        done += 1
        if playouts is None and done >= n and clock() >= deadline:
            break
    best = max(range(n), key=lambda k: (totals[k] / counts[k], counts[k], k == 0))
    return moves[best], {"score": round(totals[best] / counts[best], 3), "nodes": done}


def main() -> None:
    rng = random.Random(seed_from_environment())
    knowledge = Knowledge()

    def on_start(message: dict[str, Any]) -> None:
        knowledge.start(int(message["seat"]), int(message["seats"]))
        reseed(rng, message)

    def choose(request: dict[str, Any], start: dict[str, Any]) -> Choice:
        for event in request.get("events") or []:
            knowledge.event(int(event["seat"]), str(event["action"]))
        legal = list(request["legal"])
        if len(legal) == 1:
            return str(legal[0])
        move, info = search(request["observation"], knowledge, think_time(request, fraction=0.5), rng)
        action = move_name(move) if move is not None else legal[0]
        if action not in legal:  # cannot happen while the engine and the referee agree
            return legal[0], {"comment": "engine disagreed with the referee"}
        return action, info

    run(choose, name="the-tree-search", version="2", on_start=on_start)


if __name__ == "__main__":
    main()
