"""A warm start for PPO: imitate the co-player's decisions before learning from rewards.

Why: a policy trained from scratch spends most of its samples rediscovering what the
scripted co-player already does (vote the checked mafioso, follow a credible claim). A
few thousand of the co-player's games, recorded from the learner's seats, give a
supervised start at the co-player's level; PPO then only has to learn where the
co-player is wrong (a lying mafia, a random one). The co-player decides from the seat's
own view, so the demonstrations carry no hidden information.

- `demonstrations(setup, games, seed)`: observation, mask, the co-player's action id and
  the game's final reward for the learner's side, for every learner decision of `games`
  seeded games (the rewards train the value head, so the critic starts calibrated too).
- `pretrain(policy, demos, ...)`: cross-entropy on the masked actions (optionally
  label-smoothed) plus squared error
  of the value on the final reward, on a `MaskablePPO` policy in place (needs the
  ``[rl]`` extra); returns how often the policy's greedy action matches the teacher's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mafia_arena.rl.team_env import TeamEnv, TeamSetup


@dataclass
class Demonstrations:
    """One row per learner decision: what the seat saw, could do, and the teacher did."""

    observations: np.ndarray  # (N, D) float32
    masks: np.ndarray  # (N, K) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32: the final reward of the game the row is from

    def __len__(self) -> int:
        return len(self.actions)


def demonstrations(setup: TeamSetup, games: int, seed: int) -> Demonstrations:
    """The co-player's decisions at the learner's turns over `games` seeded games.

    A turn where the co-player's answer has no action id (`TeamEnv.teacher_action` is
    None: free text without an act, where the request's only choice is to pass) is no
    demonstration; the env is stepped with its first legal action and plays on.

    The env is seeded with `seed`, so the games (and their opponents, drawn from the
    pool) are the same on every run; use a seed away from the evaluation's held-out
    seeds (`rl.evaluate.HELD_OUT_SEED`).
    """
    env = TeamEnv(setup, seed=seed)
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    for _ in range(games):
        obs, _ = env.reset()
        start = len(actions)
        done = False
        reward = 0.0
        while not done:
            action = env.teacher_action()
            mask = env.action_masks()
            if action is None:
                obs, reward, done, _, _ = env.step(int(np.flatnonzero(mask)[0]))
                continue
            observations.append(np.array(obs, dtype=np.float32))
            masks.append(mask.copy())
            actions.append(action)
            obs, reward, done, _, _ = env.step(action)
        returns.extend([float(reward)] * (len(actions) - start))
    return Demonstrations(
        np.stack(observations),
        np.stack(masks).astype(bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
    )


def pretrain(
    policy: Any,
    demos: Demonstrations,
    *,
    epochs: int,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    smoothing: float = 0.0,
    seed: int = 0,
) -> float:
    """Fit `policy` (a `MaskableActorCriticPolicy`) to `demos`; the greedy match rate.

    `smoothing` moves that share of the target from the teacher's action to all legal
    actions alike (label smoothing): the copy keeps the teacher's greedy choices but
    leaves PPO room to explore, where an exact copy would sample nothing else and learn
    nothing more. Minibatches are shuffled by a generator seeded with `seed`, so a seeded run is
    repeatable. The optimiser is a fresh Adam, not the policy's own, so PPO starts
    with clean moment estimates.
    """
    import torch

    device = policy.device
    obs = torch.as_tensor(demos.observations, device=device)
    masks = torch.as_tensor(demos.masks, device=device)
    actions = torch.as_tensor(demos.actions, device=device)
    returns = torch.as_tensor(demos.returns, device=device)
    optimiser = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(len(demos)), device=device)
        for start in range(0, len(demos), batch_size):
            index = order[start : start + batch_size]
            legal = masks[index]
            log_probs = policy.get_distribution(obs[index], action_masks=legal).distribution.logits
            chosen = log_probs.gather(1, actions[index, None]).squeeze(1)
            spread = (log_probs * legal).sum(1) / legal.sum(1)  # mean over the legal actions
            imitation = -((1.0 - smoothing) * chosen + smoothing * spread).mean()
            values = policy.predict_values(obs[index]).flatten()
            loss = imitation + value_coef * torch.mean((values - returns[index]) ** 2)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        distribution = policy.get_distribution(obs, action_masks=masks.cpu().numpy())
        greedy = distribution.get_actions(deterministic=True)
    return float((greedy == actions).float().mean())
