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
from mafia_arena.views.encode_history import ObservationSpec

ENV_VERSION = 0


def env_name(variant: Variant) -> str:
    """The versioned public name, e.g. ``mafia_standard_v0``."""
    return f"mafia_{variant.name}_v{ENV_VERSION}"


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def observation_spec(
    observation: str | ObservationSpec = "v0",
    history_days: int = 3,
    egocentric: bool = False,
    max_players: int | None = None,
) -> ObservationSpec:
    """The `ObservationSpec` the env arguments name (``observation="history"`` with its
    options, or a spec as it is)."""
    if isinstance(observation, ObservationSpec):
        return observation
    return ObservationSpec(str(observation), history_days, egocentric, max_players)


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
        observation: ObservationSpec | None = None,
    ) -> None:
        from mafia_arena.env.session import GameSession

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.session = GameSession(variant, players, overrides, max_text, observation)
        self.metadata = {  # type: ignore[misc]  # PettingZoo's per-env metadata
            **type(self).metadata,
            "name": env_name(self.session.variant),
            "observation": {**self.session.observation.header(), "size": self.session.encoder.size},
        }
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self.observation_spaces, self.action_spaces = build_spaces(
            self.possible_agents, self.session.encoder.size, self.session.table.size
        )
        self._seeds = np.random.default_rng()

    def _deal(self, seed: int | None, options: Mapping[str, Any] | None = None) -> None:
        """Start a new game: `seed` is the engine seed; without one, the next seed comes
        from a generator seeded by the last explicit seed (so `seed_test` holds).
        ``options["deal"]`` forces the cards, seat by seat (tests, scenario studies);
        ``options["hands"]`` the intrigue cards (seat → card, Palermo)."""
        from mafia_arena.env.session import whole_seed

        seed = whole_seed(seed)
        if seed is not None:
            self._seeds, _ = seeding.np_random(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(2**31))
        options = options or {}
        self.session.new_game(game_seed, options.get("deal"), options.get("hands"))
        self.agents = self.possible_agents[:]

    @property
    def state_space(self) -> spaces.Box:
        """The space of `state()` (built on first use, then the same object)."""
        found = self.__dict__.get("_state_space")
        if found is None:
            size = self.session.state_encoder.size
            found = self.__dict__["_state_space"] = spaces.Box(0.0, 1.0, (size,), np.float32)
        return found

    def state(self) -> np.ndarray:
        """The omniscient encoding, for centralised critics only: every seat's true role
        and the host's whole log (`views.encode_history.StateEncoder`). Never part of a
        seat's observation, and never to be fed to a policy that plays."""
        return self.session.state()

    def observation_space(self, agent: str) -> spaces.Space:
        """The agent's observation space; `UnknownAgentError` (a `KeyError`) naming the
        agent and the possible ones for a name that is not among `possible_agents`."""
        found = self.observation_spaces.get(agent)
        if found is None:
            raise self._unknown(agent, "observation_space")
        return found

    def action_space(self, agent: str) -> spaces.Space:
        """The agent's action space; `UnknownAgentError` as in `observation_space`."""
        found = self.action_spaces.get(agent)
        if found is None:
            raise self._unknown(agent, "action_space")
        return found

    def _unknown(self, agent: Any, where: str) -> Exception:
        from mafia_arena.env.session import unknown_agent

        return unknown_agent(agent, self.possible_agents, f"{where}()")
