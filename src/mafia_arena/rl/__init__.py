"""Reinforcement learning on the Mafia environments (`docs/rl.md`).

- `team_env.TeamEnv`: a Gymnasium env where one learner answers the request kinds it is
  told to for every seat of one side, while scripted players fill the other decisions
  and seats (no extra dependencies; `action_masks()` for masked policies).
- `train`: train a `MaskablePPO` policy from a spec in `experiments/` (the ``[rl]``
  extra: Stable-Baselines3, sb3-contrib, PyTorch's CPU build), tracked in MLflow, and
  export it as a numpy policy file that `agents.policy.PolicyAgent` plays without torch.
- `evaluate`: win rates of the learner's side over held-out seeded games, with 95%
  intervals, against each opponent of a pool.
"""
