"""Advice features and imitation: the co-player's own choice, shown to the learner and
copied by it, and the same advice built at play time by the `rl` agent's fallback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.policy_file import PolicyFile, table_hash
from mafia_arena.agents.registry import make_agent
from mafia_arena.rl.evaluate import win_rate
from mafia_arena.rl.imitate import demonstrations
from mafia_arena.rl.team_env import TeamEnv, TeamSetup
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync

ADVISED = TeamSetup(opponents=("heuristic", "random"), advice=True)


@pytest.mark.parametrize(
    "setup",
    [ADVISED, TeamSetup(advice=True, observation="history", history_days=2, egocentric=True)],
)
def test_the_advice_block_is_a_legal_one_hot_of_the_co_players_choice(setup: TeamSetup) -> None:
    env = TeamEnv(setup, seed=4)
    plain = TeamEnv(TeamSetup(**{**setup.__dict__, "advice": False}))
    assert env.observation_size == plain.observation_size + env.actions
    for _ in range(5):
        obs, _ = env.reset()
        done = False
        while not done:
            advice = obs[-env.actions :]
            assert advice.sum() == 1.0
            action = int(np.argmax(advice))
            assert env.action_masks()[action] and action == env.teacher_action()
            obs, _, done, _, info = env.step(action)
        assert "won" in info


def follower(tmp_path: Path) -> Path:
    """An advice policy that always takes the advised action (one linear layer)."""
    env = TeamEnv(ADVISED)
    base = env.observation_size - env.actions
    weight = np.zeros((env.actions, env.observation_size), np.float32)
    weight[:, base:] = np.eye(env.actions, dtype=np.float32)
    header = {
        "name": "follower",
        "variant": "standard",
        "players": 7,
        "overrides": {},
        "side": "town",
        "kinds": ["vote"],
        "fallback": "heuristic",
        "observation_size": env.observation_size,
        "observation": env.session.observation.header(),
        "advice": "heuristic",
        "actions": env.actions,
        "table_hash": table_hash(list(env.session.table.keys)),
    }
    PolicyFile([(weight, np.zeros(env.actions, np.float32))], header).save(tmp_path / "f.npz")
    agent_file = tmp_path / "follower.toml"
    agent_file.write_text('name = "follower"\nkind = "rl"\npolicy = "f.npz"\n')
    return agent_file


def test_an_agent_that_follows_the_advice_plays_the_heuristics_games(tmp_path: Path) -> None:
    agent_file = follower(tmp_path)
    variant = load_variant("standard")
    for seed in (1, 2, 3):
        advised = [make_agent(str(agent_file)) for _ in range(7)]
        plain = [make_agent("heuristic") for _ in range(7)]
        ours = play_match_sync(variant, advised, seed, host_key=FIXED_HOST_KEY)
        theirs = play_match_sync(variant, plain, seed, host_key=FIXED_HOST_KEY)
        assert ours.log.events == theirs.log.events
        assert sum(a.stats.decisions for a in advised) > sum(
            a.stats.extra.get("fallback_decisions", 0) for a in advised
        ), "the policy answered no vote"
    # in the env, following the advice is the co-player's game too
    policy = PolicyFile.load(tmp_path / "f.npz")
    assert win_rate(ADVISED, "follower", policy.act, "heuristic", 30).wins == (
        win_rate(ADVISED, "heuristic", None, "heuristic", 30).wins
    )


def test_an_advice_policy_refuses_another_fallback(tmp_path: Path) -> None:
    agent_file = follower(tmp_path)
    agent_file.write_text(agent_file.read_text() + 'fallback = "random"\n')
    with pytest.raises(ValueError, match="fallback must be 'heuristic'"):
        make_agent(str(agent_file))
    assert isinstance(make_agent(str(follower(tmp_path))), PolicyAgent)


def test_demonstrations_are_the_co_players_legal_choices_with_the_games_outcome() -> None:
    demos = demonstrations(TeamSetup(opponents=("heuristic", "random")), 12, seed=5)
    again = demonstrations(TeamSetup(opponents=("heuristic", "random")), 12, seed=5)
    assert len(demos) > 12 and np.array_equal(demos.actions, again.actions)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    assert set(np.unique(demos.returns)) <= {-1.0, 0.0, 1.0} and len(set(demos.returns)) > 1


def test_pretraining_copies_the_co_player() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from mafia_arena.rl.imitate import pretrain

    torch.manual_seed(0)
    demos = demonstrations(ADVISED, 40, seed=6)
    model = MaskablePPO("MlpPolicy", TeamEnv(ADVISED, seed=0), seed=0, device="cpu")
    before = pretrain(model.policy, demos, epochs=1, learning_rate=0.0)
    after = pretrain(model.policy, demos, epochs=60, batch_size=64, seed=1)
    assert before < 0.5 < 0.95 <= after, (before, after)


@pytest.mark.parametrize(
    ("variant", "players", "side"), [("standard", 7, "town"), ("classic", 10, "mafia")]
)
def test_every_decision_of_a_side_gets_the_speechs_act_as_advice_or_none(
    variant: str, players: int, side: str
) -> None:
    """With ``kinds = ["*"]`` the co-player answers speaking turns with a `Speech`: its
    act (a choice the turn offers) is the advice; free text without one (classic's
    night talk and manner of death) gives an all-zero block and no teacher action, and
    imitation records only the turns with one."""
    setup = TeamSetup(variant, players, side=side, kinds=("*",), advice=True)
    env = TeamEnv(setup, seed=3)
    kinds: dict[str, set[bool]] = {}
    for _ in range(2):
        obs, info = env.reset()
        done = False
        while not done:
            action, advice = env.teacher_action(), obs[-env.actions :]
            mask = env.action_masks()
            game = env.session.game
            assert game is not None
            kinds.setdefault(game.pending()[info["seat"]].kind, set()).add(action is None)
            if action is None:
                assert not advice.any()
                action = int(np.flatnonzero(mask)[0])
            else:
                assert advice.sum() == 1.0 and advice[action] == 1.0 and mask[action]
            obs, _, done, _, info = env.step(action)
    assert kinds["speak"] == {False}
    if variant == "classic":
        assert kinds["describe"] == kinds["night_chat"] == {True}
        demos = demonstrations(setup, 2, seed=3)
        assert demos.masks[np.arange(len(demos)), demos.actions].all()
