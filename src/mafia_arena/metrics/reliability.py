"""Reliability: re-asks, retries and fallbacks per decision.

Decisions and fallbacks are counted from the log's `decision` events (the engine's
record, whoever the agent is; a fallback carries a `fallback` reason); re-asks and
retries come from the header's ``meta.agent_stats`` (only the agent knows them).
"""

from __future__ import annotations

from typing import Any

from mafia_arena.metrics.facts import GameFacts
from mafia_arena.metrics.ratios import ratio

PerSeat = dict[int, dict[str, Any]]


def reliability(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    per_seat: PerSeat = {}
    totals = {"decisions": 0, "fallbacks": 0, "reasks": 0, "retries": 0}
    for seat in range(f.players):
        stats = f.agent_stats[seat] if seat < len(f.agent_stats) else {}
        row = {
            "decisions": f.decisions.get(seat, 0),
            "fallbacks": f.fallbacks.get(seat, 0),
            "reasks": int(stats.get("reasks", 0)),
            "retries": int(stats.get("retries", 0)),
        }
        for key in totals:
            totals[key] += row[key]
        per_seat[seat] = {
            "fallback_rate": ratio(row["fallbacks"], row["decisions"]),
            "reask_rate": ratio(row["reasks"], row["decisions"]),
            "retry_rate": ratio(row["retries"], row["decisions"]),
        }
    game: dict[str, Any] = {"decisions": totals["decisions"]}
    for key, name in (
        ("fallbacks", "fallback_rate"),
        ("reasks", "reask_rate"),
        ("retries", "retry_rate"),
    ):
        game[name] = ratio(totals[key], totals["decisions"])
    return per_seat, game
