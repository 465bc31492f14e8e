"""What every game's bridge to RL code is made of: a fixed action numbering, an array
observation, and a model of its chance outcomes.

A numbering gives every action a game can ever allow (for one option set) a fixed id
in 0..N-1, designed from the rules rather than from today's legal list, so that a
policy's output layer means the same thing in every position. An action whose
outcomes would be too many to number (Roots' rerolls and fast growth) is a *path* of
ids, chosen one after the other by the same seat; every other action is a path of one.

An observation is a flat float32 vector made of named pieces (`Codec.pieces`), each a
function of the seat's JSON observation alone (plus the ids of a path chosen so far),
so that it holds exactly what the seat may know. `Codec.tensor(observation)` encodes
it from the JSON (the reference); `Codec.fast_tensor(state, seat)` writes the same
vector straight from a game's state where the codec has a fast path (building the
JSON and parsing it back was most of an observation's cost). Board games also offer
`Codec.planes`: the board as float32 planes (C, H, W), each channel named in
`Codec.plane_names`.
"""

from __future__ import annotations

import importlib
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from arena import games
from arena.errors import ArenaError, excerpt
from arena.games import CHANCE, State

Tensor = npt.NDArray[np.float32]
Ids = list[int] | npt.NDArray[np.intp]
"""Legal ids, ascending: a list, or an int array where a codec finds them with numpy."""
Path = tuple[int, ...]


class RLError(ArenaError, ValueError):
    """A request the RL bridge cannot serve: an action outside the numbering, a bad id."""


class MissingExtra(ArenaError, ImportError):
    """pettingzoo, gymnasium or open-spiel is not installed."""


def missing(module: str, exc: ImportError) -> MissingExtra:
    """The error for a module of the rl extra that does not import."""
    return MissingExtra(f"{module} is not installed ({exc}); install the RL extra: pip install 'arena[rl]'")


def require(module: str) -> Any:
    """Import a module of the rl extra, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing(module, exc) from None


class Pieces:
    """The named parts of a flat observation vector: each a (name, shape) in order."""

    def __init__(self, pieces: Sequence[tuple[str, tuple[int, ...]]]) -> None:
        self.pieces = tuple(pieces)
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        at = 0
        for name, shape in self.pieces:
            self.offsets[name] = (at, shape)
            at += int(np.prod(shape))
        self.size = at
        self._slices = tuple((name, at, at + int(np.prod(shape)), shape) for name, (at, shape) in self.offsets.items())

    def zeros(self) -> tuple[Tensor, dict[str, Tensor]]:
        """A zero vector and its named views (writing a view writes the vector)."""
        flat = np.zeros(self.size, np.float32)
        return flat, self.split(flat)

    def split(self, flat: Tensor) -> dict[str, Tensor]:
        """Named views of a flat observation: {"board": array of its shape, ...}."""
        return {name: flat[at:end].reshape(shape) for name, at, end, shape in self._slices}

    def at(self, name: str) -> int:
        """Where a piece starts in the flat vector (for fast paths that write by offset)."""
        return self.offsets[name][0]


def rotate(seat: int, observer: int, seats: int) -> int:
    """A seat as seen by `observer`: 0 is the observer, 1 the next seat, and so on."""
    return (seat - observer) % seats


class ChanceModel:
    """A game's chance outcomes as ids. The default: none."""

    max_outcomes = 0
    max_nodes = 0
    """The most chance nodes a game can meet."""
    explicit = False

    def outcomes(self, state: State, partial: Path) -> list[tuple[int, float]]:
        raise RLError("this game has no chance outcomes")

    def complete(self, state: State, partial: Path) -> str | None:
        """The arena's chance action once `partial` determines it, else None."""
        raise RLError("this game has no chance outcomes")

    def encode(self, state: State, action: str) -> Path:
        """The ids of an arena chance action (its parts, for a factored one)."""
        raise RLError("this game has no chance outcomes")

    def label(self, outcome: int) -> str:
        return f"chance {outcome}"


