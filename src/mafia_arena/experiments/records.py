"""The results-store record of one finished game.

The schema is a contract with the leaderboard package (docs/tournaments.md)::

    {"experiment", "spec_hash", "game_index", "seed", "variant", "players",
     "winner" (faction or null), "length_days",
     "seats": [{"seat", "agent", "agent_kind", "role", "faction", "side", "won",
                "survived", "decisions", "reasks", "retries", "fallbacks",
                "tokens_in", "tokens_out", "cost"}],
     "metrics": {"per_seat": {"0": {...}}, "game": {...}},
     "log_path"}

Nothing in a record depends on time or on the machine, so the same game always gives
the same record byte for byte. `decisions` and `fallbacks` are the engine's counts (from
the log's decision events); re-asks, retries, tokens and cost are the agent's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mafia_arena.agents.base import Agent
from mafia_arena.metrics import extract_facts, metrics_of_facts
from mafia_arena.rules import Variant
from mafia_arena.runner.match import MatchResult

SEAT_KEYS = (
    "seat",
    "agent",
    "agent_kind",
    "role",
    "faction",
    "side",
    "won",
    "survived",
    "decisions",
    "reasks",
    "retries",
    "fallbacks",
    "tokens_in",
    "tokens_out",
    "cost",
)
RECORD_KEYS = (
    "experiment",
    "spec_hash",
    "game_index",
    "seed",
    "variant",
    "players",
    "winner",
    "length_days",
    "seats",
    "metrics",
    "log_path",
)


def log_path(game_index: int) -> str:
    """Where a game's log lives, relative to the results folder."""
    return f"logs/game-{game_index:06d}.jsonl"


def build_record(
    *,
    experiment: str,
    spec_hash: str,
    game_index: int,
    seed: int,
    variant: Variant,
    agents: Sequence[Agent],
    result: MatchResult,
) -> dict[str, Any]:
    """The record of a played game (metrics computed here, from its log)."""
    facts = extract_facts(result.log, variant)
    seats = []
    for seat, agent in enumerate(agents):
        stats = result.stats[seat] if seat < len(result.stats) else {}
        seats.append(
            {
                "seat": seat,
                "agent": agent.name,
                "agent_kind": agent.kind,
                "role": facts.roles.get(seat, ""),
                "faction": facts.factions.get(seat, ""),
                "side": facts.side_of(seat),
                "won": seat in facts.winners,
                "survived": facts.survived(seat),
                "decisions": facts.decisions.get(seat, 0),
                "reasks": int(stats.get("reasks", 0)),
                "retries": int(stats.get("retries", 0)),
                "fallbacks": facts.fallbacks.get(seat, 0),
                "tokens_in": int(stats.get("tokens_in", 0)),
                "tokens_out": int(stats.get("tokens_out", 0)),
                "cost": float(stats.get("cost", 0.0)),
            }
        )
    return {
        "experiment": experiment,
        "spec_hash": spec_hash,
        "game_index": game_index,
        "seed": seed,
        "variant": variant.name,
        "players": len(agents),
        "winner": result.winner,
        "length_days": facts.length_days,
        "seats": seats,
        "metrics": metrics_of_facts(facts),
        "log_path": log_path(game_index),
    }
