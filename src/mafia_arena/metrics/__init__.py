"""Metrics: pure functions from a `GameLog` to per-seat and per-game numbers.

`compute_metrics(log)` returns ``{"per_seat": {"0": {...}, ...}, "game": {...}}`` — the
``metrics`` of a results-store record. A value is None where a metric is undefined for
that game (no town votes, no beliefs stated, ...), never a made-up zero. The formulas
are in docs/metrics.md; `aggregate` turns many games' values into means with CIs.
`SEAT_MOMENTS` names the per-seat values that are moments kept for an interval (not
metrics of their own): an agent's summary leaves them out.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.metrics.channels import channels
from mafia_arena.metrics.deception import SEAT_MOMENTS, deception
from mafia_arena.metrics.detection import detection
from mafia_arena.metrics.facts import GameFacts, extract_facts
from mafia_arena.metrics.outcome import outcome
from mafia_arena.metrics.persuasion import persuasion
from mafia_arena.metrics.reliability import reliability
from mafia_arena.rules import Variant
from mafia_arena.runner.log import GameLog

FAMILIES = (outcome, detection, deception, persuasion, reliability, channels)

__all__ = [
    "FAMILIES",
    "SEAT_MOMENTS",
    "GameFacts",
    "compute_metrics",
    "extract_facts",
    "metrics_of_facts",
]


def metrics_of_facts(facts: GameFacts) -> dict[str, Any]:
    per_seat: dict[str, dict[str, Any]] = {str(s): {} for s in range(facts.players)}
    game: dict[str, Any] = {}
    for family in FAMILIES:
        seats, totals = family(facts)
        for seat, values in seats.items():
            per_seat[str(seat)].update(values)
        game.update(totals)
    return {"per_seat": per_seat, "game": game}


def compute_metrics(log: GameLog, variant: Variant | None = None) -> dict[str, Any]:
    """All metrics of one game; pass the `Variant` when at hand to skip loading it."""
    return metrics_of_facts(extract_facts(log, variant))