class Codec(ABC):
    """The numbering, observation and chance model of one game and option set."""

    game_id: str
    compound = False
    """Whether some action is a path of more than one id (then the bridge keeps the ids
    chosen so far and lists only those that lead on to a legal action)."""

    def __init__(self, seats: int, options: Mapping[str, str]) -> None:
        self.seats = seats
        self.options = dict(options)
        self.names: list[str] = []
        """A label per id: the action itself, or the step of a path it stands for."""
        self.index: dict[str, int] = {}
        """Arena action -> id, for every action that is a path of one."""
        self.hidden = games.get(self.game_id).has_hidden_information
        """Whether a seat's observation hides anything (The Tree)."""
        self.chance: ChanceModel = ChanceModel()
        self.pieces = Pieces([])
        self._steps: set[int] = set()

    @property
    def num_actions(self) -> int:
        return len(self.names)

    def _add(self, action: str) -> int:
        self.index[action] = len(self.names)
        self.names.append(action)
        return self.index[action]

    def path(self, action: str) -> Path:
        """The ids of an arena action; RLError for an action outside the numbering."""
        found = self.index.get(action)
        if found is None:
            compound = self._compound_path(action)
            if compound is None:
                raise RLError(f"{self.game_id}: action {excerpt(action)} is outside the numbering")
            return compound
        return (found,)

    def action(self, path: Path) -> str | None:
        """The arena action a complete path stands for, None for an incomplete one."""
        if len(path) == 1 and 0 <= path[0] < len(self.names) and not self._is_step(path[0]):
            return self.names[path[0]]
        return self._compound_action(path)

    def _add_step(self, label: str) -> int:
        """Number a step of a longer path (not an arena action by itself)."""
        self._steps.add(len(self.names))
        self.names.append(label)
        return len(self.names) - 1

    def _compound_path(self, action: str) -> Path | None:
        return None

    def _compound_action(self, path: Path) -> str | None:
        return None

    def _is_step(self, index: int) -> bool:
        """Whether an id is a step of a longer path (never an action alone)."""
        return index in self._steps

    def tensor(self, observation: Mapping[str, Any], pending: Path = ()) -> Tensor:
        """The seat's observation vector, from its JSON observation alone (and the ids
        it has chosen so far of a longer path)."""
        flat, views = self.pieces.zeros()
        self._fill(views, observation, pending)
        return flat

    @abstractmethod
    def _fill(self, views: dict[str, Tensor], observation: Mapping[str, Any], pending: Path) -> None:
        """Write the observation into the named views (all zero on entry)."""

    def fast_tensor(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """`tensor(state.observation(seat), pending)`, written straight from the state
        where the codec has a fast path for it (a codec's own, reading the engine's
        fields; tests hold each equal to the reference). The default is the reference."""
        return self.tensor(state.observation(seat), pending)

    def legal_ids(self, state: State) -> Ids | None:
        """The legal ids of the seat to move, ascending, read straight from the engine's
        state where the codec has a fast path (Blox: its legal placements are bitsets,
        and naming a thousand of them to number them again was most of a decision's
        cost; tests hold it equal to numbering `state.legal_actions()`). None: the
        bridge numbers the legal action strings. Only for a codec without paths; never
        changed by the caller (the bridge keeps it for the position)."""
        return None

    planes_shape: tuple[int, int, int] | None = None
    """(C, H, W) of `planes`, None for a game without a board grid."""

    plane_names: tuple[str, ...] = ()
    """The name of each of the C channels of `planes` (documented per game)."""

    def planes(self, state: State, seat: int, pending: Path = ()) -> Tensor:
        """The seat's view of the board as float32 planes (C, H, W): what the flat
        vector's board piece holds, laid out on the board's grid. RLError for a game
        without one (`planes_shape` None)."""
        raise RLError(f"{self.game_id} has no planes observation (planes_shape is None): use the flat vector")

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        """A state the seat cannot tell from `state`: what its observation hides drawn
        at random. Perfect information: a copy."""
        return state.clone()

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> State:
        """A full state consistent with a seat's JSON observation (games with hidden
        information; the others are tracked from their events instead)."""
        raise RLError(f"{self.game_id} has no hidden information: track the game from its events")

    playout_cutoff: int | None = None
    """Decisions after which a search's random playout stops and `evaluate` values the
    position (None: play every game out)."""

    def evaluate(self, observation: Mapping[str, Any]) -> list[float] | None:
        """Each seat's chances (0..1) judged from the game's own running score in a
        public observation, for playouts cut short; None where the game has none."""
        return None

    def max_decisions(self) -> int:
        """An upper bound on the seats' decisions (ids chosen) in one game."""
        return 10_000


def utilities(state: State) -> list[float]:
    """Each seat's utility at the end, from the ranks alone: the seats it beat minus the
    seats that beat it, over the others (1 for a lone winner, -1 for a lone loser, 0
    for a draw of two). Solo: 1 for rank 1, -1 otherwise."""
    ranks = state.result().ranks
    n = len(ranks)
    if n == 1:
        return [1.0 if ranks[0] == 1 else -1.0]
    return [sum((r < o) - (r > o) for o in ranks) / (n - 1) for r in ranks]


def soft_lead(values: Sequence[float], scale: float) -> list[float]:
    """Each seat's lead over the best of the others, squashed into 0..1 (0.5: level)."""
    out = []
    for seat, value in enumerate(values):
        best = max((v for other, v in enumerate(values) if other != seat), default=value)
        out.append(0.5 + 0.5 * math.tanh((value - best) / scale))
    return out


def is_chance(state: State) -> bool:
    return state.current() == CHANCE
