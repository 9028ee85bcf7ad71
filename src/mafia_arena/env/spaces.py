"""Names and spaces shared by the AEC and Parallel envs.

One `Dict(observation=Box, action_mask=Box[int8])` and one `Discrete(K)` per agent,
built once per env and returned as the same objects on every call (PettingZoo seeds
spaces per agent, so each agent owns its objects).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from mafia_arena.rules import Variant

ENV_VERSION = 0


def env_name(variant: Variant) -> str:
    """The versioned public name, e.g. ``mafia_standard_v0``."""
    return f"mafia_{variant.name}_v{ENV_VERSION}"


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def build_spaces(agents: list[str], observation_size: int, actions: int
                 ) -> tuple[dict[str, spaces.Dict], dict[str, spaces.Discrete]]:
    observation = {
        a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (observation_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), dtype=np.int8),
        })
        for a in agents
    }
    action = {a: spaces.Discrete(actions) for a in agents}
    return observation, action
