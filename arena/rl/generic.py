"""The codec any game gets without one of its own: its numbering is the game's
`action_space` (and `chance_space`, with `State.chance_outcomes`, for chance), and its
observation is the numbers of the seat's JSON observation, in a fixed order.

A hand-made codec (arena/rl/btt.py...) designs both from the rules; this one only
reads what the game declares, so it fits games whose observation keeps one shape (the
same keys, lists of the same lengths) through a game: each top-level key is a piece,
holding the numbers found under it (true and false as 1 and 0, null as -1); text is
left out. An observation of another shape is an RLError naming the key.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games import Game, GameError, State
from arena.rl.spec import ChanceModel, Codec, Path, Pieces, RLError, Tensor

NULL = -1.0
"""What a null (a seat to move once the game is over) counts as."""
MAX_DECISIONS = 10_000
"""The bound on a game's decisions the generic codec gives OpenSpiel (a game that is
longer is refused there)."""


def numbers(value: Any) -> list[float]:
    """The numbers in a JSON value, depth first, keys in sorted order (text left out)."""
    if isinstance(value, bool):
        return [float(value)]
    if isinstance(value, int | float):
        return [float(value)]
    if value is None:
        return [NULL]
    if isinstance(value, Mapping):
        return [n for key in sorted(value) for n in numbers(value[key])]
    if isinstance(value, list | tuple):
        return [n for item in value for n in numbers(item)]
    return []


def layout(observation: Mapping[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    """A piece per top-level key that holds any number, sized by how many it holds."""
    pieces: list[tuple[str, tuple[int, ...]]] = []
    for key in sorted(observation):
        count = len(numbers(observation[key]))
        if count:
            pieces.append((str(key), (count,)))
    return pieces


class ListedChance(ChanceModel):
    """Chance outcomes as ids in the order of the game's `chance_space`, one whole
    outcome per chance node, with the probabilities `State.chance_outcomes` gives."""

    explicit = True

    def __init__(self, game_id: str, outcomes: tuple[str, ...]) -> None:
        self.game_id = game_id
        self.names = outcomes
        self.index = {name: i for i, name in enumerate(outcomes)}
        self.max_outcomes = len(outcomes)
        self.max_nodes = MAX_DECISIONS

    def outcomes(self, state: State, partial: Path) -> list[tuple[int, float]]:
        return [(self._id(name), p) for name, p in state.chance_outcomes()]

    def complete(self, state: State, partial: Path) -> str | None:
        last = partial[-1]
        if not 0 <= last < len(self.names):
            raise RLError(f"{self.game_id}: chance id {last} is outside 0..{len(self.names) - 1}")
        return self.names[last]

    def encode(self, state: State, action: str) -> Path:
        return (self._id(action),)

    def label(self, outcome: int) -> str:
        return self.names[outcome] if 0 <= outcome < len(self.names) else f"chance {outcome}"

    def _id(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            raise RLError(f"{self.game_id}: chance outcome {name[:40]!r} is not in its chance_space")
        return found


class GenericCodec(Codec):
    """Ids: the game's `action_space` in its order; observation: see the module."""

    def __init__(self, game: Game, seats: int, options: Mapping[str, str]) -> None:
        self.game_id = game.id
        super().__init__(seats, options)
        self.game = game
        actions = game.action_space(seats, self.options)
        if actions is None:
            raise GameError(f"{game.id} has no RL codec: give it an action_space, or a codec of its own in "
                            f"arena/rl/{game.module_name}.py")
        for action in actions:
            if action in self.index:
                raise GameError(f"{game.id}: action {action[:40]!r} is twice in its action_space")
            self._add(action)
        if game.has_chance:
            outcomes = game.chance_space(seats, self.options)
            if not outcomes:
                raise GameError(f"{game.id} has chance but no chance_space: RL code cannot number its outcomes")
            self.chance = ListedChance(game.id, outcomes)
        start = game.new_state(seats, self.options).observation(0)
        self.pieces = Pieces(layout(start))

    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        for name, (_, shape) in self.pieces.offsets.items():
            found = numbers(observation.get(name))
            if len(found) != shape[0]:
                raise RLError(f"{self.game_id}: observation key {name!r} holds {len(found)} numbers, not "
                              f"{shape[0]} as at the start; the generic codec needs one shape, so give the game "
                              "a codec of its own")
            views[name][:] = found

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        if not self.hidden:
            return state.clone()
        return self.game.determinize(state.observation(seat), rng)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> State:
        if not self.hidden:
            return super().determinize(observation, rng)
        return self.game.determinize(observation, rng)

    def max_decisions(self) -> int:
        return MAX_DECISIONS
