"""Advice features: the fallback player's own choice, appended to a policy's observation.

Why: a policy that sees what the scripted player would do starts from that player's
play and only has to learn where to deviate from it, which takes far fewer samples
than rediscovering its reasoning from the raw observation. The advice is the scripted
player's decision from the deciding seat's own view, so it holds nothing hidden from
that seat. Training (`rl.team_env.TeamEnv` with ``advice``) and play
(`agents.policy.PolicyAgent`, whose fallback gives the advice) build it the same way:
a one-hot over the action ids (egocentric ids when the layout is egocentric). A speech
is advised as the act it was made from (a heuristic speaking turn says its accusation or
claim in words: where the request offers that act, it is the action the learner can
take); the block is all zero when the decision has no action id (free text without an
offered act, or a choice outside the table).
"""

from __future__ import annotations

import numpy as np

from mafia_arena.engine.choices import Decision, Request, Speech
from mafia_arena.env.actions import ActionTable, UnknownChoiceError


def advice_id(
    table: ActionTable, request: Request, decision: Decision, egocentric: bool
) -> int | None:
    """The action id of `decision`, the answer to `request` (relative to the asked
    seat when `egocentric`), or None.

    A `Speech` stands for its act where `request` offers that act as a choice (a
    discussion turn's accusations and claims), so the learner can follow the advice;
    a turn that takes only free text or a pass (Palermo's posts) gets none."""
    choice = decision.act if isinstance(decision, Speech) else decision
    if choice is None or (isinstance(decision, Speech) and choice not in request.choices):
        return None
    try:
        action = table.id_of(choice)
    except UnknownChoiceError:
        return None
    if egocentric:  # `rotation` maps relative ids to absolute ones: invert it
        action = int(np.flatnonzero(table.rotation(request.seat) == action)[0])
    return action


def with_advice(observation: np.ndarray, action: int | None, actions: int) -> np.ndarray:
    """`observation` followed by a one-hot of `action` over `actions` ids."""
    advice = np.zeros(actions, dtype=np.float32)
    if action is not None:
        advice[action] = 1.0
    return np.concatenate([np.asarray(observation, dtype=np.float32), advice])
