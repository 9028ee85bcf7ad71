"""The shipped policy answers only in games played by the rules it was trained on.

Its file records the variant and the switches of its training (7-player `standard`, no
switches). A game of that variant with other switches (``--set mafia=1``) is another
game: every decision goes to the fallback, as in a game of another player count. The
same rules read from a file path are the same game. The fallback is told the rules.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.registry import make_agent
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner import play_match_sync

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"
PLAYERS = 7
SEEDS = range(3)


def policy_and_fallback_decisions(variant: Variant, overrides: dict[str, Any]) -> tuple[int, int]:
    """(decisions of the policy, decisions of its fallback) over a few games of `variant`
    with the shipped agent in every seat, as ``mafia-arena run`` seats it."""
    policy = fallback = 0
    for seed in SEEDS:
        agents = [make_agent(str(AGENT)) for _ in range(PLAYERS)]
        play_match_sync(variant, agents, seed, overrides, host_key=FIXED_HOST_KEY)
        for agent in agents:
            assert isinstance(agent, PolicyAgent)
            handed_on = int(agent.stats.extra.get("fallback_decisions", 0))
            policy += agent.stats.decisions - handed_on
            fallback += handed_on
    return policy, fallback


def test_the_policy_answers_in_its_trained_rules() -> None:
    policy, fallback = policy_and_fallback_decisions(load_variant("standard"), {})
    assert policy > 0 and fallback > 0


def test_other_switches_send_every_decision_to_the_fallback() -> None:
    """``--set mafia=1`` keeps the variant's name but changes its rules (one mafioso at
    7 players, not two); the policy never saw such games."""
    overrides = {"mafia": 1}
    policy, fallback = policy_and_fallback_decisions(load_variant("standard", overrides), overrides)
    assert policy == 0, f"the policy made {policy} decisions under rules it was not trained on"
    assert fallback > 0


def test_the_same_rules_read_from_a_path_are_the_trained_rules(tmp_path: Path) -> None:
    copy = tmp_path / "my-standard.toml"
    shutil.copyfile(REPO / "envs" / "standard.toml", copy)
    for variant in (load_variant(REPO / "envs" / "standard.toml"), load_variant(copy)):
        policy, _ = policy_and_fallback_decisions(variant, {})
        assert policy > 0, f"{variant.origin}: the policy made no decision"


def test_the_rules_are_compared_not_the_variants_name() -> None:
    """Any switch, or another variant, is other rules; the same agent judges each anew."""
    agent = make_agent(str(AGENT))
    assert isinstance(agent, PolicyAgent)
    assert not agent.fits_rules(load_variant("standard", {"mafia": 1}))
    assert agent.fits_rules(load_variant("standard"))
    assert not agent.fits_rules(load_variant("standard", {"abstain": True}))
    assert not agent.fits_rules(load_variant("simple"))


def test_the_fallback_is_told_the_games_rules() -> None:
    variant = load_variant("standard", {"mafia": 1})
    agents = [make_agent(str(AGENT)) for _ in range(PLAYERS)]
    play_match_sync(variant, agents, 0, {"mafia": 1}, host_key=FIXED_HOST_KEY)
    for agent in agents:
        assert isinstance(agent, PolicyAgent)
        assert agent.variant is variant
        assert isinstance(agent.fallback, SyncAgent)
        assert agent.fallback.variant is variant
