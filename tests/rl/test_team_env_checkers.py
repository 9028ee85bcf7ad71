"""`TeamEnv` under the checkers a Stable-Baselines3 user runs first, beyond the default
setup that `test_team_env.py` checks: every variant's smallest table, both layouts,
advice, and both sides; and a seeded `DummyVecEnv` that rolls out the same twice.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import DummyVecEnv

from mafia_arena.rl.team_env import TeamEnv, TeamSetup
from mafia_arena.rules import available_variants, load_variant


def with_history(setup: TeamSetup) -> TeamSetup:
    """`setup` on the egocentric `history` layout, two day slots."""
    return dataclasses.replace(setup, observation="history", history_days=2, egocentric=True)


def smallest(variant: str, side: str, advice: bool) -> TeamSetup:
    """Every decision of `side` at the variant's smallest table (simple at 4: at 3 the
    town is beaten in the first night and never asked); with advice on `history`."""
    players = load_variant(variant).min_players + (1 if variant == "simple" else 0)
    setup = TeamSetup(
        variant,
        players,
        side=side,
        kinds=("*",),
        opponents=("heuristic", "random"),
        advice=advice,
    )
    return with_history(setup) if advice else setup


SETUPS = [
    pytest.param(
        smallest(variant, side, advice),
        id=f"{variant}-{side}-{'history-advice' if advice else 'v0'}",
    )
    for variant in sorted(available_variants())
    for side, advice in (("town", True), ("mafia", False))
]


@pytest.mark.parametrize("setup", SETUPS)
def test_both_env_checkers_pass(setup: TeamSetup) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 suggests normalising a [0, 1] Box
        sb3_check_env(TeamEnv(setup, seed=0))
    gymnasium_check_env(TeamEnv(setup, seed=0), skip_render_check=True)


@pytest.mark.parametrize("setup", SETUPS)
def test_whole_episodes_stay_in_the_declared_space(setup: TeamSetup) -> None:
    env = TeamEnv(setup, seed=1)
    rng = np.random.default_rng(1)
    obs, info = env.reset()
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        mask = env.action_masks()
        assert mask.any(), f"seat {info['seat']} is asked with no legal action"
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert "illegal" not in info
    assert env.observation_space.contains(obs)


def masked_rollout(vec: DummyVecEnv, steps: int) -> list[bytes]:
    """Observations, rewards and dones of `steps` random masked steps, as bytes."""
    rng = np.random.default_rng(0)
    trace = [np.asarray(vec.reset()).tobytes()]
    for _ in range(steps):
        masks = get_action_masks(vec)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, _ = vec.step(actions)
        trace += [np.asarray(obs).tobytes(), rewards.tobytes(), dones.tobytes()]
    return trace


def test_a_seeded_vec_env_rolls_out_the_same_twice() -> None:
    """Two `DummyVecEnv`s of seeded envs, and one env re-seeded through `VecEnv.seed`
    (as `MaskablePPO(seed=...)` does), replay the same games, episode ends included."""
    setup = with_history(TeamSetup(kinds=("*",), opponents=("heuristic", "random")))

    def seeded(seed: int) -> Callable[[], TeamEnv]:
        return lambda: TeamEnv(setup, seed=seed)

    def make() -> DummyVecEnv:
        return DummyVecEnv([seeded(i) for i in range(2)])

    first = masked_rollout(make(), 120)
    assert first == masked_rollout(make(), 120)
    vec = make()
    vec.seed(7)
    reseeded = masked_rollout(vec, 120)
    vec.seed(7)
    assert reseeded == masked_rollout(vec, 120)
    assert reseeded != first
