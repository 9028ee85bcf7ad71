"""PettingZoo environments for every variant in `envs/`.

- `raw_env(variant="standard", players=7, overrides=None, render_mode=None,
  max_text=None)`: the AEC env; `env(...)` is it wrapped in the standard policies
  (terminate on an illegal move with reward -1, refuse ids outside the action table,
  enforce reset-before-step).
- what no env plays or scores, whatever its policy (`NotAMoveError`, an
  `IllegalActionError`, nothing changed): a value that is no integer id
  (`NotAnActionError`), an id outside the table (`ActionOutOfRangeError`), a speech
  over the turn's ``max_chars`` (`SpeechTooLongError`); a name that is no agent is
  `UnknownAgentError`.
- observation layouts: ``observation="v0"`` (default, `views.encode`) or
  ``observation="history"`` with ``history_days``, ``egocentric`` and ``max_players``
  (`views.encode_history`); ``env.metadata["observation"]`` names the layout, its
  version and size; ``state()`` is the omniscient encoding for centralised critics.
- `raw_parallel_env(...)` / `parallel_env(...)`: the Parallel env, unwrapped / with the
  same terminate-on-illegal policy.
- `MafiaVectorEnv(variant, players, num_envs)` (`mafia_arena.env.vector`): many games
  stepped together for RL, a Gymnasium `VectorEnv` with stacked observations and masks,
  one row per game showing the seat to act, automatic reset, seeded per game, in any
  of the observation layouts.
- `mafia_<variant>_v0` (e.g. ``from mafia_arena.env import mafia_classic_v0``): the
  same entry points bound to one variant.

Spaces: `Dict(observation=Box(0, 1, (D,), float32), action_mask=Box(0, 1, (K,), int8))`
and `Discrete(K)`; D is the numeric layout of `mafia_arena.views.encode` and K the
action table of `mafia_arena.env.actions` (both documented there, with offsets printed
by `layout.describe()` / `table.describe()`), both fixed by variant and player count.
Rewards: 0 during play; at the end +1 for the winning faction's seats, -1 for the
others, 0 for everyone on a draw (the engine ends over-long games as draws).
`infos[agent]`: ``seat``, ``request`` (kind, prompt, ``choices`` with action ids, keys
and labels, ``free_text``) and ``text`` (the seat's text view), refreshed when the seat
has to decide and for everyone at the end. See `docs/env.md`.

Version history: v0 — first release (observation layout v0, action table v0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from mafia_arena.env.actions import ActionTable, UnknownChoiceError, build_action_table
from mafia_arena.env.aec import raw_env
from mafia_arena.env.parallel import raw_parallel_env
from mafia_arena.env.registry import VariantEnvs, env_names, lookup
from mafia_arena.env.session import (
    ActionOutOfRangeError,
    GameSession,
    IllegalActionError,
    NotAMoveError,
    NotAnActionError,
    SpeechTooLongError,
    UnknownAgentError,
)
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.env.wrappers import ILLEGAL_REWARD, TerminateIllegalParallelWrapper, wrap_aec
from mafia_arena.rules import Variant


def env(
    variant: str | Path | Variant = "standard",
    players: int = 7,
    overrides: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    max_text: int | None = None,
    illegal_reward: float = ILLEGAL_REWARD,
    **observation: Any,
) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (see the module docstring);
    `observation` takes `raw_env`'s layout arguments (``observation="history"``,
    ``history_days``, ``egocentric``, ``max_players``)."""
    return wrap_aec(
        raw_env(variant, players, overrides, render_mode, max_text, **observation), illegal_reward
    )


def parallel_env(
    variant: str | Path | Variant = "standard",
    players: int = 7,
    overrides: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    max_text: int | None = None,
    illegal_reward: float = ILLEGAL_REWARD,
    **observation: Any,
) -> ParallelEnv:
    """The Parallel env with the terminate-on-illegal policy (layout arguments as `env`)."""
    return TerminateIllegalParallelWrapper(
        raw_parallel_env(variant, players, overrides, render_mode, max_text, **observation),
        illegal_reward,
    )


_FACTORIES: dict[str, Callable[..., Any]] = {
    "env": env,
    "raw_env": raw_env,
    "parallel_env": parallel_env,
    "raw_parallel_env": raw_parallel_env,
}


def __getattr__(name: str) -> VariantEnvs:
    """``mafia_<variant>_v0`` for any variant file present in `envs/`."""
    found = lookup(name, _FACTORIES)
    if found is None:
        raise AttributeError(f"module 'mafia_arena.env' has no attribute {name!r}")
    return found


__all__ = [
    "ActionOutOfRangeError",
    "ActionTable",
    "GameSession",
    "IllegalActionError",
    "MafiaVectorEnv",
    "NotAMoveError",
    "NotAnActionError",
    "SpeechTooLongError",
    "TerminateIllegalParallelWrapper",
    "UnknownAgentError",
    "UnknownChoiceError",
    "VariantEnvs",
    "build_action_table",
    "env",
    "env_names",
    "parallel_env",
    "raw_env",
    "raw_parallel_env",
]
