"""Seating an ``rl`` agent file in tests: the agent it builds, checked to be a policy."""

from __future__ import annotations

from pathlib import Path

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.registry import make_agent


def seat(agent_file: Path) -> PolicyAgent:
    """The `PolicyAgent` that `agent_file` seats (an assertion error if it seats another
    kind)."""
    agent = make_agent(str(agent_file))
    assert isinstance(agent, PolicyAgent)
    return agent
