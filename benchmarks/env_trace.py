"""Digests of the envs' full step traces over seeded games, to show a speed-up changed
nothing a seat or a trainer can see.

For each setting (AEC and Parallel, several variants, text on and off, the history
observation egocentric) it plays seeded games with random legal actions (the action
generator seeded per game) and hashes, at every step, the agent order, every observation
array (dtype, shape, bytes), the action mask, the selected agent's info (as sorted JSON:
text, request, choice rows, result), rewards, terminations and truncations. Equal digests
before and after a change: the traces are identical.

    python benchmarks/env_trace.py [--games 100] > before.txt
    ... change the envs ...
    python benchmarks/env_trace.py [--games 100] | diff before.txt -
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from mafia_arena import env as mafia_env

Hasher = Any  # hashlib's hash object


def _obs(hasher: Hasher, obs: dict[str, np.ndarray]) -> None:
    for key in sorted(obs):
        array = np.asarray(obs[key])
        hasher.update(f"{key}{array.dtype}{array.shape}".encode())
        hasher.update(array.tobytes())


def _info(hasher: Hasher, info: dict[str, Any]) -> None:
    hasher.update(json.dumps(info, sort_keys=True, default=repr).encode())


def aec_trace(variant: str, players: int, games: int, hasher: Hasher, **kwargs: Any) -> None:
    """The AEC loop, `last()` at every step (the dead-step of every agent at the end too)."""
    env = mafia_env.env(variant, players, **kwargs)
    for seed in range(games):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            hasher.update(f"{agent}{reward}{term}{trunc}".encode())
            _obs(hasher, obs)
            _info(hasher, info)
            hasher.update(repr(sorted(env.rewards.items())).encode())
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))


def parallel_trace(variant: str, players: int, games: int, hasher: Hasher, **kwargs: Any) -> None:
    """The Parallel loop: every seat's observation and info at every step."""
    env = mafia_env.parallel_env(variant, players, **kwargs)
    for seed in range(games):
        rng = np.random.default_rng(seed)
        observations, infos = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for agent in sorted(observations):
                obs = observations[agent]
                hasher.update(agent.encode())
                _obs(hasher, obs)
                _info(hasher, infos[agent])
                legal = np.flatnonzero(obs["action_mask"])
                actions[agent] = int(legal[rng.integers(len(legal))])
            observations, rewards, terms, truncs, infos = env.step(actions)
            hasher.update(repr([sorted(d.items()) for d in (rewards, terms, truncs)]).encode())
        for agent in sorted(infos):
            _info(hasher, infos[agent])


Trace = Callable[..., None]
SETTINGS: list[tuple[str, Trace, str, int, dict[str, Any], int]] = [
    # name, loop, variant, players, env arguments, share of --games (divisor)
    ("aec standard/10", aec_trace, "standard", 10, {}, 1),
    ("aec classic/10", aec_trace, "classic", 10, {}, 1),
    ("aec simple/7", aec_trace, "simple", 7, {}, 1),
    (
        "aec standard/10 history egocentric max_text=300",
        aec_trace,
        "standard",
        10,
        {"observation": "history", "egocentric": True, "max_text": 300},
        1,
    ),
    ("aec classic/10 max_text=0", aec_trace, "classic", 10, {"max_text": 0}, 1),
    ("parallel standard/10", parallel_trace, "standard", 10, {}, 1),
    (
        "parallel classic/10 history egocentric",
        parallel_trace,
        "classic",
        10,
        {"observation": "history", "egocentric": True},
        1,
    ),
    ("parallel club/12", parallel_trace, "club", 12, {}, 3),
    ("aec club/12", aec_trace, "club", 12, {}, 3),
    ("parallel palermo/12", parallel_trace, "palermo", 12, {}, 3),
    ("aec palermo/12", aec_trace, "palermo", 12, {}, 3),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per setting")
    args = parser.parse_args()
    for name, trace, variant, players, kwargs, share in SETTINGS:
        hasher = hashlib.sha256()
        trace(variant, players, max(args.games // share, 1), hasher, **kwargs)
        print(f"{name}: {hasher.hexdigest()[:16]}", flush=True)


if __name__ == "__main__":
    main()
