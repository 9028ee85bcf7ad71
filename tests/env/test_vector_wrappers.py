"""Gymnasium's vector wrappers on the batched env (`MafiaVectorEnv`).

Gymnasium's vector observation wrappers (`FlattenObservation`, `NormalizeObservation`,
`DtypeObservation`, …) transform the observations a step returns, and refuse an env
that resets its rows within the step (``autoreset_mode`` `AutoresetMode.SAME_STEP`, the
default): its ended games' last observations are in ``infos["final_obs"]``, which they
would leave untransformed. With ``autoreset_mode=AutoresetMode.NEXT_STEP`` a row shows
its ended game's last observation and is dealt the next game at the next step (that
step's action for the row is ignored). Those that need a `Box` observation take
``action_mask="info"``: the observation is the float array alone, the masks in
``infos["action_mask"]``. These tests run each wrapper for a few hundred steps.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers import vector as wrappers

from mafia_arena.env import IllegalActionError
from mafia_arena.env.vector import MafiaVectorEnv

NEXT = AutoresetMode.NEXT_STEP
ROWS = 3
STEPS = 250


def masks_of(obs: Any, infos: dict[str, Any]) -> np.ndarray:
    """The rows' masks, wherever the env put them."""
    return np.asarray(infos["action_mask"] if "action_mask" in infos else obs["action_mask"])


def row_histories(
    vec: MafiaVectorEnv, ignored: int = 0, illegal_every: int = 0
) -> list[list[tuple[Any, ...]]]:
    """What each row showed, game after game, with each row's decisions drawn from the
    row's own generator: per row, its observations, masks, seats, rewards and ends, a
    same-step row's final observations put where a next-step row shows them (with the
    seat that acted), and the next-step reset steps' scores (action `ignored`) left
    out. Every `illegal_every`-th decision of a row is an illegal move."""
    obs, infos = vec.reset(seed=4)
    rngs = [np.random.default_rng(row) for row in range(ROWS)]
    decisions = [0] * ROWS
    seen: list[list[tuple[Any, ...]]] = [[] for _ in range(ROWS)]
    resetting = np.zeros(ROWS, dtype=bool)
    for row in range(ROWS):
        seen[row].append(
            ("shown", obs["observation"][row].tolist(), obs["action_mask"][row].tolist())
        )
    for _ in range(STEPS):
        actions = np.full(ROWS, ignored)
        for row in np.flatnonzero(~resetting).tolist():
            mask = obs["action_mask"][row]
            decisions[row] += 1
            if illegal_every and decisions[row] % illegal_every == 0:
                actions[row] = int(np.flatnonzero(mask == 0)[0])
            else:
                actions[row] = int(rngs[row].choice(np.flatnonzero(mask)))
        acted = infos["seat"]
        obs, rewards, terminations, truncations, infos = vec.step(actions)
        assert not truncations.any()
        for row in range(ROWS):
            if resetting[row]:  # the reset step of a next-step row: nothing to score
                assert rewards[row] == 0 and not terminations[row]
            else:
                seen[row].append(("scored", float(rewards[row]), bool(terminations[row])))
            if terminations[row]:
                seen[row].append(("ended", infos["final_seed"][row], infos["illegal"][row]))
                seen[row].append(("final", infos["final_rewards"][row].tolist()))
            if terminations[row] and "final_obs" in infos:
                final = infos["final_obs"][row]
                seen[row].append(
                    ("shown", final["observation"].tolist(), final["action_mask"].tolist())
                )
                seen[row].append(("seat", int(acted[row])))
            seen[row].append(
                ("shown", obs["observation"][row].tolist(), obs["action_mask"][row].tolist())
            )
            seen[row].append(("seat", int(infos["seat"][row])))
        if vec.autoreset_mode is NEXT:
            resetting = terminations | truncations
    return seen


@pytest.mark.parametrize(
    "layout", [{}, {"observation": "history", "egocentric": True}], ids=["v0", "history-egocentric"]
)
@pytest.mark.parametrize("illegal_every", [0, 23], ids=["legal", "illegal-now-and-then"])
def test_next_step_rows_play_the_same_games_as_same_step_rows(
    layout: dict[str, Any], illegal_every: int
) -> None:
    """A next-step row shows its ended game's last observation (the same-step row's
    ``infos["final_obs"]``), then the next game, the one a same-step row is dealt; an
    action given at the reset step is ignored, an illegal id too."""
    same = MafiaVectorEnv("simple", 5, ROWS, **layout)
    following = MafiaVectorEnv("simple", 5, ROWS, autoreset_mode=NEXT, **layout)
    strict = MafiaVectorEnv("simple", 5, ROWS, autoreset_mode="NextStep", illegal_reward=None)
    assert following.metadata["autoreset_mode"] is NEXT
    assert strict.metadata["autoreset_mode"] is NEXT
    a = row_histories(same, illegal_every=illegal_every)
    b = row_histories(following, ignored=999, illegal_every=illegal_every)
    assert sum(entry[0] == "ended" for row in b for entry in row) > ROWS  # games did end
    for row, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x[: len(y)] == y, f"row {row}"  # the same-step row is further on (no reset steps)
    if not layout and not illegal_every:  # the raise policy ignores reset steps' actions too
        assert row_histories(strict, ignored=999) == b


