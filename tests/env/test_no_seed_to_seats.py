"""Nothing a seat receives from the envs betrays the game seed.

The seed of `reset(seed=...)` is the trainer's (the host's): it rebuilds the deal. A
seat's observations and infos must hold neither it nor anything a keyless host could
have derived from it and the seat (tests/deal_reader.py tries those derivations).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from tests.deal_reader import keyless_derivations

from mafia_arena.env import parallel_env, raw_env

SEED = 54_321  # a game seed in the candidate range, unlike any count the game shows


def _numbers(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, float) and value.is_integer():
        yield int(value)
    elif isinstance(value, np.ndarray):
        yield from (int(v) for v in value.ravel() if float(v).is_integer())
    elif isinstance(value, dict):
        for key, item in value.items():
            assert "seed" not in str(key).lower(), f"a seat is given {key!r}"
            yield from _numbers(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, str):
        assert str(SEED) not in value, "the game seed appears in a seat's text"


def _assert_nothing_betrays(seat: int, received: set[int]) -> None:
    betraying = set(keyless_derivations(SEED, seat)) & received
    assert betraying == set(), f"seat {seat} receives {sorted(betraying)}"


@pytest.mark.parametrize("variant", ["standard", "club"])
def test_aec_observations_and_infos_hold_no_seed(variant: str) -> None:
    env = raw_env(variant, 8)
    env.reset(seed=SEED)
    received: dict[int, set[int]] = {s: set() for s in range(8)}
    rng = np.random.default_rng(0)
    while env.agents:
        agent = env.agent_selection
        seat = int(agent.split("_")[1])
        observation, _, terminated, truncated, info = env.last()
        received[seat].update(_numbers(observation))
        received[seat].update(_numbers(info))
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    for seat, numbers in received.items():
        _assert_nothing_betrays(seat, numbers)


def test_parallel_observations_and_infos_hold_no_seed() -> None:
    env = parallel_env("standard", 7)
    observations, infos = env.reset(seed=SEED)
    received: dict[int, set[int]] = {s: set() for s in range(7)}
    rng = np.random.default_rng(1)
    while env.agents:
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            received[seat].update(_numbers(observations[agent]))
            received[seat].update(_numbers(infos[agent]))
        actions = {
            a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents
        }
        observations, _, _, _, infos = env.step(actions)
    for seat, numbers in received.items():
        _assert_nothing_betrays(seat, numbers)
