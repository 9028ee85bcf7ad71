"""Writing into a returned observation never changes a later one.

The envs keep a seat's observation arrays while its view is unchanged and hand the same
arrays out again (`GameSession.observe`). A caller that writes into one in place (a
normalising wrapper, a preprocessing step, a user's ``obs["observation"] *= 2``) would
then see the written values again as a later observation of that seat, or of a seat that
shares the mask. So the env hands the kept arrays out read-only: the write is refused
where it is made. These tests play each env twice with the same seed and actions, once
writing into every array it returns (where the write is allowed) and once not, and
compare what the two runs observed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mafia_arena import env as mafia_env
from mafia_arena.env import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv, TeamSetup

LAYOUTS: list[dict[str, Any]] = [
    {},
    {"observation": "history", "history_days": 2, "egocentric": True},
]
LAYOUT_IDS = ["v0", "history-egocentric"]
CASES = [("simple", 5), ("standard", 7), ("classic", 7)]
STEPS = 400


def scribble(array: np.ndarray) -> bool:
    """Write garbage into `array` in place, as a careless caller would; False where
    the array refuses the write (read-only)."""
    try:
        array[...] = 7
    except ValueError:
        return False
    return True


def scribble_obs(obs: dict[str, np.ndarray]) -> None:
    for array in obs.values():
        scribble(array)


def kept(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A copy of `obs` to compare later."""
    return {key: np.array(value) for key, value in obs.items()}


