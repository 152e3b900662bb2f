"""Environments for learning agents: a PettingZoo AEC environment in which
two agents play each other, and a Gymnasium environment in which one agent
plays the engine.

They need ``pettingzoo`` and ``gymnasium`` (``pip install "./python[envs]"``);
the rest of the package does not. Observations are dicts of
``"observation"`` (``Game.observation()``: float32 planes seen by the agent)
and ``"action_mask"`` (int8, 1 for the legal actions of the agent to move);
actions are the ints of ``Game.num_distinct_actions`` (docs/python.md
numbers them). A game stops after ``max_steps`` plies (default 1000): it is
then truncated, not ended by the rules.

>>> from monte.envs import GymEnv, PettingZooEnv
>>> env = PettingZooEnv("focus")
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ._monte import Engine, Game

__all__ = ["DEFAULT_MAX_STEPS", "GymEnv", "PettingZooEnv"]

DEFAULT_MAX_STEPS = 1000
"""Plies after which an environment's game is truncated."""

AGENTS = ("player_0", "player_1")
"""The agents' names: ``player_0`` plays White, ``player_1`` Black."""

SIDES = ("white", "black")


def _observation_space(game: Game) -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, game.observation_shape, np.float32),
            "action_mask": spaces.Box(0, 1, (game.num_distinct_actions,), np.int8),
        }
    )


def _observe(game: Game, side: str) -> dict[str, np.ndarray]:
    """What ``side`` sees: the planes, and the legal actions if it is to move."""
    if side == game.side_to_move:
        mask = game.legal_action_mask().astype(np.int8)
    else:
        mask = np.zeros(game.num_distinct_actions, np.int8)
    return {"observation": game.observation(side), "action_mask": mask}


def _reward(game: Game, side: str) -> float:
    """1 if ``side`` has won, -1 if it has lost, 0 otherwise."""
    result = game.result()
    if result is None or result.winner is None:
        return 0.0
    return 1.0 if result.winner == side else -1.0


class PettingZooEnv(AECEnv):
    """Two agents play a game of ``game`` (``"salta"`` or ``"focus"``)
    under ``rules``: ``player_0`` is White, ``player_1`` Black, and they
    move in turn (a side with no move has the pass). The game's end gives
    the winner 1 and the loser -1 (a draw 0 each); after ``max_steps``
    plies the game is truncated. ``reset(options={"fen": ...})`` starts
    from a position string."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "monte_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str = "salta",
        rules: str = "seed",
        max_steps: int | None = DEFAULT_MAX_STEPS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}")
        self.game = Game(game, rules=rules)
        self.rules = rules
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"monte_{game}_v0")
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {agent: _observation_space(self.game) for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(self.game.num_distinct_actions) for agent in AGENTS}
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        fen = (options or {}).get("fen")
        self.game = Game(self.game.kind, rules=self.rules, fen=fen)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[SIDES.index(self.game.side_to_move)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return _observe(self.game, SIDES[AGENTS.index(agent)])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is the action of a finished agent only")
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_action(int(action))  # ValueError for an illegal action
        self.rewards = {a: 0.0 for a in self.agents}
        result = self.game.result()
        if result is not None:
            for a in self.agents:
                self.terminations[a] = True
                self.rewards[a] = _reward(self.game, SIDES[AGENTS.index(a)])
                self.infos[a] = {"reason": result.reason}
        elif self.max_steps is not None and self.game.moves_played >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = AGENTS[SIDES.index(self.game.side_to_move)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return str(self.game)
        if self.render_mode == "human":
            print(self.game)
        return None

    def close(self) -> None:
        pass


class GymEnv(gymnasium.Env):
    """One agent plays ``game`` against the engine at ``level`` (1 to 8;
    its choices seeded from ``reset``'s seed). ``play_as``: ``"white"``,
    ``"black"``, or None for a side drawn at each reset. A step plays the
    agent's action and the engine's reply; the reward is 1 when the agent
    has won, -1 when it has lost, else 0. An illegal action loses the game
    at once (reward -1, terminated, ``info["illegal_action"]``); the
    observation's ``action_mask`` shows the legal ones. After ``max_steps``
    plies the game is truncated."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str = "salta",
        rules: str = "seed",
        level: int = 1,
        play_as: str | None = None,
        max_steps: int | None = DEFAULT_MAX_STEPS,
        render_mode: str | None = None,
    ) -> None:
        if play_as not in (None, *SIDES):
            raise ValueError(f"play_as {play_as!r}: expected 'white', 'black' or None")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}")
        Engine(level=level)  # ValueError for a level out of range
        self.game = Game(game, rules=rules)
        self.rules = rules
        self.level = level
        self.play_as = play_as
        self.side = play_as or SIDES[0]
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.observation_space = _observation_space(self.game)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.engine = Engine(level=level)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.game = Game(self.game.kind, rules=self.rules, fen=(options or {}).get("fen"))
        self.side = self.play_as or SIDES[int(self.np_random.integers(2))]
        self.engine = Engine(level=self.level, seed=int(self.np_random.integers(2**63)))
        self._engine_moves()
        return _observe(self.game, self.side), {"side": self.side}

    def _engine_moves(self) -> None:
        """The engine plays until it is the agent's turn or the game is over."""
        while not self.game.is_over() and self.game.side_to_move != self.side and not self._truncated():
            self.game.play(self.engine.best_move(self.game))

    def _truncated(self) -> bool:
        return self.max_steps is not None and self.game.moves_played >= self.max_steps

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        info: dict[str, Any] = {"side": self.side}
        if int(action) not in self.game.legal_actions():
            info["illegal_action"] = True
            return _observe(self.game, self.side), -1.0, True, False, info
        self.game.apply_action(int(action))
        if not self._truncated():
            self._engine_moves()
        result = self.game.result()
        terminated = result is not None
        if result is not None:
            info["reason"] = result.reason
        truncated = not terminated and self._truncated()
        return _observe(self.game, self.side), _reward(self.game, self.side), terminated, truncated, info

    def render(self) -> str | None:
        return str(self.game) if self.render_mode == "ansi" else None


for _game in ("salta", "focus"):
    gymnasium.register(f"monte/{_game.capitalize()}-v0", entry_point="monte.envs:GymEnv", kwargs={"game": _game})
