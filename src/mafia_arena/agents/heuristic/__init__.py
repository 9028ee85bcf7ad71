"""The `heuristic` scripted player: suspicion-driven town, role-playing power roles,
coordinated mafia. Importing this package registers it as ``heuristic``.

Extend it for new roles with `register_night_strategy(action, strategy)`.
"""

from mafia_arena.agents.heuristic.agent import HeuristicAgent
from mafia_arena.agents.heuristic.night import register_night_strategy
from mafia_arena.agents.registry import register_scripted

register_scripted("heuristic", HeuristicAgent)

__all__ = ["HeuristicAgent", "register_night_strategy"]