def assert_same_trace(clean: list[Any], written: list[Any]) -> None:
    assert len(clean) == len(written)
    for step, (a, b) in enumerate(zip(clean, written, strict=True)):
        if isinstance(a, dict):
            assert a.keys() == b.keys(), f"step {step}"
            for key in a:
                np.testing.assert_array_equal(a[key], b[key], err_msg=f"step {step}: {key}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"step {step}")


def aec_trace(make: Callable[[], Any], write: bool) -> list[Any]:
    """Every observation of every seat, the state and the selected seat's `last()` at
    every step of one seeded game; with `write`, each written into once read."""
    env = make()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    trace: list[Any] = []
    for _, agent in zip(range(STEPS), env.agent_iter(), strict=False):
        obs, _, terminated, truncated, _ = env.last()
        trace.append(kept(obs))
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append(env.state().copy())
        for other in env.possible_agents:
            trace.append(kept(env.observe(other)))
        if write:
            scribble_obs(obs)
            scribble(env.state())
            for other in env.possible_agents:
                scribble_obs(env.observe(other))
        trace.append(agent)
        env.step(action)
    return trace


def parallel_trace(make: Callable[[], Any], write: bool) -> list[Any]:
    """Every observation and the state at every step of one seeded game."""
    env = make()
    observations, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    trace: list[Any] = []
    for _ in range(STEPS):
        if not env.agents:
            break
        trace += [kept(observations[a]) for a in env.agents]
        trace.append(env.state().copy())
        actions = {
            a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents
        }
        if write:
            for obs in observations.values():
                scribble_obs(obs)
            scribble(env.state())
        observations, *_ = env.step(actions)
    return trace


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("factory", [mafia_env.env, mafia_env.raw_env])
def test_writing_into_aec_observations_changes_no_later_one(
    factory: Callable[..., Any], variant: str, players: int, layout: dict[str, Any]
) -> None:
    def make() -> Any:
        return factory(variant, players, max_text=0, **layout)

    assert_same_trace(aec_trace(make, write=False), aec_trace(make, write=True))


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("factory", [mafia_env.parallel_env, mafia_env.raw_parallel_env])
def test_writing_into_parallel_observations_changes_no_later_one(
    factory: Callable[..., Any], variant: str, players: int, layout: dict[str, Any]
) -> None:
    def make() -> Any:
        return factory(variant, players, max_text=0, **layout)

    assert_same_trace(parallel_trace(make, write=False), parallel_trace(make, write=True))


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_the_envs_hand_out_their_kept_arrays_read_only(layout: dict[str, Any]) -> None:
    """The arrays an env keeps refuse writes (a copy is the caller's to write into);
    `state()` is built afresh at every call and stays writeable."""
    env = mafia_env.raw_parallel_env("standard", 7, **layout)
    observations, _ = env.reset(seed=1)
    for obs in observations.values():
        for key, array in obs.items():
            assert not array.flags.writeable, key
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 1
            copied = array.copy()
            copied[0] = 1  # a copy is the caller's own
    assert env.state().flags.writeable


@pytest.mark.parametrize(
    ("variant", "players", "side", "layout"),
    [("palermo", 12, "mafia", LAYOUTS[0]), ("standard", 7, "town", LAYOUTS[1])],
    ids=["palermo-mafia-v0", "standard-town-history"],
)
def test_writing_into_team_env_observations_changes_no_later_one(
    variant: str, players: int, side: str, layout: dict[str, Any]
) -> None:
    """`TeamEnv` hands out arrays of its own: a single-agent learner may write into them,
    and the next observation is unaffected (a Palermo mafioso's turns often show
    nothing new in between, so the session's arrays would come back unchanged)."""
    setup = TeamSetup(variant=variant, players=players, side=side, kinds=("*",), **layout)

    def trace(write: bool) -> list[Any]:
        env = TeamEnv(setup, seed=3)
        obs, info = env.reset(seed=3)
        rng = np.random.default_rng(0)
        seen: list[Any] = []
        for _ in range(STEPS):
            mask = env.action_masks()
            seen += [obs.copy(), mask.copy(), info.get("seat")]
            action = int(rng.choice(np.flatnonzero(mask)))
            if write:
                assert scribble(obs), "TeamEnv's observation is the caller's own"
                scribble(mask)
                if "action_mask" in info:
                    scribble(info["action_mask"])
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                obs, info = env.reset()
        return seen

    assert_same_trace(trace(write=False), trace(write=True))


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("copy", [True, False])
def test_writing_into_vector_env_observations_changes_no_later_one(
    layout: dict[str, Any], copy: bool
) -> None:
    """With ``copy=False`` the vector env hands out its own buffers: read-only views,
    so a write cannot reach the final observation of a game ended by an illegal move."""

    def trace(write: bool) -> list[Any]:
        vec = MafiaVectorEnv("standard", 7, 3, copy=copy, **layout)
        obs, _ = vec.reset(seed=2)
        rng = np.random.default_rng(0)
        seen: list[Any] = []
        for step in range(STEPS):
            seen.append(kept(obs))
            masks = obs["action_mask"]
            actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
            if step % 37 == 5:  # an illegal move now and then ends a row's game
                actions[step % 3] = int(np.flatnonzero(masks[step % 3] == 0)[0])
            if write:
                scribble_obs(obs)
            obs, _, _, _, infos = vec.step(actions)
            for final in infos.get("final_obs", ()):
                if final is not None:
                    seen.append(kept(final))
                    if write:
                        scribble_obs(final)
        return seen

    assert_same_trace(trace(write=False), trace(write=True))


@pytest.mark.parametrize("factory", [mafia_env.env, mafia_env.parallel_env])
def test_taking_the_mask_out_of_an_observation_leaves_the_next_one_whole(
    factory: Callable[..., Any],
) -> None:
    """Each observation is a dict of the caller's own: popping the mask out of it (to
    feed the observation alone to a network) does not take it out of the seat's next
    observation, which the env would otherwise hand out as the same dict."""
    env = factory("standard", 7, max_text=0)
    rng = np.random.default_rng(0)
    if factory is mafia_env.env:
        env.reset(seed=4)
        for agent in env.agent_iter(STEPS):
            obs, _, terminated, truncated, _ = env.last()
            mask = obs.pop("action_mask")
            assert env.observe(agent).keys() == {"observation", "action_mask"}
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
        return
    observations, _ = env.reset(seed=4)
    while env.agents:
        masks = {a: obs.pop("action_mask") for a, obs in observations.items()}
        actions = {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()}
        observations, *_ = env.step(actions)
        for obs in observations.values():
            assert obs.keys() == {"observation", "action_mask"}


@pytest.mark.parametrize("factory", [mafia_env.env, mafia_env.parallel_env])
def test_a_key_added_to_an_info_is_not_in_the_seats_later_infos(
    factory: Callable[..., Any],
) -> None:
    """Each info is a dict of the caller's own, as each observation is: a wrapper that
    adds a key to the info it was given (an episode's statistics, a step counter) does
    not see it again in the seat's later infos, which the env builds once per change of
    the seat's view and would otherwise hand out as the same dict."""
    env = factory("standard", 7)
    rng = np.random.default_rng(0)
    if factory is mafia_env.env:
        env.reset(seed=4)
        for agent in env.agent_iter(STEPS):
            obs, _, terminated, truncated, info = env.last()
            assert "added" not in info
            info["added"] = agent
            mask = obs["action_mask"]
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
        return
    observations, infos = env.reset(seed=4)
    while env.agents:
        for info in infos.values():
            assert "added" not in info
            info["added"] = True
        actions = {
            a: int(rng.choice(np.flatnonzero(obs["action_mask"])))
            for a, obs in observations.items()
        }
        observations, _, _, _, infos = env.step(actions)
