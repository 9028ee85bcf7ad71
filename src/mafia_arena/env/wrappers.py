"""Illegal-move policies, kept out of the environments as PettingZoo does.

The raw environments refuse an illegal action (`IllegalActionError`, state unchanged).
`env()` wraps the AEC env in PettingZoo's standard `TerminateIllegalWrapper` (the
mover gets `illegal_reward`, the game stops for everyone), `AssertOutOfBoundsWrapper`
and `OrderEnforcingWrapper` (as `TextOrderEnforcingWrapper`, which adds `step_text`).
`TerminateIllegalParallelWrapper` is the same policy for the Parallel env (PettingZoo
has none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.base import BaseWrapper
from pettingzoo.utils.wrappers.base_parallel import BaseParallelWrapper

from mafia_arena.env.session import IllegalActionError

ILLEGAL_REWARD = -1.0


def wrap_aec(env: AECEnv, illegal_reward: float = ILLEGAL_REWARD) -> AECEnv:
    """The standard PettingZoo policy stack for a board-game-like AEC env."""
    env = TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = AssertOutOfBoundsWrapper(env)
    return TextOrderEnforcingWrapper(env)


# The attributes every step of the AEC loop reads (`last()`, the wrappers' own steps).
# PettingZoo's wrappers find them by `__getattr__`, one failed lookup and a forwarding
# call per wrapper level; they always live on the raw env (the wrappers assign them
# there, through `unwrapped`), so the wrappers below read them there at once.
_STATE = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos")


def _read_raw(name: str, guarded: bool) -> property:
    def get(self: Any) -> Any:
        if guarded and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"The raw env's `{name}` (read there directly).")


class _RawState:
    """Reads the loop's state attributes from the raw env (see `_STATE`)."""

    _guarded = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _STATE:
            setattr(cls, name, _read_raw(name, cls._guarded))
        cls._cumulative_rewards = _read_raw("_cumulative_rewards", False)  # type: ignore[attr-defined]

    def _bind_raw(self, env: AECEnv) -> None:
        self._raw = env.unwrapped


class TerminateIllegalWrapper(_RawState, wrappers.TerminateIllegalWrapper):
    """PettingZoo's `TerminateIllegalWrapper`, reading the state from the raw env."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        self._bind_raw(env)
        super().__init__(env, illegal_reward)


class AssertOutOfBoundsWrapper(_RawState, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's `AssertOutOfBoundsWrapper`, reading the state from the raw env."""

    def __init__(self, env: AECEnv) -> None:
        self._bind_raw(env)
        super().__init__(env)


class TextOrderEnforcingWrapper(_RawState, wrappers.OrderEnforcingWrapper):
    """`OrderEnforcingWrapper` that also passes `step_text` through the policy stack.

    Free text cannot travel through `step` (the action space is `Discrete`), so
    `step_text` goes to the raw env directly; this keeps the wrappers' bookkeeping right
    on the way: the order enforcer counts it as a step, and the illegal-move wrapper
    drops the mask it saw (the next `step` observes afresh) and refuses text once it has
    ended the game. The state attributes are read from the raw env, and (as PettingZoo's
    order enforcer does) refused before the first `reset`."""

    _guarded = True

    def __init__(self, env: AECEnv) -> None:
        self._bind_raw(env)
        super().__init__(env)

    def step_text(self, text: str) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        inner: Any = self.env
        while isinstance(inner, BaseWrapper):
            if isinstance(inner, wrappers.TerminateIllegalWrapper):
                if inner._terminated:
                    raise IllegalActionError("the game was ended by an illegal move")
                inner._prev_obs = inner._prev_info = None
            inner = inner.env
        inner.step_text(text)
        self._has_updated = True


class TerminateIllegalParallelWrapper(BaseParallelWrapper):
    """An illegal action by a pending seat ends the game: `illegal_reward` for every
    offender, 0 for the others, everyone terminated and truncated (as
    `TerminateIllegalWrapper` does in AEC). Actions of seats with nothing to decide are
    ignored, never judged."""

    def __init__(self, env: ParallelEnv, illegal_reward: float = ILLEGAL_REWARD) -> None:
        super().__init__(env)
        self.illegal_reward = float(illegal_reward)

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        raw = self.env.unwrapped
        offenders = []
        if raw.agents:
            for seat in raw.session.pending_seats():
                try:
                    raw.check_action(seat, actions)
                except IllegalActionError:
                    offenders.append(raw.possible_agents[seat])
        if not offenders:
            return self.env.step(actions)
        EnvLogger.warn_on_illegal_move()
        live = list(raw.agents)
        observations = {a: raw.session.observe(s) for s, a in enumerate(live)}
        infos = {a: raw.session.info(s) for s, a in enumerate(live)}
        rewards = {a: self.illegal_reward if a in offenders else 0.0 for a in live}
        raw.agents = []
        return (observations, rewards, dict.fromkeys(live, True), dict.fromkeys(live, True), infos)
