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
from mafia_arena.rules.composition import deck_counts


def seat_agents(spec: str, players: int, variant: Variant) -> list[Agent]:
    """One agent per seat; a `ValueError` (unknown agent, a side without an agent or
    with two, too many agents) says what is wrong before any game starts."""
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts:
        raise ValueError("no agents given")
    if all("=" in p for p in parts):
        factories: dict[str, Callable[[], Agent]] = {}
        given: dict[str, str] = {}
        for part in parts:
            side, name = (p.strip() for p in part.split("=", 1))
            if side in given:  # else one of the two would be dropped without a word
                raise ValueError(f"side {side!r} is given twice ({given[side]}, {name})")
            make_agent(name)  # fail early on unknown names
            given[side], factories[side] = name, _factory(name)

        _check_sides(set(factories), players, variant)

        def side_of(faction: str) -> str:
            return variant.factions[faction].side if faction in variant.factions else faction

        return [BySideAgent(factories, side_of) for _ in range(players)]
    if len(parts) > players:
        raise ValueError(f"{len(parts)} agents for {players} players")
    names = parts + [parts[-1]] * (players - len(parts))
    return [make_agent(name) for name in names]


def _check_sides(given: set[str], players: int, variant: Variant) -> None:
    """Every side dealt at this table has an agent (or ``*`` covers it), and every side
    named exists: otherwise a game would fail at its first view, or a typo be ignored."""
    known = {faction.side for faction in variant.factions.values()}
    unknown = sorted(given - known - {"*"})
    if unknown:
        raise ValueError(
            f"unknown side {unknown[0]!r}; the sides are {', '.join(sorted(known))} (or *)"
        )
    if "*" in given:
        return
    dealt = {variant.side(variant.roles[role].faction) for role in deck_counts(variant, players)}
    missing = sorted(dealt - given)
    if missing:
        raise ValueError(
            f"no agent for side {missing[0]!r}, which is dealt at {players} players; "
            f"give one with {missing[0]}=NAME (or *=NAME for every side not named)"
        )


def _factory(name: str) -> Callable[[], Agent]:
    return lambda: make_agent(name)
