"""Every registered game as a PettingZoo AEC environment (docs/rl.md).

    from arena.rl.pettingzoo import env
    e = env("btt", players=3)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else pick(obs["observation"], obs["action_mask"])
        e.step(action)

Agents are `player_0` ... (seat order). Each observes a dict: `observation`, the
seat's float32 vector (arena.rl.codec(...).pieces names its parts), and
`action_mask`, int8 over the game's fixed numbering (Discrete(N)); only the seat to
move has ones. Chance (The Tree's deal, Roots' dice) is drawn inside the environment
from the generator `reset(seed=...)` seeds, as the arena's referee draws it. Rewards
come at the end only: each seat's rank-based utility (docs/rl.md).

An id the mask does not allow is refused by default (`illegal_action="raise"`): RLError,
and the environment is left exactly as it was, so the agent may choose again. With
`illegal_action="loss"` it ends the game at once instead: the offender gets -1 and the
others 1/(n-1) each (what the rank-based utilities give a lone last seat), every agent
is terminated (not truncated: the loss is the game's real end, nothing to bootstrap),
and every agent's info holds `illegal_action` (who, which id, why).

`observation="planes"` gives the board as float32 planes (C, H, W) instead of the flat
vector (codec.planes_shape and plane_names; docs/rl.md, "Planes"), for convolutional
networks; a game without a grid refuses it.

`render()` shows what one seat may see (the agent to move, or `render_seat`): the
whole board for a game that hides nothing, and for The Tree the tree, that seat's own
hand and only the sizes of the others' hands and of the supply.
"""

from __future__ import annotations

import io
import random
from typing import Any, Literal

import numpy as np

from arena.games import GameError
from arena.render import render_seat, text_state
from arena.rl.bridge import Bridge, Position
from arena.rl.spec import RLError, missing

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:
    raise missing("pettingzoo (with gymnasium)", exc) from None

Observation = dict[str, np.ndarray]
IllegalAction = Literal["raise", "loss"]
ILLEGAL_ACTIONS: tuple[str, ...] = ("raise", "loss")
ObservationShape = Literal["flat", "planes"]
OBSERVATION_SHAPES: tuple[str, ...] = ("flat", "planes")


def env(game: str, players: int | None = None, render_mode: str | None = None, *,
        illegal_action: IllegalAction = "raise", render_seat: int | None = None,
        observation: ObservationShape = "flat", **options: Any) -> ArenaEnv:
    """An AEC environment for `game` with `players` seats (default: the fewest it
    allows) and variant options as keywords (`board="rect"`, `width=12`);
    `illegal_action`, `render_seat` and `observation` as the module says."""
    return ArenaEnv(game, players, render_mode, {k: str(v) for k, v in options.items()},
                    illegal_action=illegal_action, render_seat=render_seat, observation=observation)


def check_illegal_action(illegal_action: str) -> None:
    if illegal_action not in ILLEGAL_ACTIONS:
        raise RLError(f"illegal_action={illegal_action!r} is not one of {', '.join(ILLEGAL_ACTIONS)}")


def forfeit_utilities(seats: int, offender: int) -> list[float]:
    """The utilities of a game lost at once by `offender`: -1 for it, 1/(n-1) for each
    other seat (the rank-based utilities of a lone last seat and a tie for first)."""
    if seats == 1:
        return [-1.0]
    return [-1.0 if seat == offender else 1.0 / (seats - 1) for seat in range(seats)]


def seat_text(position: Position, seat: int) -> str:
    """What `seat` may see of the position as plain text: the whole board when the
    game hides nothing, else the game's seat view (never another seat's hand)."""
    game_id = position.codec.game_id
    if not position.codec.hidden:
        board = text_state(game_id, position.state)
    else:
        view = render_seat(game_id, position.state, seat)
        board = view if isinstance(view, str) else _plain(view)
    return f"seat {seat}'s view\n{board}"


def _plain(renderable: Any) -> str:
    """A rich renderable as plain text, without colour."""
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=160, color_system=None, force_terminal=False, highlight=False).print(renderable)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").split("\n"))


