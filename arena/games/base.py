"""The game interface: the only thing the referee knows of a game.

Modelled on OpenSpiel: a game is a sequence of atomic decisions. At every point a
state says who decides (a seat, chance, or nobody once the game is over), lists the
legal actions as canonical strings in plain ASCII order, and applies one. Multi-action
turns, extra turns and forced draws are simply consecutive decisions. Games are pure
rules: no I/O, no clocks, no randomness of their own (chance outcomes are drawn by the
caller from a seeded generator through `sample_chance` and applied like actions, so a
record replays without a random generator).

Action strings come from bots, so parsing them is total: `is_legal`, `apply` and
`visible_action` take any string whatever and answer with a verdict (False, or
IllegalAction leaving the state as it was), never another exception: an exception the
referee does not expect is its own error, and a bot that could provoke one could void
the games it is losing. Numbers inside actions are read with `numbers.canonical_int`.

Every state keeps its `history`, the actions applied since the game's start, without
the game's help: `apply` is wrapped once per class (`State.__init_subclass__`) to link
the action onto an immutable chain after the game accepted it, so clones share the
chain and a search bot pays one small tuple per apply, nothing per clone.
"""

from __future__ import annotations

import functools
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeAlias

from arena.errors import ArenaError, excerpt
from arena.games.copying import Copier, install_clone
from arena.lazy import public

CHANCE = -1
"""`State.current()` when the next decision is a chance outcome."""

TERMINAL = -2
"""`State.current()` once the game is over."""


@public
class GameError(ArenaError, ValueError):
    """Bad input to a game: unknown option, bad seat count, illegal action."""


@public
class IllegalAction(GameError):
    """`State.apply` got an action that is not legal at this point."""

    def __init__(self, action: str, reason: str = "not a legal action here") -> None:
        super().__init__(f"illegal action {excerpt(action)}: {reason}")
        self.action = action
        self.reason = reason

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str]]:
        """Pickled as its action and reason (an exception's default is its message alone)."""
        return type(self), (self.action, self.reason)


@dataclass(frozen=True)
class Option:
    """A variant option: its name, default (as text) and the values it accepts."""

    name: str
    default: str
    help: str
    choices: tuple[str, ...] = ()
    """Accepted values; empty means any value `parse` accepts."""

    def parse(self, text: str) -> str:
        if self.choices and text not in self.choices:
            raise GameError(
                f"option {self.name}={excerpt(text)} is not one of {', '.join(self.choices)}"
            )
        return text


