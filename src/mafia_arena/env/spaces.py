"""Names and spaces shared by the AEC and Parallel envs.

One `Dict(observation=Box, action_mask=Box[int8])` and one `Discrete(K)` per agent,
built once per env and returned as the same objects on every call (PettingZoo seeds
spaces per agent, so each agent owns its objects).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from mafia_arena.rules import Variant

ENV_VERSION = 0


def env_name(variant: Variant) -> str:
    """The versioned public name, e.g. ``mafia_standard_v0``."""
    return f"mafia_{variant.name}_v{ENV_VERSION}"


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def build_spaces(
    agents: list[str], observation_size: int, actions: int
) -> tuple[dict[str, spaces.Dict], dict[str, spaces.Discrete]]:
    observation = {
        a: spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (observation_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), dtype=np.int8),
            }
        )
        for a in agents
    }
    action = {a: spaces.Discrete(actions) for a in agents}
    return observation, action


class SessionSpaces:
    """The set-up both environments share: the game session, agent names and spaces.

    Spaces are built once here and returned as the same objects on every call, as
    PettingZoo's test utilities expect.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "mafia_v0"}

    def _set_up(
        self,
        variant: Any,
        players: int,
        overrides: Mapping[str, Any] | None,
        render_mode: str | None,
        max_text: int | None,
    ) -> None:
        from mafia_arena.env.session import GameSession

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.session = GameSession(variant, players, overrides, max_text)
        self.metadata = {**type(self).metadata, "name": env_name(self.session.variant)}
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self.observation_spaces, self.action_spaces = build_spaces(
            self.possible_agents, self.session.encoder.size, self.session.table.size
        )
        self._seeds = np.random.default_rng()

    def _deal(self, seed: int | None) -> None:
        """Start a new game: `seed` is the engine seed; without one, the next seed comes
        from a generator seeded by the last explicit seed (so `seed_test` holds)."""
        if seed is not None:
            self._seeds, _ = seeding.np_random(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(2**31))
        self.session.new_game(game_seed)
        self.agents = self.possible_agents[:]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]
