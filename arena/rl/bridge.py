"""A game position in ids: the one layer PettingZoo, OpenSpiel and the search bot share.

`Position` wraps an arena state (through the public State API only) and speaks the
codec's ids: the legal ids of the seat to move (those that lead on to a legal action,
for a path of several ids), applying one, the chance outcomes with their
probabilities, each seat's observation vector (or planes) and the utilities at the end.

An observation is encoded lazily, when asked, straight from the state through the
codec's fast path (`Codec.fast_tensor`); the legal ids are found once per position.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping

import numpy as np

from arena import games
from arena.games import CHANCE, TERMINAL, State
from arena.games.perft import chance_rng
from arena.rl.codecs import codec
from arena.rl.spec import Codec, Ids, Path, RLError, Tensor, utilities

Log = tuple["Log", str] | tuple[()]
START: Log = ()
"""The empty action log (a position at the start of its game)."""


class Bridge:
    """One game, seat count and option set."""

    def __init__(self, game_id: str, seats: int | None = None, options: Mapping[str, str] | None = None) -> None:
        self.game = games.get(game_id)
        self.codec: Codec = codec(game_id, seats, options)
        self.seats = self.codec.seats
        self.options = self.codec.options

    def new_position(self) -> Position:
        return Position(self.codec, self.game.new_state(self.seats, self.options))

    def wrap(self, state: State) -> Position:
        """A position for an arena state reached elsewhere (a bot's tracked game): its
        log is the state's history, None when the state has none (a determinisation
        from an observation: it cannot be pickled, nor resampled from a history)."""
        history = state.history
        log: Log | None = None
        if history is not None:
            log = START
            for action in history:
                log = (log, action)
        return Position(self.codec, state, log)


class Position:
    """An arena state, the ids of a longer action chosen so far (`pending`) and the
    outcome ids of a factored chance event drawn so far (`partial`)."""

    __slots__ = ("codec", "state", "pending", "partial", "log", "_trie", "_complete", "_ids")

    def __init__(self, codec: Codec, state: State, log: Log | None = START) -> None:
        self.codec = codec
        self.state = state
        self.pending: Path = ()
        self.partial: Path = ()
        self.log = log
        """The arena actions from the start (a shared linked list), None when the
        position did not come from the start (then it cannot be pickled)."""
        self._trie: dict[Path, list[int]] | None = None
        self._complete: dict[Path, str] | None = None
        self._ids: Ids | None = None
        """The legal ids of a game without paths, found once per position (callers
        get copies)."""

    def clone(self) -> Position:
        twin = Position(self.codec, self.state.clone(), self.log)
        twin.pending = self.pending
        twin.partial = self.partial
        twin._trie = self._trie
        twin._complete = self._complete
        twin._ids = self._ids
        return twin

    def __deepcopy__(self, memo: dict[int, object]) -> Position:
        return self.clone()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickled as its game and the actions from the start (OpenSpiel serialises
        a Python state by pickling its attributes)."""
        if self.log is None:
            raise RLError("a position that did not come from the start cannot be pickled")
        actions: list[str] = []
        link = self.log
        while link:
            link, action = link
            actions.append(action)
        actions.reverse()
        key = (self.codec.game_id, self.codec.seats, tuple(sorted(self.codec.options.items())))
        return _restore, (key, actions, self.pending, self.partial)

    def current(self) -> int:
        """The seat to choose an id, CHANCE or TERMINAL."""
        return self.state.current()

    def is_terminal(self) -> bool:
        return self.state.current() == TERMINAL

    def legal(self) -> list[int]:
        """The ids the seat to move may choose now, ascending (empty at chance/terminal)."""
        if self.state.current() < 0:
            return []
        if not self.codec.compound:
            ids = self._legal_ids()
            return ids.tolist() if isinstance(ids, np.ndarray) else ids.copy()
        trie, _ = self._paths()
        return list(trie.get(self.pending, ()))

    def _legal_ids(self) -> Ids:
        """The legal ids of a game without paths, found once per position (a seat to
        move): the codec's fast path, else the strings numbered."""
        ids = self._ids
        if ids is None:
            ids = self._ids = self.codec.legal_ids(self.state)
            if ids is None:
                ids = self._ids = self.numbered_legal()
        return ids

    def numbered_legal(self) -> list[int]:
        """The legal ids of a game without paths found by numbering the engine's legal
        action strings (what a codec's `legal_ids` fast path is held equal to)."""
        codec = self.codec
        try:
            return sorted(map(codec.index.__getitem__, self.state.legal_actions()))
        except KeyError as exc:
            raise RLError(f"{codec.game_id}: legal action {exc.args[0]!r} is outside the numbering") from None

    def _paths(self) -> tuple[dict[Path, list[int]], dict[Path, str]]:
        """Every legal action as a path: the ids that may follow each prefix."""
        if self._trie is None or self._complete is None:
            nexts: dict[Path, set[int]] = {}
            complete: dict[Path, str] = {}
            for action in self.state.legal_actions():
                path = self.codec.path(action)
                complete[path] = action
                for at in range(len(path)):
                    nexts.setdefault(path[:at], set()).add(path[at])
            self._trie = {prefix: sorted(ids) for prefix, ids in nexts.items()}
            self._complete = complete
        return self._trie, self._complete

    def apply(self, index: int) -> None:
        """Choose an id (a seat's, or a chance outcome's); RLError if not allowed now."""
        who = self.state.current()
        if who == TERMINAL:
            raise RLError("the game is over")
        if who == CHANCE:
            chance = self.codec.chance
            partial = self.partial + (int(index),)
            action = chance.complete(self.state, partial)
            if action is None:
                self.partial = partial
            else:
                self.partial = ()
                self._apply_arena(action)
            return
        codec = self.codec
        if not codec.compound:
            if not 0 <= index < codec.num_actions:
                raise RLError(f"{codec.game_id}: id {index} is outside 0..{codec.num_actions - 1}")
            self._apply_arena(codec.names[index])
            return
        trie, complete = self._paths()
        if index not in trie.get(self.pending, ()):
            raise RLError(f"{codec.game_id}: id {index} ({self.label(index)}) is not legal here")
        path = self.pending + (int(index),)
        action = complete.get(path)
        if action is None:
            self.pending = path
        else:
            self._apply_arena(action)

    def completes(self, index: int) -> str | None:
        """The arena action that choosing `index` would complete now (None when it only
        takes a step of a longer one, or a part of a factored chance outcome)."""
        if self.state.current() == CHANCE:
            return self.codec.chance.complete(self.state, self.partial + (int(index),))
        if not self.codec.compound:
            return self.codec.names[index]
        return self._paths()[1].get(self.pending + (int(index),))

    def _apply_arena(self, action: str) -> None:
        self.state.apply(action)
        if self.log is not None:
            self.log = (self.log, action)
        self.pending = ()
        self._trie = None
        self._complete = None
        self._ids = None

    def apply_action(self, action: str) -> None:
        """Apply a whole arena action (a seat's or chance's) through its ids."""
        if self.state.current() == CHANCE:
            ids = self.codec.chance.encode(self.state, action)
        else:
            ids = self.codec.path(action)
        for index in ids:
            self.apply(index)

    def outcomes(self) -> list[tuple[int, float]]:
        """Chance outcome ids with their probabilities (at a chance node)."""
        return self.codec.chance.outcomes(self.state, self.partial)

    def sample_chance(self, rng: random.Random) -> None:
        """Resolve chance as the arena's referee would (one whole outcome)."""
        while self.state.current() == CHANCE and not self.partial:
            self.apply_action(self.state.sample_chance(rng))

    def label(self, index: int) -> str:
        if self.state.current() == CHANCE:
            return self.codec.chance.label(index)
        return self.codec.names[index] if 0 <= index < self.codec.num_actions else f"id {index}"

    def tensor(self, seat: int) -> Tensor:
        """The seat's observation vector (what its JSON observation holds), a new
        array of its own, encoded straight from the state (`Codec.fast_tensor`)."""
        pending = self.pending if seat == self.state.current() else ()
        return self.codec.fast_tensor(self.state, seat, pending)

    def reference_tensor(self, seat: int) -> Tensor:
        """The same vector encoded from the seat's JSON observation (`Codec.tensor`):
        slower, the reference the fast path is tested against."""
        pending = self.pending if seat == self.state.current() else ()
        return self.codec.tensor(self.state.observation(seat), pending)

    def planes(self, seat: int) -> Tensor:
        """The seat's view of the board as float32 planes (C, H, W) =
        `codec.planes_shape`, channels named by `codec.plane_names`; RLError for a
        game without a board grid (`planes_shape` None)."""
        pending = self.pending if seat == self.state.current() else ()
        return self.codec.planes(self.state, seat, pending)

    def mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(self.codec.num_actions, np.int8)
        if seat == self.state.current():
            mask[self._legal_ids() if not self.codec.compound and seat >= 0 else self.legal()] = 1
        return mask

    def observation_string(self, seat: int) -> str:
        """The seat's JSON observation, and the steps it has chosen of a longer action."""
        text = json.dumps(self.state.observation(seat), sort_keys=True, separators=(",", ":"))
        if self.pending and seat == self.state.current():
            text += " pending " + " ".join(self.codec.names[i] for i in self.pending)
        return text

    def describe(self) -> str:
        """Everything in the position (every seat's view, the steps chosen so far; one
        view when nothing is hidden)."""
        seats = self.codec.seats if self.codec.hidden else 1
        views = [self.state.observation(seat) for seat in range(seats)]
        return json.dumps({"views": views, "pending": list(self.pending), "partial": list(self.partial)},
                          sort_keys=True, separators=(",", ":"))

    def resample(self, seat: int, rng: random.Random) -> Position:
        """A position the seat cannot tell from this one: what its observation hides
        drawn at random (perfect-information games: a copy)."""
        if self.state.current() == CHANCE and self.partial:
            return Position(self.codec, self.state.clone(), None)
        twin = Position(self.codec, self.codec.resample(self.state, seat, rng), None)
        twin.pending = self.pending
        return twin

    def utilities(self) -> list[float]:
        """Each seat's utility (rank-based, docs/rl.md); zeros before the end."""
        if self.state.current() != TERMINAL:
            return [0.0] * self.codec.seats
        return utilities(self.state)