@dataclass(frozen=True)
class Result:
    """Rank per seat (1 = best, ties share a rank, competition style) and score per seat."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]


def competition_ranks(scores: list[float] | tuple[float, ...], higher_is_better: bool = True) -> tuple[int, ...]:
    """Ranks from scores, ties sharing the best rank: scores 4, 4, 2 rank 1, 1, 3."""
    sign = 1 if higher_is_better else -1
    return tuple(1 + sum(1 for o in scores if sign * o > sign * s) for s in scores)


Trail: TypeAlias = "tuple[Trail, object] | tuple[()] | None"
"""A state's history as an immutable chain, newest action last: (earlier, action) links
down to START (the game's start) or None (a position that did not come from the start,
so its history is unknown). An action is a string, or a game's own move object that
`State._action_text` names (The Tree's `play` records moves without building strings)."""

START: tuple[()] = ()
"""The end of the history chain of a state that came from the game's start."""


def _recording(apply: Callable[[State, str], None]) -> Callable[[State, str], None]:
    """`apply` that links the action onto the state's history once the game accepted it
    (IllegalAction leaves the history as it was). The chain is read before and linked
    after, so an `apply` that calls its superclass's recorded `apply` records once."""

    def recorded(self: State, action: str) -> None:
        trail = self._trail
        apply(self, action)
        self._trail = (trail, action)

    functools.update_wrapper(recorded, apply)
    recorded.__records_history__ = True  # type: ignore[attr-defined]
    return recorded


@dataclass
class State(ABC):
    """One position of a game. Mutable: `apply` changes it; `clone` copies it cheaply."""

    num_seats: int
    options: Mapping[str, str] = field(default_factory=dict)
    _trail: Trail = field(default=None, init=False, repr=False, compare=False)
    """The history chain (see Trail): START for a new state (`__post_init__`); the class
    default None answers for a state built without `__init__`. Shared by clones (it is
    replaced, never changed), so it is not in `copied`."""

    game_id: ClassVar[str] = ""
    """The id of the game the state belongs to (its `game`)."""
    copied: ClassVar[Mapping[str, Copier]] = {}
    """The attributes `clone` copies, each with how (arena.games.copying); it shares
    every other attribute, so those must never change in place."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Record the history of every game's states, also of games registered later:
        a subclass's own `apply` is wrapped (once) to link each accepted action."""
        super().__init_subclass__(**kwargs)
        apply = cls.__dict__.get("apply")
        if callable(apply) and not getattr(apply, "__isabstractmethod__", False) \
                and not getattr(apply, "__records_history__", False):
            cls.apply = _recording(apply)  # type: ignore[method-assign,assignment]

    def __post_init__(self) -> None:
        self._trail = START

    @property
    def history(self) -> tuple[str, ...] | None:
        """The actions (seats' and chance outcomes) applied since the game's start, in
        order, enough to replay this position on a new state; None for a position that
        did not come from the start (a determinisation, a puzzle position), whose past
        is unknown. Walks the chain: O(plies) per call, nothing per apply or clone."""
        actions: list[object] = []
        node = self._trail
        while node:
            node, action = node
            actions.append(action)
        if node is None:
            return None
        actions.reverse()
        return tuple(a if isinstance(a, str) else self._action_text(a) for a in actions)

    def set_history(self, actions: Iterable[str] | None) -> None:
        """Declare what led here without replaying it: None for a position built or
        guessed rather than played from the start (what `Game.determinize` returns), or
        actions the caller knows lead to it (a resample consistent with what a seat saw)."""
        trail: Trail = None if actions is None else START
        if actions is not None:
            for action in actions:
                trail = (trail, action)
        self._trail = trail

    def _action_text(self, action: object) -> str:
        """The action string of a move object a game's fast path recorded."""
        return str(action)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (and deep-copied) with its history flat: a chain as deep as the game
        is long would overrun the recursion limit."""
        state = self.__dict__.copy()
        state["_trail"] = self.history
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        history = state.pop("_trail", None)
        self.__dict__.update(state)
        self.set_history(history)

    @property
    def game(self) -> Game:
        """The game this state belongs to: its identity, seat counts and options, and
        what it hides (`has_hidden_information`)."""
        from arena.games import GAMES

        if self.game_id not in GAMES:
            raise GameError(f"{type(self).__name__} names no registered game (game_id {self.game_id!r})")
        return GAMES[self.game_id]

    def clone(self) -> Self:
        """An independent copy, cheap enough for search bots: generated once per class
        from `copied` (arena.games.copying), then as fast as a hand-written copy."""
        cloned: Self = install_clone(type(self), self.__dict__, self.copied)(self)
        return cloned

    @abstractmethod
    def current(self) -> int:
        """The seat to decide (0-based), or CHANCE, or TERMINAL."""

    @abstractmethod
    def legal_actions(self) -> list[str]:
        """Legal actions of the deciding seat in plain ASCII order (empty at chance/terminal)."""

    @abstractmethod
    def apply(self, action: str) -> None:
        """Play one action (a seat's or a chance outcome); for any other string raise
        IllegalAction and leave the state unchanged."""

    @abstractmethod
    def result(self) -> Result:
        """Ranks and scores; only valid once `current()` is TERMINAL."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """A JSON-able view holding exactly what `seat` may know right now."""

    def is_legal(self, action: str) -> bool:
        """Whether `action` (any string) is legal now; games may override with something
        faster."""
        return action in self.legal_actions()

    def is_terminal(self) -> bool:
        return self.current() == TERMINAL

    def sample_chance(self, rng: random.Random) -> str:
        """Draw a chance outcome (only called when `current()` is CHANCE)."""
        raise GameError(f"{type(self).__name__} has no chance decisions")

    def forced_action(self) -> str:
        """What the referee plays for a seat removed after a fault: by default the first
        legal action (games whose rules name a forced move override this)."""
        legal = self.legal_actions()
        if not legal:
            raise GameError("no legal action to force")
        return legal[0]

    def visible_action(self, action: str, actor: int, seat: int) -> str | None:
        """What `seat` sees of `action` played by `actor` (CHANCE for chance): the action
        itself, a redacted form, or None when the seat learns nothing of it. Called
        before the action is applied. Perfect-information games keep the default."""
        return action

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """Every chance outcome possible now with its probability (only when `current()`
        is CHANCE): what RL code that walks chance explicitly (OpenSpiel) needs from a
        game that has no codec of its own (arena/rl/generic.py)."""
        raise GameError(f"{type(self).__name__} does not list its chance outcomes")


class Game(ABC):
    """A game definition: identity, seat counts, variant options, and a state factory."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    has_chance: ClassVar[bool] = False
    has_hidden_information: ClassVar[bool] = False
    score_name: ClassVar[str] = "score"
    """What the game's own score counts, for tables (Treeblox: "active leaves")."""
    quick_options: ClassVar[Mapping[str, str]] = {}
    """Options for short games (the smallest board), as `arena check` plays them."""
    midgame_ply: ClassVar[int] = 20
    """Placements into a random game where `arena bench` times the legal actions: a
    position of the middle of a game."""

    @property
    def module_name(self) -> str:
        """The name of the game's companion modules, each optional and found by this
        name alone: its own RL codec (arena/rl/<name>.py, exporting CODEC), its terminal
        view (arena/render/<name>.py) and its picture (arena/render/svg/<name>.py).
        The id with `_` for `-`."""
        return self.id.replace("-", "_")

    def resolve_options(self, given: Mapping[str, str]) -> dict[str, str]:
        """All options with defaults filled in; unknown names or bad values raise GameError."""
        known = {o.name: o for o in self.options}
        for name in given:
            if name not in known:
                choices = ", ".join(known) or "none"
                raise GameError(f"{self.id} has no option {excerpt(name)} (options: {choices})")
        return {o.name: o.parse(given.get(o.name, o.default)) for o in self.options}

    def check_seats(self, seats: int, options: Mapping[str, str] | None = None) -> None:
        """GameError unless `seats` can play (with these resolved options, when a
        variant has its own seat count)."""
        if not self.min_seats <= seats <= self.max_seats:
            if self.min_seats == self.max_seats:
                allowed = str(self.min_seats)
            else:
                allowed = f"{self.min_seats} to {self.max_seats}"
            raise GameError(f"{self.id} is played by {allowed} seats, not {seats}")

    def new_state(self, seats: int, options: Mapping[str, str] | None = None) -> State:
        """The initial state for `seats` players with the given variant options."""
        resolved = self.resolve_options(options or {})
        self.check_seats(seats, resolved)
        return self._initial_state(seats, resolved)

    @abstractmethod
    def _initial_state(self, seats: int, options: dict[str, str]) -> State:
        """Build the initial state; seats and options are already checked."""

    def action_space(self, seats: int, options: Mapping[str, str]) -> tuple[str, ...] | None:
        """Every action a seat may ever be offered with `seats` seats and these
        (resolved) options, in a fixed order: the numbering RL code gets for a game
        without a codec of its own (arena/rl/generic.py). None: no numbering, so no
        RL codec (the default)."""
        return None

    def chance_space(self, seats: int, options: Mapping[str, str]) -> tuple[str, ...]:
        """Every chance outcome the game may ever draw in this setting, in a fixed
        order, for the same generic codec (with `State.chance_outcomes`); () for none."""
        return ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A game's own `determinize` returns a state whose history is unknown (None),
        whatever way the game built it: a guess has no true past."""
        super().__init_subclass__(**kwargs)
        determinize = cls.__dict__.get("determinize")
        if callable(determinize) and not getattr(determinize, "__forgets_history__", False):
            cls.determinize = _forgetting(determinize)  # type: ignore[method-assign,assignment]

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> State:
        """A full position consistent with what one seat observes (its `observation`),
        what it cannot see drawn at random: how a person's seat or a search bot in a
        game with hidden information gets a position to show or to search. Its
        `history` is None (the guess has no true past). Games without hidden
        information are followed by their actions instead."""
        raise GameError(f"{self.id} hides nothing: follow its actions instead of guessing from an observation")


def _forgetting(determinize: Callable[[Game, Mapping[str, Any], random.Random], State]
                ) -> Callable[[Game, Mapping[str, Any], random.Random], State]:
    """`determinize` whose state says its history is unknown."""

    def forgetting(self: Game, observation: Mapping[str, Any], rng: random.Random) -> State:
        state = determinize(self, observation, rng)
        state.set_history(None)
        return state

    functools.update_wrapper(forgetting, determinize)
    forgetting.__forgets_history__ = True  # type: ignore[attr-defined]
    return forgetting
