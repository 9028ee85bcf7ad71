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
from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.base import BaseWrapper
from pettingzoo.utils.wrappers.base_parallel import BaseParallelWrapper

from mafia_arena.env.session import (
    IllegalActionError,
    NotAMoveError,
    action_index,
    integer_action,
    out_of_range,
    reward_setting,
)

ILLEGAL_REWARD = -1.0


def wrap_aec(env: AECEnv, illegal_reward: float = ILLEGAL_REWARD) -> AECEnv:
    """The standard PettingZoo policy stack for a board-game-like AEC env."""
    env = TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = AssertOutOfBoundsWrapper(env)
    return TextOrderEnforcingWrapper(env)


# The attributes every step of the AEC loop reads (`last()`, the wrappers' own steps).
# PettingZoo's wrappers find them by `__getattr__`, one failed lookup and a forwarding
# call per wrapper level; they always live on the raw env (the wrappers assign them
# there, through `unwrapped`), so the wrappers below read them there at once, each
# through one C-level `attrgetter` (about twenty reads a step).
_STATE = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos")


class _BeforeReset:
    """What the order enforcer reads the state from until its first `reset`: every
    attribute is refused, as PettingZoo's `OrderEnforcingWrapper` refuses them."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name} cannot be accessed before reset")


def _read_raw(name: str, source: str) -> property:
    return property(attrgetter(f"{source}.{name}"), doc=f"The raw env's `{name}`.")


class _RawState:
    """Reads the loop's state attributes from the raw env (see `_STATE`)."""

    _guarded = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _STATE:
            setattr(cls, name, _read_raw(name, "_state" if cls._guarded else "_raw"))
        cls._cumulative_rewards = _read_raw("_cumulative_rewards", "_raw")  # type: ignore[attr-defined]

    def _bind_raw(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        self._state: Any = self._raw if not self._guarded else _BeforeReset()


def live_integer(raw: Any, agent: str, action: Any) -> int | None:
    """`action` as an action id of the table. Where the agent is done (PettingZoo's
    `None` step) or the game is over or not dealt (the raw env says which) the value
    is not judged: its id, or None for a value that is none. For a live agent of a
    game still on, anything that is no integer id is `NotAnActionError`, and an id
    outside the table (negative, or at least its size) `ActionOutOfRangeError`: no
    move to score, and no id to look up in the mask (-1 would read its last entry, K
    fail as numpy's ``IndexError``)."""
    index = action_index(action)
    size = raw.session.table.size
    if index is not None and 0 <= index < size:
        return index
    if not raw.agents or raw.session.game is None:
        return index
    if raw.terminations.get(agent) or raw.truncations.get(agent):
        return index
    if index is None:
        return integer_action(agent, action)  # raises: no integer id
    raise out_of_range(agent, index, size)


class TerminateIllegalWrapper(_RawState, wrappers.TerminateIllegalWrapper):
    """PettingZoo's `TerminateIllegalWrapper`, reading the state from the raw env.

    `observe` keeps the selected agent's observation and info for the next `step`'s
    legality check, as PettingZoo's does, and `step` lets a legal action through, both
    without the extra hop through the base wrapper and with the state read once from
    the raw env (the standard loop calls both at every step)."""

    _prev_obs: Any
    _prev_info: Any

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        self._bind_raw(env)
        super().__init__(env, reward_setting("illegal_reward", illegal_reward))
        self._actions = self._raw.session.table.size

    def step(self, action: Any) -> None:
        """A legal action of a live agent, judged on the mask of the observation it was
        given, goes straight to the wrapped env; everything else (no observation seen
        yet, a finished agent, an illegal action, after an illegal end) takes
        PettingZoo's path, which ends the game on an illegal action. An integer action
        (a bool included, as the raw env and Gymnasium's `Discrete` take it) is judged
        by the mask entry of its id: indexing the mask with a bool would select, not
        look up. A value that is no integer id at all, or an id outside the table, for
        a live agent of a game still on, raises `NotAnActionError` or
        `ActionOutOfRangeError` with nothing changed (`live_integer`): it is the
        caller's bug, not a move to score."""
        raw = self._raw
        agent = raw.agent_selection
        seen = self._prev_obs
        index = (
            action
            if type(action) is int and 0 <= action < self._actions
            else live_integer(raw, agent, action)
        )
        if (
            type(seen) is dict
            and index is not None
            and not self._terminated
            and not raw.terminations[agent]
            and not raw.truncations[agent]
            and seen["action_mask"][index]
        ):
            self._prev_obs = self._prev_info = None
            self.env.step(action)
            return
        super().step(action if index is None else index)

    def observe(self, agent: str) -> Any:
        observation = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = observation
            self._prev_info = raw.infos.get(agent, {})
        return observation


class AssertOutOfBoundsWrapper(_RawState, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's `AssertOutOfBoundsWrapper`, reading the state from the raw env.

    A plain `int` inside the action range passes without asking the space: every
    agent's space is the same `Discrete(n)` from 0, and its `contains` (numpy checks
    for any integer type) cost more than the rest of a waiting step. Anything else
    goes through PettingZoo's check as before."""

    def __init__(self, env: AECEnv) -> None:
        self._bind_raw(env)
        super().__init__(env)
        self._actions = self._raw.session.table.size

    def step(self, action: Any) -> None:
        """A value that is no integer id at all, or an integer outside the table, for a
        live agent raises `NotAnActionError` or `ActionOutOfRangeError` naming the
        agent and the value (and the valid ids) (`live_integer`), as every env of the
        package does; PettingZoo's bare ``AssertionError`` ("action is not in action
        space") is left for an action given to an agent that is done."""
        if type(action) is int and 0 <= action < self._actions:
            self.env.step(action)
        else:
            live_integer(self._raw, self._raw.agent_selection, action)
            super().step(action)


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

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._state = self._raw
        super().reset(seed=seed, options=options)

    # `step`, `observe` and `last` do what PettingZoo's order enforcer and `AECEnv.last`
    # do (refuse before the first reset, warn on a step after the end), calling the
    # wrapped env at once instead of through the base wrapper's forwarding methods, and
    # reading the state from the raw env: the standard loop calls them at every step.
    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if self._raw.agents:
            self.env.step(action)
        else:
            EnvLogger.warn_step_after_terminated_truncated()

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection  # refused before the first reset
        observation = self.observe(agent) if observe else None
        raw = self._raw
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

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
    ignored, never judged. A pending seat's value that is no move at all is raised,
    nothing changed, as `env()` and the raw envs raise it (`NotAMoveError`): no integer
    id (nor text), an id outside the action table, text over the turn's ``max_chars``."""

    def __init__(self, env: ParallelEnv, illegal_reward: float = ILLEGAL_REWARD) -> None:
        super().__init__(env)
        self.illegal_reward = reward_setting("illegal_reward", illegal_reward)

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        raw = self.env.unwrapped
        raw.check_agents(actions)
        offenders = []
        if raw.agents:
            for seat in raw.session.pending_seats():
                try:
                    raw.check_action(seat, actions)
                except NotAMoveError:
                    raise  # the caller's bug, not a move: nothing changed
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
