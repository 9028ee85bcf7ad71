"""Turn an agent list from the command line or a spec into one agent per seat.

Forms: ``heuristic`` (every seat), ``a,b,c`` (seat by seat; the last one fills the rest)
and ``town=heuristic,mafia=random`` (by the side of the dealt role).
"""

from __future__ import annotations

from collections.abc import Callable

from mafia_arena.agents.base import Agent
from mafia_arena.agents.by_side import BySideAgent
from mafia_arena.agents.registry import make_agent
from mafia_arena.rules import Variant


def seat_agents(spec: str, players: int, variant: Variant) -> list[Agent]:
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts:
        raise ValueError("no agents given")
    if all("=" in p for p in parts):
        factories: dict[str, Callable[[], Agent]] = {}
        for part in parts:
            side, name = part.split("=", 1)
            make_agent(name)  # fail early on unknown names
            factories[side] = _factory(name)

        def side_of(faction: str) -> str:
            return variant.factions[faction].side if faction in variant.factions else faction

        return [BySideAgent(factories, side_of) for _ in range(players)]
    if len(parts) > players:
        raise ValueError(f"{len(parts)} agents for {players} players")
    names = parts + [parts[-1]] * (players - len(parts))
    return [make_agent(name) for name in names]


def _factory(name: str) -> Callable[[], Agent]:
    return lambda: make_agent(name)
