"""Gymnasium's single-env wrappers on `TeamEnv`, as docs/rl.md (*Gymnasium's wrappers
on the team env*) lists them: each wrapper of its table is built and played here with
the verdict its row gives (works, and passes `check_env`; works, with running
statistics that `check_env` cannot replay; runs but replays or delays against the
mask; refused), and the section's recipe runs as written.

Why: the Box observation and the mask outside it are what let these wrappers apply at
all (the PettingZoo envs' `Dict` makes `NormalizeObservation` fail with an
`AxisError`), and a user reaches for them first; the table says which are safe."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import wrappers
from gymnasium.utils.env_checker import check_env

from mafia_arena.rl.team_env import TeamEnv, TeamSetup

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
HEADING = "### Gymnasium's wrappers on the team env"
SETUP = TeamSetup(kinds=("*",), opponents=("heuristic", "random"))
"""Every town decision: the seat that decides changes between steps, as does its mask."""

Wrap = Callable[[gym.Env[Any, Any]], gym.Env[Any, Any]]
WRAPPERS: dict[str, Wrap] = {
    "FlattenObservation": wrappers.FlattenObservation,
    "FrameStackObservation": lambda e: wrappers.FrameStackObservation(e, 3),
    "DtypeObservation": lambda e: wrappers.DtypeObservation(e, np.float64),
    "RescaleObservation": lambda e: wrappers.RescaleObservation(e, np.float32(-1), np.float32(1)),
    "ReshapeObservation": lambda e: wrappers.ReshapeObservation(
        e,
        (1, *e.observation_space.shape),  # type: ignore[misc]
    ),
    "TransformObservation": lambda e: wrappers.TransformObservation(
        e, lambda o: 1.0 - o, e.observation_space
    ),
    "ClipReward": lambda e: wrappers.ClipReward(e, -0.5, 0.5),
    "TimeLimit": lambda e: wrappers.TimeLimit(e, 20),
    "PassiveEnvChecker": wrappers.PassiveEnvChecker,
    "OrderEnforcing": wrappers.OrderEnforcing,
    "NormalizeObservation": wrappers.NormalizeObservation,
    "NormalizeReward": wrappers.NormalizeReward,
    "RecordEpisodeStatistics": wrappers.RecordEpisodeStatistics,
    "StickyAction": lambda e: wrappers.StickyAction(e, 0.9),
    "MaxAndSkipObservation": lambda e: wrappers.MaxAndSkipObservation(e, 2),
    "DelayObservation": lambda e: wrappers.DelayObservation(e, 1),
    "ClipAction": wrappers.ClipAction,
    "RescaleAction": lambda e: wrappers.RescaleAction(e, np.float32(-1), np.float32(1)),
    "TimeAwareObservation": wrappers.TimeAwareObservation,
}
"""Each wrapper of the doc's table, built as a user would build it on `TeamEnv`."""


def table() -> dict[str, str]:
    """The doc table's verdict (its second column) per wrapper named in the first."""
    section = DOC.read_text().split(HEADING, 1)[1].split("\n#", 1)[0]
    verdicts = {}
    for row in re.findall(r"^\| (`.*?) \| (.*) \|$", section, re.M):
        for name in re.findall(r"`(\w+)`", row[0]):
            verdicts[name] = row[1]
    return verdicts


def rows(start: str) -> list[str]:
    return [name for name, verdict in table().items() if verdict.startswith(start)]


def play(env: gym.Env[Any, Any], steps: int = 200) -> list[dict[str, Any]]:
    """`steps` random legal decisions (by the env's own mask, read through the
    wrappers), checking every observation against the wrapped space; the final infos."""
    masks = env.get_wrapper_attr("action_masks")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    ends = []
    for _ in range(steps):
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(masks())))
        if terminated or truncated:
            ends.append(info)
            obs, _ = env.reset()
    return ends


def test_the_table_lists_each_wrapper_tested_here() -> None:
    assert set(table()) == set(WRAPPERS)


@pytest.mark.parametrize("name", rows("work, and"))
def test_plain_wrappers_play_legally_and_pass_check_env(name: str) -> None:
    ends = play(WRAPPERS[name](TeamEnv(SETUP, seed=0)))
    assert ends and not any("illegal" in info for info in ends)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(WRAPPERS[name](TeamEnv(SETUP, seed=0)), skip_render_check=True)


@pytest.mark.parametrize("name", rows("work; they keep running statistics"))
def test_statistics_wrappers_play_legally(name: str) -> None:
    ends = play(WRAPPERS[name](TeamEnv(SETUP, seed=0)))
    assert ends and not any("illegal" in info for info in ends)


def test_check_env_cannot_replay_a_running_mean_but_passes_the_bare_env() -> None:
    """What the table's advice (check the bare env) rests on: the same seed and
    action give other observations once `NormalizeObservation` has seen the first."""
    with warnings.catch_warnings(), pytest.raises(AssertionError, match="not equivalent"):
        warnings.simplefilter("ignore")
        check_env(WRAPPERS["NormalizeObservation"](TeamEnv(SETUP, seed=0)), skip_render_check=True)
    check_env(TeamEnv(SETUP, seed=0), skip_render_check=True)


@pytest.mark.parametrize("name", ["StickyAction", "MaxAndSkipObservation"])
def test_action_replaying_wrappers_end_episodes_on_illegal_moves(name: str) -> None:
    assert name in rows("run, but do not use them")
    ends = play(WRAPPERS[name](TeamEnv(SETUP, seed=0)), steps=300)
    assert any("illegal" in info for info in ends)


def test_the_delayed_observation_is_the_previous_decisions() -> None:
    assert "DelayObservation" in rows("run, but do not use them")
    env = WRAPPERS["DelayObservation"](TeamEnv(SETUP, seed=0))
    bare = TeamEnv(SETUP, seed=0)
    first, _ = bare.reset(seed=0)
    env.reset(seed=0)
    action = int(np.flatnonzero(bare.action_masks())[0])
    shown, *_ = env.step(action)
    bare.step(action)
    assert np.array_equal(shown, first)


@pytest.mark.parametrize("name", rows("refused"))
def test_refused_wrappers_say_so_when_built(name: str) -> None:
    with pytest.raises((TypeError, ValueError)):
        WRAPPERS[name](TeamEnv(SETUP, seed=0))


def test_the_documented_wrapper_recipe_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    section = DOC.read_text().split(HEADING, 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the section has a python snippet"
    namespace: dict[str, Any] = {}
    exec(compile(found.group(1), str(DOC), "exec"), namespace)
    env, obs = namespace["env"], namespace["obs"]
    assert namespace["episodes"] == 2
    assert obs.shape == (4, env.unwrapped.observation_size)
    assert env.observation_space.contains(obs)
    assert capsys.readouterr().out.strip().endswith(f"(4, {env.unwrapped.observation_size})")
