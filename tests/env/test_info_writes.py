"""Changing a returned info, all the way down, never changes a later info or another
seat's.

An env keeps a seat's info while its view is unchanged and hands it out again
(`GameSession.info`), and the choice rows inside an info are the action table's, shared
by every seat offered the same choices (`ActionTable.rows`). A wrapper that changed a
nested value in place (a row's label it shortens, the winners it filters) would then see
its change again in the seat's later infos, or in another seat's info of the same step.
These tests play each env twice with the same seed and actions, once defacing every
info it returns as soon as it is recorded (every dict, list and writeable array in it,
however deep) and once not, and compare what the two runs were given.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mafia_arena import env as mafia_env
from mafia_arena.env import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv, TeamSetup

LAYOUTS: list[dict[str, Any]] = [{}, {"observation": "history", "egocentric": True}]
LAYOUT_IDS = ["v0", "history-egocentric"]
CASES = [("simple", 5), ("standard", 7)]
GAMES = 2
"""Whole games per run: a game's end hands every seat its result, and the second game
reuses the action table's rows that the first one's infos held."""


def deface(value: Any) -> None:
    """Change `value` in place all the way down, as a careless wrapper would: every dict
    and list gets a new entry and each entry defaced (an immutable one replaced), every
    writeable array overwritten, an object array's items defaced."""
    if isinstance(value, dict):
        for key, item in list(value.items()):
            if isinstance(item, dict | list | np.ndarray):
                deface(item)
            else:
                value[key] = "defaced"
        value["defaced"] = True
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict | list | np.ndarray):
                deface(item)
            else:
                value[index] = "defaced"
        value.append("defaced")
    elif isinstance(value, np.ndarray):
        if value.dtype == object:
            for item in value:
                deface(item)
        elif value.flags.writeable:
            value[...] = 7


def plain(value: Any) -> Any:
    """`value` as plain comparable data (arrays as their dtype and items)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        items = [plain(item) for item in value] if value.dtype == object else value.tolist()
        return ("array", str(value.dtype), items)
    return value


class Recorder:
    """The infos a run was given, each kept as it was handed out; with `write`, each one
    defaced right after it is kept, so that any sharing shows in a later one."""

    def __init__(self, write: bool) -> None:
        self.write = write
        self.seen: list[Any] = []

    def __call__(self, info: Any) -> None:
        self.seen.append(plain(copy.deepcopy(info)))
        if self.write:
            deface(info)


def legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def aec_run(make: Callable[[], Any], write: bool) -> list[Any]:
    """Every `last()` info of `GAMES` seeded games of the AEC env."""
    env, record = make(), Recorder(write)
    rng = np.random.default_rng(0)
    for game in range(GAMES):
        env.reset(seed=11 + game)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            record(info)
            env.step(None if terminated or truncated else legal(obs["action_mask"], rng))
    return record.seen


def parallel_run(make: Callable[[], Any], write: bool) -> list[Any]:
    """Every seat's info at every step of `GAMES` seeded games of the Parallel env,
    recorded (and defaced) seat after seat."""
    env, record = make(), Recorder(write)
    rng = np.random.default_rng(0)
    for game in range(GAMES):
        observations, infos = env.reset(seed=11 + game)
        while True:
            for agent in sorted(infos):
                record(infos[agent])
            if not env.agents:
                break
            actions = {a: legal(o["action_mask"], rng) for a, o in observations.items()}
            observations, _, _, _, infos = env.step(actions)
    return record.seen


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("factory", [mafia_env.env, mafia_env.raw_env])
def test_defacing_aec_infos_changes_no_later_one(
    factory: Callable[..., Any], variant: str, players: int, layout: dict[str, Any]
) -> None:
    def make() -> Any:
        return factory(variant, players, **layout)

    assert aec_run(make, write=True) == aec_run(make, write=False)


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("factory", [mafia_env.parallel_env, mafia_env.raw_parallel_env])
def test_defacing_parallel_infos_changes_no_later_one_nor_another_seats(
    factory: Callable[..., Any], variant: str, players: int, layout: dict[str, Any]
) -> None:
    """A vote asks every living seat in one step, and their infos offer the same
    choices: defacing one seat's rows must leave the next seat's whole."""

    def make() -> Any:
        return factory(variant, players, **layout)

    assert parallel_run(make, write=True) == parallel_run(make, write=False)


def test_seats_offered_the_same_choices_get_rows_of_their_own() -> None:
    """The direct case: two seats asked at once with the same choices (the table's rows
    for both are one list) hold no container in common."""
    env = mafia_env.raw_parallel_env("standard", 7)
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=0)
    pair: list[dict[str, Any]] = []
    while env.agents and not pair:
        asked = [info["request"] for _, info in sorted(infos.items()) if info["request"]]
        keys = [[row["key"] for row in request["choices"]] for request in asked]
        pair = next(
            (
                [asked[i], asked[j]]
                for i in range(len(asked))
                for j in range(i)
                if keys[i] == keys[j]
            ),
            [],
        )
        actions = {a: legal(o["action_mask"], rng) for a, o in observations.items()}
        observations, _, _, _, infos = env.step(actions)
    assert pair, "no two seats were offered the same choices at once"
    first, second = pair
    assert first is not second and first["choices"] is not second["choices"]
    assert all(a is not b for a, b in zip(first["choices"], second["choices"], strict=True))


def test_defacing_team_env_infos_changes_no_later_one() -> None:
    """`TeamEnv`'s infos (the executions in ``signals``, the mask) are the caller's."""
    setup = TeamSetup(variant="standard", players=7, side="town", kinds=("*",), shaping=0.1)

    def run(write: bool) -> list[Any]:
        env, record = TeamEnv(setup, seed=3), Recorder(write)
        rng = np.random.default_rng(0)
        _, info = env.reset(seed=3)
        for _ in range(GAMES):
            record(info)
            terminated = False
            while not terminated:
                _, _, terminated, _, info = env.step(legal(env.action_masks(), rng))
                record(info)
            _, info = env.reset()
        return record.seen

    assert run(write=True) == run(write=False)


def test_defacing_vector_env_infos_changes_no_later_one() -> None:
    """The batched env's infos (seats, final observations and rewards) are new arrays at
    every step; an illegal move now and then ends a row's game with the shown arrays."""

    def run(write: bool) -> list[Any]:
        vec, record = MafiaVectorEnv("simple", 5, 3, text=True), Recorder(write)
        obs, infos = vec.reset(seed=2)
        rng = np.random.default_rng(0)
        record(infos)
        for step in range(300):
            actions = np.array([legal(mask, rng) for mask in obs["action_mask"]])
            if step % 37 == 5:
                actions[step % 3] = int(np.flatnonzero(obs["action_mask"][step % 3] == 0)[0])
            obs, _, _, _, infos = vec.step(actions)
            record(infos)
        return record.seen

    assert run(write=True) == run(write=False)
