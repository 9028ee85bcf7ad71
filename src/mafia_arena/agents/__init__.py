"""Players: every kind of player implements the one `Agent` protocol."""

from mafia_arena.agents.base import Agent, AgentStats, SyncAgent
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.agents.registry import make_agent, scripted_agent_names

__all__ = ["Agent", "AgentStats", "RandomAgent", "SyncAgent", "make_agent", "scripted_agent_names"]
