"""Tournaments: experiment specs, seating, the Ray driver and the results store.

`run_tournament(spec_path)` is the entry point (the CLI's ``mafia-arena tournament``).
The heavy parts (Ray, MLflow) are imported only when a tournament runs, so a Ray worker
importing `experiments.worker` starts light.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.experiments.errors import (
    Interrupted,
    ResultsConflict,
    ServiceError,
    SpecError,
    TournamentError,
    TransientError,
)

__all__ = [
    "Experiment",
    "Interrupted",
    "ResultsConflict",
    "ServiceError",
    "SpecError",
    "Summary",
    "TournamentError",
    "TransientError",
    "load_spec",
    "read_records",
    "run_tournament",
]

_LAZY = {
    "run_tournament": "mafia_arena.experiments.driver",
    "Summary": "mafia_arena.experiments.summary",
    "load_spec": "mafia_arena.experiments.spec",
    "Experiment": "mafia_arena.experiments.plan",
    "read_records": "mafia_arena.experiments.store",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