def _restore(key: tuple[str, int, tuple[tuple[str, str], ...]], actions: list[str], pending: Path,
             partial: Path) -> Position:
    game_id, seats, options = key
    position = Bridge(game_id, seats, dict(options)).new_position()
    for action in actions:
        position._apply_arena(action)
    position.pending = pending
    position.partial = partial
    return position


def complete_moves(position: Position) -> list[Position]:
    """The positions after each legal action of the seat to move, every step of a
    longer action taken through the ids (so their number is the arena's count)."""
    out: list[Position] = []
    stack = [position]
    while stack:
        at = stack.pop()
        for index in at.legal():
            child = at.clone()
            child.apply(index)
            if child.pending:
                stack.append(child)
            else:
                out.append(child)
    return out


def count_moves(position: Position) -> int:
    """The number of legal actions of the seat to move, counted through the ids that
    lead on from each step (without applying them)."""
    if not position.codec.compound:
        return len(position.legal())
    trie, _ = position._paths()
    count = 0
    stack: list[Path] = [position.pending]
    while stack:
        prefix = stack.pop()
        for index in trie.get(prefix, ()):
            path = prefix + (index,)
            if path in trie:
                stack.append(path)
            else:
                count += 1
    return count


def perft(position: Position, depth: int, seed: int = 0, ply: int = 0) -> list[int]:
    """`arena perft` through the ids: action sequences of each length 1..depth, chance
    resolved by the same outcome the arena's perft draws, taken through its ids."""
    counts = [0] * depth
    _walk(position, depth, seed, ply + _resolve(position, seed, ply), counts, 0)
    return counts


def _resolve(position: Position, seed: int, ply: int) -> int:
    applied = 0
    while position.current() == CHANCE:
        position.apply_action(position.state.sample_chance(chance_rng(seed, ply + applied)))
        applied += 1
    return applied


def _walk(position: Position, depth: int, seed: int, ply: int, counts: list[int], level: int) -> None:
    if level == depth or position.is_terminal():
        return
    if level + 1 == depth:
        counts[level] += count_moves(position)
        return
    children = complete_moves(position)
    counts[level] += len(children)
    for child in children:
        _walk(child, depth, seed, ply + 1 + _resolve(child, seed, ply + 1), counts, level + 1)
