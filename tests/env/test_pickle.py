"""Mid-game pickling: the env rebuilds its game by replaying the decisions."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from tests.env.env_cases import SMALL_CASES

from mafia_arena import env as mafia_env


def _same(a: object, b: object) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, tuple | list):
        assert isinstance(b, tuple | list) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_aec_pickle_round_trip_mid_game(variant: str, players: int) -> None:
    env = mafia_env.env(variant, players)
    env.reset(seed=21)
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if env.unwrapped.session.over:
            break
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.session.game.events == env.unwrapped.session.game.events
    rngs = [np.random.default_rng(1), np.random.default_rng(1)]
    for a1, a2 in zip(env.agent_iter(2000), copy.agent_iter(2000), strict=False):
        assert a1 == a2
        last1, last2 = env.last(), copy.last()
        _same(last1, last2)
        if last1[2] or last1[3]:
            env.step(None)
            copy.step(None)
            continue
        env.step(int(rngs[0].choice(np.flatnonzero(last1[0]["action_mask"]))))
        copy.step(int(rngs[1].choice(np.flatnonzero(last2[0]["action_mask"]))))
    assert env.agents == copy.agents == []


def test_parallel_pickle_round_trip_mid_game() -> None:
    env = mafia_env.parallel_env("classic", 8)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, *_ = env.step(
            {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        )
    copy = pickle.loads(pickle.dumps(env))
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        out1, out2 = env.step(actions), copy.step(actions)
        for x, y in zip(out1, out2, strict=True):
            _same(x, y)
        obs = out1[0]
    assert copy.agents == []


def test_pickle_before_reset() -> None:
    env = pickle.loads(pickle.dumps(mafia_env.raw_env("simple", 5)))
    env.reset(seed=0)
    assert env.agent_selection in env.agents
