"""The `heuristic` scripted player: suspicion-driven town, role-playing power roles,
coordinated mafia. Importing this package registers every style preset
(`style.STYLES`: ``heuristic``, ``heuristic:liar``, ``heuristic:quiet``,
``heuristic:aggressive``) as an agent name.

Extend it for new roles with `register_night_strategy(action, strategy)`.
"""

from functools import partial

from mafia_arena.agents.heuristic.agent import HeuristicAgent
from mafia_arena.agents.heuristic.night import register_night_strategy
from mafia_arena.agents.heuristic.style import STYLES, Style
from mafia_arena.agents.registry import register_scripted

for _style in STYLES.values():
    register_scripted(_style.name, partial(HeuristicAgent, style=_style))

__all__ = ["STYLES", "HeuristicAgent", "Style", "register_night_strategy"]
