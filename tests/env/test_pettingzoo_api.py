"""PettingZoo's own conformance tests for every variant file at several player counts."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from tests.env.env_cases import CASE_IDS, CASES

from mafia_arena import env as mafia_env

# Dict observations with an action mask are PettingZoo's own convention for board
# games; api_test still warns about them (as it does for its classic envs).
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_api(variant: str, players: int) -> None:
    api_test(mafia_env.env(variant, players), num_cycles=400)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_raw_api(variant: str, players: int) -> None:
    api_test(mafia_env.raw_env(variant, players), num_cycles=400)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_parallel_api(variant: str, players: int) -> None:
    parallel_api_test(mafia_env.parallel_env(variant, players), num_cycles=400)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_seed(variant: str, players: int) -> None:
    seed_test(lambda: mafia_env.env(variant, players), num_cycles=60)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_parallel_seed(variant: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_seed_test(lambda: mafia_env.parallel_env(variant, players), num_cycles=60)


HISTORY_CASES = [("standard", 7), ("classic", 10), ("simple", 5)]
HISTORY: dict[str, Any] = {"observation": "history", "history_days": 2, "egocentric": True}


@pytest.mark.parametrize(("variant", "players"), HISTORY_CASES)
def test_api_history_layout(variant: str, players: int) -> None:
    api_test(mafia_env.env(variant, players, **HISTORY), num_cycles=400)


@pytest.mark.parametrize(("variant", "players"), HISTORY_CASES)
def test_parallel_api_history_layout(variant: str, players: int) -> None:
    parallel_api_test(mafia_env.parallel_env(variant, players, **HISTORY), num_cycles=400)
    parallel_api_test(
        mafia_env.parallel_env(variant, players, observation="history", max_players=16),
        num_cycles=200,
    )


@pytest.mark.parametrize(("variant", "players"), HISTORY_CASES)
def test_seed_history_layout(variant: str, players: int) -> None:
    seed_test(lambda: mafia_env.env(variant, players, **HISTORY), num_cycles=60)


def test_state_passes_pettingzoo_state_test() -> None:
    from pettingzoo.test import state_test

    state_test(mafia_env.env("standard", 7), mafia_env.parallel_env("standard", 7), 40)
    state_test(
        mafia_env.env("classic", 10, **HISTORY), mafia_env.parallel_env("classic", 10, **HISTORY)
    )
    par = mafia_env.raw_parallel_env("standard", 7, **HISTORY)
    par.reset(seed=3)
    assert par.state_space.contains(par.state())
