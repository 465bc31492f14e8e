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
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from arena.render import text_state
from arena.rl.bridge import Bridge, Position
from arena.rl.spec import missing

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:
    raise missing("pettingzoo (with gymnasium)", exc) from None

Observation = dict[str, np.ndarray]


def env(game: str, players: int | None = None, render_mode: str | None = None, **options: Any) -> ArenaEnv:
    """An AEC environment for `game` with `players` seats (default: the fewest it
    allows) and variant options as keywords (`board="rect"`, `width=12`)."""
    return ArenaEnv(game, players, render_mode, {k: str(v) for k, v in options.items()})


class ArenaEnv(AECEnv[str, Observation, int]):
    """One arena game as an agent-environment cycle."""

    def __init__(self, game: str, players: int | None, render_mode: str | None, options: dict[str, str]) -> None:
        super().__init__()
        self.bridge = Bridge(game, players, options)
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
        size, actions = codec.pieces.size, codec.num_actions
        self._observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
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
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.position.current()]

    def observe(self, agent: str) -> Observation:
        seat = self._seat[agent]
        return {"observation": self.position.tensor(seat), "action_mask": self.position.mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for an agent whose game is over")
        self._cumulative_rewards[agent] = 0.0
        position = self.position
        position.apply(int(action))
        position.sample_chance(self._rng)
        if position.is_terminal():
            for agent_, utility in zip(self.possible_agents, position.utilities()):
                self.rewards[agent_] = utility
                self.terminations[agent_] = True
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[position.current()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = text_state(self.bridge.game.id, self.position.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game lives in this process."""
