"""`TeamEnv`: the Gymnasium contract, seeding, masks and who the learner plays."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mafia_arena.rl.evaluate import random_chooser, win_rate
from mafia_arena.rl.team_env import TeamEnv, TeamSetup


def test_team_env_passes_gymnasium_env_checker() -> None:
    check_env(TeamEnv(seed=3), skip_render_check=True)


def run_episode(env: TeamEnv, seed: int) -> list[tuple[int, bytes, int]]:
    """(seat, observation bytes, action) per learner step, with seeded masked actions."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace = []
    done = False
    while not done:
        mask = env.action_masks()
        assert (mask == info["action_mask"]).all()
        action = int(rng.choice(np.flatnonzero(mask)))
        trace.append((info["seat"], obs.tobytes(), action))
        obs, reward, done, truncated, info = env.step(action)
        assert "illegal" not in info and not truncated
    assert reward in (-1.0, 0.0, 1.0)
    return trace


def test_a_seeded_env_replays_its_episodes_exactly() -> None:
    first = [run_episode(TeamEnv(), s) for s in (1, 2)]
    again = [run_episode(TeamEnv(), s) for s in (1, 2)]
    assert first == again
    assert first[0] != first[1]


@pytest.mark.parametrize("side", ["town", "mafia"])
def test_the_learner_answers_only_its_sides_requests_of_its_kinds(side: str) -> None:
    env = TeamEnv(TeamSetup(side=side, kinds=("vote",)), seed=5)
    for _ in range(20):
        _, info = env.reset()
        done = False
        while not done:
            seat = info["seat"]
            game = env.session.game
            assert game is not None
            assert env.session.variant.factions[game.state.seats[seat].faction].side == side
            assert game.request(seat).kind == "vote"
            action = int(np.flatnonzero(env.action_masks())[0])
            _, _, done, _, info = env.step(action)
        assert info["side"] == side and isinstance(info["won"], bool)


def test_an_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = TeamEnv(seed=1)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and "not legal" in info["illegal"]


def test_shaping_signals_report_day_deaths_by_side() -> None:
    env = TeamEnv(TeamSetup(shaping=0.25), seed=2)
    seen: list[dict] = []
    total_shaping = 0.0
    for _ in range(10):
        _, info = env.reset()
        done = False
        while not done:
            _, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            seen.extend(info["signals"])
            if not done:
                total_shaping += reward
    assert seen and {s["side"] for s in seen} <= {"town", "mafia"}
    assert total_shaping != 0.0


def test_heuristic_votes_beat_random_votes_on_the_same_games() -> None:
    """The scripted baseline of the RL benchmark: paired seeded games, same opponents."""
    setup = TeamSetup(opponents=("heuristic",))
    heuristic = win_rate(setup, "heuristic votes", None, "heuristic", 200)
    random_votes = win_rate(setup, "random votes", random_chooser(0), "heuristic", 200)
    assert heuristic.rate > random_votes.rate + 0.15