class ArenaEnv(AECEnv[str, Observation, int]):
    """One arena game as an agent-environment cycle."""

    def __init__(self, game: str, players: int | None, render_mode: str | None, options: dict[str, str],
                 illegal_action: IllegalAction = "raise", render_seat: int | None = None,
                 observation: ObservationShape = "flat") -> None:
        super().__init__()
        check_illegal_action(illegal_action)
        if observation not in OBSERVATION_SHAPES:
            raise RLError(f"observation={observation!r} is not one of {', '.join(OBSERVATION_SHAPES)}")
        self.planes = observation == "planes"
        self.illegal_action: IllegalAction = illegal_action
        self.bridge = Bridge(game, players, options)
        if render_seat is not None and not 0 <= render_seat < self.bridge.seats:
            raise RLError(f"render_seat={render_seat} is not a seat of this game (0..{self.bridge.seats - 1})")
        self.render_seat = render_seat
        self.forfeited: int | None = None
        """The seat that lost by an illegal action (illegal_action="loss"), else None."""
        codec = self.bridge.codec
        self.metadata: dict[str, Any] = {
            "render_modes": ["human", "ansi"],
            "name": f"arena_{game.replace('-', '_')}_v0",
            "is_parallelizable": False,
        }
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of human, ansi")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.bridge.seats)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        shape: tuple[int, ...] = (codec.pieces.size,)
        if self.planes:
            if codec.planes_shape is None:
                raise RLError(f"{game} has no planes (no board grid): use observation='flat'")
            shape = tuple(codec.planes_shape)
        actions = codec.num_actions
        self._observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, shape, np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            })
            for agent in self.possible_agents
        }
        self._action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self._rng = random.Random()
        self.position: Position = self.bridge.new_position()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.position = self.bridge.new_position()
        self.position.sample_chance(self._rng)
        self.forfeited = None
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.position.current()]

    def observe(self, agent: str) -> Observation:
        seat = self._seat[agent]
        mask = self.position.mask(seat)
        if self.forfeited is not None:
            mask[:] = 0
        seen = self.position.planes(seat) if self.planes else self.position.tensor(seat)
        return {"observation": seen, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for an agent whose game is over")
        position = self.position
        try:
            position.apply(int(action))
        except (RLError, GameError) as exc:  # the position is left as it was
            self._refuse(agent, int(action), str(exc))
            return
        self._cumulative_rewards[agent] = 0.0
        position.sample_chance(self._rng)
        if position.is_terminal():
            self._end(agent, position.utilities())
        else:
            self.agent_selection = self.possible_agents[position.current()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _refuse(self, agent: str, action: int, reason: str) -> None:
        """An id the agent may not choose: raise, or end the game as its loss."""
        if self.illegal_action == "raise":
            raise RLError(f"{agent} chose id {action}, which is not legal here ({reason}); the environment is "
                          "unchanged: choose an id from the action mask, or make the env with "
                          "illegal_action='loss' to end the game as the agent's loss instead") from None
        seat = self._seat[agent]
        self.forfeited = seat
        self._cumulative_rewards[agent] = 0.0
        why = {"agent": agent, "action": action, "reason": reason}
        for agent_ in self.agents:
            self.infos[agent_] = {**self.infos[agent_], "illegal_action": why}
        self._end(agent, forfeit_utilities(len(self.possible_agents), seat))
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end(self, last: str, utilities: list[float]) -> None:
        """The game is over: every agent gets its utility and is terminated."""
        for agent_, utility in zip(self.possible_agents, utilities):
            self.rewards[agent_] = utility
            self.terminations[agent_] = True
        self.agent_selection = self.possible_agents[(self._seat[last] + 1) % len(self.possible_agents)]

    def render(self) -> str | None:
        """What one seat may see (`render_seat`, else the agent to move)."""
        seat = self.render_seat if self.render_seat is not None else self._seat[self.agent_selection]
        text = seat_text(self.position, seat)
        if self.forfeited is not None:
            text += f"\ngame over: {self.possible_agents[self.forfeited]} lost by an illegal action"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game lives in this process."""
