"""PettingZoo's checks where `test_pettingzoo_api.py` does not reach: the `history`
layout (egocentric, padded) on the club, the forum game and Palermo, `max_text=0`,
the render modes of every variant, and every observation and state of whole random
games lying in the declared spaces with a legal action open to each seat that acts.

Each case runs at the variant's smallest table, so the file stays fast.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from mafia_arena import env as mafia_env
from mafia_arena.rules import available_variants, load_variant

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

VARIANTS = sorted(available_variants())
SMALLEST = {v: load_variant(v).min_players for v in VARIANTS}
LAYOUTS: dict[str, dict[str, Any]] = {
    "v0-no-text": {"max_text": 0},
    "history": {"observation": "history", "history_days": 1},
    "history-egocentric-padded": {"observation": "history", "egocentric": True, "pad": 2},
}
"""Observation options; ``pad`` stands for ``max_players`` = the player count + pad."""


def options(layout: str, players: int) -> dict[str, Any]:
    """The env() keywords of `layout` at `players` seats."""
    chosen = dict(LAYOUTS[layout])
    pad = chosen.pop("pad", None)
    if pad is not None:
        chosen["max_players"] = players + pad
    return chosen


NEW_HISTORY_CASES = [("club", 8), ("dictator", 12), ("palermo", 12)]


@pytest.mark.parametrize(("variant", "players"), NEW_HISTORY_CASES)
def test_history_layout_passes_pettingzoo_api_tests(variant: str, players: int) -> None:
    chosen = options("history-egocentric-padded", players)
    api_test(mafia_env.env(variant, players, **chosen), num_cycles=60)
    parallel_api_test(mafia_env.parallel_env(variant, players, **chosen), num_cycles=60)
    seed_test(lambda: mafia_env.env(variant, players, **chosen), num_cycles=20)


@pytest.mark.parametrize("variant", VARIANTS)
def test_render_modes_pass_pettingzoo_render_test(variant: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):  # "human" prints the view
        render_test(lambda **kw: mafia_env.env(variant, SMALLEST[variant], max_text=0, **kw))


def check_aec_game(variant: str, players: int, chosen: dict[str, Any], seed: int) -> int:
    """Play one random AEC game; every observation and state must lie in its space and
    every seat that must act must have a legal action. Returns the steps taken."""
    aec = mafia_env.env(variant, players, **chosen)
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in aec.agent_iter(5000):
        obs, _, terminated, truncated, _ = aec.last()
        assert aec.observation_space(agent).contains(obs), (agent, steps)
        assert aec.state_space.contains(aec.state()), steps
        if terminated or truncated:
            aec.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{agent} must act with no legal action at step {steps}"
        aec.step(int(rng.choice(legal)))
        steps += 1
    return steps


def check_parallel_game(variant: str, players: int, chosen: dict[str, Any], seed: int) -> None:
    """The same over one random Parallel game, the final observations included."""
    par = mafia_env.parallel_env(variant, players, **chosen)
    observations, _ = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5000):
        for agent, obs in observations.items():
            assert par.observation_space(agent).contains(obs), agent
        assert par.state_space.contains(par.state())
        if not par.agents:
            return
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()
        }
        observations, *_ = par.step(actions)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_games_stay_in_the_declared_spaces(variant: str, layout: str) -> None:
    players = SMALLEST[variant]
    chosen = options(layout, players)
    assert check_aec_game(variant, players, chosen, seed=1) > 0
    check_parallel_game(variant, players, chosen, seed=2)
