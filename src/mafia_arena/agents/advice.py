"""Advice features: the fallback player's own choice, appended to a policy's observation.

Why: a policy that sees what the scripted player would do starts from that player's
play and only has to learn where to deviate from it, which takes far fewer samples
than rediscovering its reasoning from the raw observation. The advice is the scripted
player's decision from the deciding seat's own view, so it holds nothing hidden from
that seat. Training (`rl.team_env.TeamEnv` with ``advice``) and play
(`agents.policy.PolicyAgent`, whose fallback gives the advice) build it the same way:
a one-hot over the action ids (egocentric ids when the layout is egocentric), all zero
when the decision is not in the action table (free text).
"""

from __future__ import annotations

import numpy as np

from mafia_arena.engine.choices import Choice, Decision
from mafia_arena.env.actions import ActionTable, UnknownChoiceError


def advice_id(table: ActionTable, seat: int, decision: Decision, egocentric: bool) -> int | None:
    """The action id of `decision` for `seat` (relative when `egocentric`), or None."""
    if not isinstance(decision, Choice):
        return None
    try:
        action = table.id_of(decision)
    except UnknownChoiceError:
        return None
    if egocentric:  # `rotation` maps relative ids to absolute ones: invert it
        action = int(np.flatnonzero(table.rotation(seat) == action)[0])
    return action


def with_advice(observation: np.ndarray, action: int | None, actions: int) -> np.ndarray:
    """`observation` followed by a one-hot of `action` over `actions` ids."""
    advice = np.zeros(actions, dtype=np.float32)
    if action is not None:
        advice[action] = 1.0
    return np.concatenate([np.asarray(observation, dtype=np.float32), advice])