def test_next_step_final_infos_and_no_final_obs() -> None:
    """The step that ends a next-step row's game says so (rewards, seed, illegal) and
    has no ``final_obs``: the row itself shows the last observation, its seat's."""
    vec = MafiaVectorEnv("simple", 5, 2, autoreset_mode=NEXT)
    obs, infos = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    while True:
        seats = infos["seat"]
        obs, rewards, terminations, _, infos = vec.step(
            [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
        )
        if terminations.any():
            break
    row = int(np.flatnonzero(terminations)[0])
    assert "final_obs" not in infos and "_final_obs" not in infos
    assert infos["_final_rewards"][row] and infos["final_seed"][row] >= 0
    assert infos["seat"][row] == seats[row]
    assert rewards[row] == infos["final_rewards"][row][seats[row]]
    assert obs["action_mask"][row].tolist() == [1] + [0] * (vec.table.size - 1)
    assert vec.call("action_masks")[row].tolist() == obs["action_mask"][row].astype(bool).tolist()
    seed = infos["final_seed"][row]
    obs, rewards, terminations, _, infos = vec.step(np.zeros(2, dtype=int))
    assert rewards[row] == 0 and not terminations[row] and vec.games[row].seed != seed
    assert not vec.games[row].over and obs["action_mask"][row].sum() >= 1


@pytest.mark.parametrize("duplicate", ["pickle", "deepcopy"])
def test_a_next_step_env_pickles_while_a_row_waits_for_its_next_game(duplicate: str) -> None:
    import copy as copying

    vec = MafiaVectorEnv("simple", 5, ROWS, autoreset_mode=NEXT, action_mask="info")
    _, infos = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    terminations = np.zeros(ROWS, dtype=bool)
    while not terminations.any():
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        _, _, terminations, _, infos = vec.step(actions)
    twin = pickle.loads(pickle.dumps(vec)) if duplicate == "pickle" else copying.deepcopy(vec)
    assert twin.autoreset_mode is NEXT and twin.action_mask == "info"
    np.testing.assert_array_equal(twin._obs, vec._obs)
    np.testing.assert_array_equal(twin._masks, vec._masks)
    assert twin.seats.tolist() == vec.seats.tolist()
    for _ in range(60):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        got = vec.step(actions)
        again = twin.step(actions)
        for x, y in zip(got[:4], again[:4], strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(got[4]["action_mask"], again[4]["action_mask"])
        infos = got[4]


def test_masks_in_infos_give_a_box_observation() -> None:
    vec = MafiaVectorEnv("simple", 5, ROWS, action_mask="info", copy=False)
    dict_env = MafiaVectorEnv("simple", 5, ROWS)
    single: Any = dict_env.single_observation_space
    assert vec.single_observation_space == single["observation"]
    assert vec.observation_space.shape == (ROWS, *single["observation"].shape)
    obs: Any
    reference: Any
    obs, infos = vec.reset(seed=0)
    reference, _ = dict_env.reset(seed=0)
    np.testing.assert_array_equal(obs, reference["observation"])
    np.testing.assert_array_equal(infos["action_mask"], reference["action_mask"])
    assert obs in vec.observation_space
    assert not obs.flags.writeable and not infos["action_mask"].flags.writeable
    for _ in range(80):
        actions = [int(np.flatnonzero(m)[-1]) for m in infos["action_mask"]]
        obs, _, terminations, _, infos = vec.step(actions)
        reference, _, _, _, dict_infos = dict_env.step(actions)
        np.testing.assert_array_equal(obs, reference["observation"])
        np.testing.assert_array_equal(infos["action_mask"], reference["action_mask"])
        for row in np.flatnonzero(terminations):  # the final observation: the array alone
            np.testing.assert_array_equal(
                infos["final_obs"][row], dict_infos["final_obs"][row]["observation"]
            )


def test_unknown_modes_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"SAME_STEP.*SameStep.*NEXT_STEP.*NextStep"):
        MafiaVectorEnv("simple", 5, 2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match="autoreset_mode"):
        MafiaVectorEnv("simple", 5, 2, autoreset_mode="next")
    with pytest.raises(ValueError, match=r"'observation'.*'info'"):
        MafiaVectorEnv("simple", 5, 2, action_mask="infos")  # type: ignore[arg-type]


SAME = AutoresetMode.SAME_STEP
WRAPPERS: dict[str, tuple[Callable[[VectorEnv], VectorEnv], str, tuple[AutoresetMode, ...]]] = {
    "FlattenObservation": (wrappers.FlattenObservation, "observation", (NEXT,)),
    "FlattenObservation-box": (wrappers.FlattenObservation, "info", (NEXT,)),
    "FilterObservation": (
        lambda env: wrappers.FilterObservation(env, ["observation"]),
        "observation",
        (NEXT,),
    ),
    "TransformObservation": (
        lambda env: wrappers.TransformObservation(env, lambda obs: obs / 2, env.observation_space),
        "info",
        (NEXT,),
    ),
    "NormalizeObservation": (wrappers.NormalizeObservation, "info", (NEXT,)),
    "DtypeObservation": (lambda env: wrappers.DtypeObservation(env, np.float64), "info", (NEXT,)),
    "RescaleObservation": (
        lambda env: wrappers.RescaleObservation(env, -1.0, 1.0),
        "info",
        (NEXT,),
    ),
    "RecordEpisodeStatistics": (wrappers.RecordEpisodeStatistics, "observation", (NEXT, SAME)),
    "NormalizeReward": (wrappers.NormalizeReward, "observation", (NEXT, SAME)),
    "ClipReward": (lambda env: wrappers.ClipReward(env, -0.5, 0.5), "info", (NEXT, SAME)),
    "DictInfoToList": (wrappers.DictInfoToList, "observation", (NEXT, SAME)),
}
"""Gymnasium's vector wrappers: how each is built, where it needs the masks, and the
autoreset modes it takes."""


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("name", "mode"),
    [(name, mode) for name, (_, _, modes) in WRAPPERS.items() for mode in modes],
)
def test_gymnasium_vector_wrappers_run_on_the_env(name: str, mode: AutoresetMode) -> None:
    """Each wrapper is built, reset and stepped through several games; what it returns
    lies in the space it declares. Actions are the legal ones of the masks (in the
    observation, or ``infos["action_mask"]``); the rows' games are the unwrapped env's."""
    wrap, masks, _ = WRAPPERS[name]
    settings: dict[str, Any] = {"autoreset_mode": mode, "action_mask": masks}
    plain = MafiaVectorEnv("simple", 5, ROWS, **settings)
    wrapped = wrap(MafiaVectorEnv("simple", 5, ROWS, **settings))
    obs: Any  # the wrapper's: a Dict, an array
    infos: Any  # a dict, or one per row (DictInfoToList)
    obs, infos = wrapped.reset(seed=5)
    raw, raw_infos = plain.reset(seed=5)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(STEPS):
        assert obs in wrapped.observation_space, name
        masks_now = masks_of(raw, raw_infos)
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks_now]
        obs, rewards, terminations, _, infos = wrapped.step(actions)
        raw, raw_rewards, raw_terminations, _, raw_infos = plain.step(actions)
        np.testing.assert_array_equal(terminations, raw_terminations)
        if name == "DictInfoToList":  # one dict per row
            assert [info["seat"] for info in infos] == raw_infos["seat"].tolist()
        else:
            assert infos["seat"].tolist() == raw_infos["seat"].tolist()
        if name == "ClipReward":
            np.testing.assert_array_equal(rewards, np.clip(raw_rewards, -0.5, 0.5))
        elif name != "NormalizeReward":
            np.testing.assert_array_equal(rewards, raw_rewards)
        if name == "RecordEpisodeStatistics" and terminations.any():
            assert infos["_episode"].tolist() == terminations.tolist()
        ends += int(terminations.sum())
    assert ends >= ROWS
    if name.startswith("FlattenObservation") and masks == "observation":
        # the Dict flattened in key order: the mask, then the observation
        np.testing.assert_array_equal(obs, np.hstack([raw["action_mask"], raw["observation"]]))
    elif name == "DtypeObservation":
        assert obs.dtype == np.float64
        np.testing.assert_array_equal(obs, raw.astype(np.float64))
    elif name == "TransformObservation":
        np.testing.assert_array_equal(obs, raw / 2)
    elif name == "NormalizeObservation":
        assert obs.shape == raw.shape and not np.array_equal(obs, raw)
    elif name not in ("FilterObservation", "FlattenObservation-box"):
        for key in ("observation", "action_mask") if masks == "observation" else ():
            np.testing.assert_array_equal(obs[key], raw[key])


def test_observation_wrappers_still_refuse_a_same_step_env_and_box_wrappers_a_dict() -> None:
    """Where a wrapper cannot apply, Gymnasium's refusal names why: the same-step
    autoreset, or for a `Dict` observation the `Box` the wrapper needs (then
    ``action_mask="info"`` gives one)."""
    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        wrappers.FlattenObservation(MafiaVectorEnv("simple", 5, 2))
    with pytest.raises(TypeError, match="requires a Box"):
        wrappers.DtypeObservation(MafiaVectorEnv("simple", 5, 2, autoreset_mode=NEXT), np.float64)


def test_the_raise_policy_still_refuses_an_illegal_move_of_a_playing_row() -> None:
    vec = MafiaVectorEnv("simple", 5, 2, autoreset_mode=NEXT, illegal_reward=None)
    obs, _ = vec.reset(seed=0)
    bad = [int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]]
    with pytest.raises(IllegalActionError, match="row 0"):
        vec.step(bad)
