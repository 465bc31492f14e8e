"""Every registered game as a Gymnasium single-agent environment (docs/rl.md): one
seat learns, the others are played inside the environment by in-process opponents.

    from arena.rl.gym import env
    e = env("btt", seat=0, opponents="greedy", seed=1)
    obs, info = e.reset()
    while True:
        action = pick(obs["observation"], obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(action)
        if terminated or truncated:
            break

The learner acts with `Discrete(N)` ids of the game's fixed numbering and observes a
Dict, as the PettingZoo environment does: `observation` (its float32 vector) and
`action_mask` (MultiBinary(N), ones on its legal ids). The reward comes at the end
only: the learner's rank-based utility. Chance and the opponents' moves happen inside
`step`, from generators that `reset(seed=...)` seeds.

Opponents (one for every other seat, or a list of one per other seat in seat order):
- `"random"`: a legal id at random, step by step;
- `"greedy"`: one ply ahead through the bridge: a whole action that wins at once,
  else the one after which the codec's `evaluate` (the game's running score: Treeblox,
  Roots) rates the seat best, else any; ties at random, at most 64 actions weighed.
  A weak, fast baseline (in btt and Blox, which have no `evaluate`, it only differs
  from random by taking a win; in Treeblox it scores about as random does), not the
  shipped `greedy` bots, whose heuristics live in bots/ (programs, above arena/ in
  the layers);
- a Python policy `policy(observation, mask) -> id`, with the seat's float32 vector
  and int8 mask, called once per id (an id the mask refuses raises RLError).
A shipped bot's name is refused: shipped bots are programs that run as subprocesses
(arena.play), far slower than a training loop; wrap a policy instead.

Illegal ids: Gymnasium's contract is that any element of the action space may be
given to `step` (`check_env` and the vector environments' samplers do so), so the
default is `illegal_action="loss"`: the game ends at once as the learner's loss (-1,
terminated, `info["illegal_action"]` says why). `"raise"` raises RLError instead and
leaves the environment as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

import numpy as np

from arena.rl.bridge import Position
from arena.rl.pettingzoo import ArenaEnv, IllegalAction, Observation, check_illegal_action, seat_text
from arena.rl.spec import Path, RLError, missing

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:
    raise missing("gymnasium", exc) from None

PolicyFunction = Callable[[np.ndarray, np.ndarray], int]
"""A Python policy: (the seat's observation vector, its action mask) -> an id."""

GREEDY_WIDTH = 64
"""The most whole actions the greedy opponent weighs (sampled at random beyond)."""


class Opponent(Protocol):
    """Plays one seat inside the environment: the ids to choose now (a whole action's
    path, or one id of it)."""

    def choose(self, position: Position, seat: int, rng: random.Random) -> Path: ...


class RandomOpponent:
    """A legal id at random (a longer action's ids one at a time, each at random)."""

    def choose(self, position: Position, seat: int, rng: random.Random) -> Path:
        return (rng.choice(position.legal()),)


class GreedyOpponent:
    """One ply ahead: wins at once where it can, else the whole action after which the
    codec's `evaluate` rates its seat best (any, where the game has none)."""

    def choose(self, position: Position, seat: int, rng: random.Random) -> Path:
        codec = position.codec
        actions = position.state.legal_actions()
        if position.pending:
            actions = [a for a in actions if codec.path(a)[:len(position.pending)] == position.pending]
        if len(actions) > GREEDY_WIDTH:
            actions = rng.sample(actions, GREEDY_WIDTH)
        best: tuple[float, float] = (-1.0, 0.0)
        chosen = actions[0]
        for action in actions:
            child = position.clone()
            for index in codec.path(action)[len(position.pending):]:
                child.apply(index)
            key = (_value(child, seat), rng.random())
            if key > best:
                best, chosen = key, action
        return codec.path(chosen)[len(position.pending):]


def _value(position: Position, seat: int) -> float:
    """The seat's prospects (0..1) after a move: its utility at the end, else the
    codec's judgement of the running score, else level."""
    if position.is_terminal():
        return (position.utilities()[seat] + 1) / 2
    judged = position.codec.evaluate(position.state.observation(seat))
    return 0.5 if judged is None else judged[seat]


class PolicyOpponent:
    """A Python policy(observation, mask) -> id."""

    def __init__(self, policy: PolicyFunction) -> None:
        self.policy = policy

    def choose(self, position: Position, seat: int, rng: random.Random) -> Path:
        mask = position.mask(seat)
        index = int(self.policy(position.tensor(seat), mask))
        if not 0 <= index < mask.size or not mask[index]:
            raise RLError(f"the opponent policy {_name(self.policy)} at seat {seat} chose id {index}, which its mask "
                          "does not allow: a policy must choose among the mask's ones")
        return (index,)


OpponentSpec = str | PolicyFunction
BUILT_IN: Mapping[str, Callable[[], Opponent]] = {"random": RandomOpponent, "greedy": GreedyOpponent}


def opponent(spec: OpponentSpec) -> Opponent:
    """The opponent a name or a policy stands for; RLError for any other name."""
    if isinstance(spec, str):
        made = BUILT_IN.get(spec)
        if made is None:
            raise RLError(f"no in-process opponent {spec!r}: opponents are 'random', 'greedy' or a Python "
                          "policy(observation, mask) -> id. Shipped bots run as subprocesses (arena.play) and "
                          "are not available inside a Gymnasium environment")
        return made()
    if callable(spec):
        return PolicyOpponent(spec)
    raise RLError(f"an opponent is 'random', 'greedy' or a callable, not {spec!r}")


def _name(policy: object) -> str:
    return str(getattr(policy, "__qualname__", None) or type(policy).__name__)


def env(game: str, seat: int = 0, opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        seats: int | None = None, options: Mapping[str, Any] | None = None,
        illegal_action: IllegalAction = "loss", seed: int | None = None,
        render_mode: str | None = None) -> ArenaGymEnv:
    """A single-agent environment: `seat` of `game` learns, the other seats are played
    by `opponents` (one for all, or one per other seat in seat order); `seats` default
    to the fewest the game allows, `options` are the game's variant options, `seed`
    seeds the first reset that is given none."""
    return ArenaGymEnv(game, seat, opponents, seats, {k: str(v) for k, v in (options or {}).items()},
                       illegal_action, seed, render_mode)


class ArenaGymEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of an arena game as a Gymnasium environment (the others inside)."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}

    def __init__(self, game: str, seat: int, opponents: OpponentSpec | Sequence[OpponentSpec],
                 seats: int | None, options: dict[str, str], illegal_action: IllegalAction = "loss",
                 seed: int | None = None, render_mode: str | None = None) -> None:
        check_illegal_action(illegal_action)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RLError(f"render_mode {render_mode!r} is not one of human, ansi")
        self.render_mode = render_mode
        self.game = ArenaEnv(game, seats, None, options, illegal_action=illegal_action)
        """The whole game as a PettingZoo environment (its `position` is the bridge's)."""
        count = self.game.bridge.seats
        if not 0 <= seat < count:
            raise RLError(f"seat {seat} is not a seat of {game} with {count} seats (0..{count - 1})")
        self.seat = seat
        self.agent = self.game.possible_agents[seat]
        others = [s for s in range(count) if s != seat]
        if isinstance(opponents, (str, bytes)) or callable(opponents):
            specs: list[OpponentSpec] = [opponents] * len(others)
        else:
            specs = list(opponents)
            if len(specs) != len(others):
                raise RLError(f"{len(specs)} opponents for {len(others)} other seats: give one for each, in seat order")
        self.opponents: dict[int, Opponent] = {s: opponent(spec) for s, spec in zip(others, specs)}
        codec = self.game.bridge.codec
        self.observation_space = cast(spaces.Space[Observation], spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (codec.pieces.size,), np.float32),
            "action_mask": spaces.MultiBinary(codec.num_actions),
        }))
        self.action_space = spaces.Discrete(codec.num_actions)
        self._first_seed = seed
        self._rng = random.Random(seed)

    @property
    def position(self) -> Position:
        return self.game.position

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        self._first_seed = None
        draws = self.np_random.integers(0, 2**62, size=2)
        self._rng = random.Random(int(draws[1]))
        self.game.reset(seed=int(draws[0]))
        self._play_others()
        return self.game.observe(self.agent), self._info()

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self._over():
            raise RLError("the game is over: call reset() before step()")
        self.game.step(int(action))
        self._play_others()
        over = self._over()
        reward = float(self.game._cumulative_rewards[self.agent]) if over else 0.0
        if self.render_mode == "human":
            self.render()
        return self.game.observe(self.agent), reward, over, False, self._info()

    def _over(self) -> bool:
        return bool(self.game.terminations.get(self.agent, True))

    def _play_others(self) -> None:
        """The opponents' moves until the learner is to move or the game is over."""
        game = self.game
        while not self._over() and game.agent_selection != self.agent:
            seat = game.position.current()
            for index in self.opponents[seat].choose(game.position, seat, self._rng):
                game.step(index)

    def _info(self) -> dict[str, Any]:
        info = dict(self.game.infos.get(self.agent, {}))
        if self._over() and self.game.forfeited is None:
            info["ranks"] = list(self.position.state.result().ranks)
        return info

    def render(self) -> str | None:
        """What the learner's seat may see (never another seat's hidden hand)."""
        text = seat_text(self.position, self.seat)
        if self.game.forfeited is not None:
            text += f"\ngame over: {self.game.possible_agents[self.game.forfeited]} lost by an illegal action"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game and its opponents live in this process."""
