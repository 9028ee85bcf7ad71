"""Shared fixtures for the leaderboard tests: hand-made games and synthetic pools."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from mafia_arena.leaderboard.synthetic import synthetic_records

GameFactory = Callable[..., dict[str, Any]]


def make_game(
    seats: list[tuple[str, str, str]],
    winner: str | None,
    *,
    game_index: int = 0,
    seed: int = 0,
    spec_hash: str = "h0",
    kinds: dict[str, str] | None = None,
    per_seat: dict[str, dict[str, Any]] | None = None,
    variant: str = "standard",
) -> dict[str, Any]:
    """One record in the results-store schema; ``seats`` are (agent, role, side)."""
    kinds = kinds or {}
    return {
        "experiment": "unit",
        "spec_hash": spec_hash,
        "game_index": game_index,
        "seed": seed,
        "variant": variant,
        "players": len(seats),
        "winner": winner,
        "length_days": 3,
        "an_unknown_top_level_key": {"ignored": True},
        "seats": [
            {
                "seat": i,
                "agent": agent,
                "agent_kind": kinds.get(agent, "scripted"),
                "role": role,
                "faction": side,
                "side": side,
                "won": winner is not None and side == winner,
                "survived": True,
                "decisions": 10,
                "reasks": 0,
                "retries": 0,
                "fallbacks": 0,
                "tokens_in": 0,
                "tokens_out": 0,
                "cost": 0.0,
                "extra_seat_key": "ignored",
            }
            for i, (agent, role, side) in enumerate(seats)
        ],
        "metrics": {"per_seat": per_seat or {}, "game": {"whatever": 1}},
    }


@pytest.fixture(scope="session")
def game() -> GameFactory:
    """The :func:`make_game` factory (a fixture: test modules cannot import conftest)."""
    return make_game


@pytest.fixture(scope="session")
def focus_records() -> list[dict[str, Any]]:
    """A takes one random seat per game and its team wins with p = 0.8; B, C, D equal."""
    return synthetic_records(
        300,
        strengths={"A": 0.0, "B": 0.0, "C": 0.0, "D": 0.0},
        focus_agent="A",
        focus_win_p=0.8,
        seed=11,
    )


@pytest.fixture(scope="session")
def graded_records() -> list[dict[str, Any]]:
    """Known strengths A > B > C > D (logits), town advantage, some draws, mixed kinds."""
    return synthetic_records(
        500,
        strengths={"A": 1.5, "B": 0.5, "C": 0.0, "D": -1.0},
        kinds={"A": "llm", "B": "rl", "C": "scripted", "D": "human"},
        town_advantage=0.4,
        draw_rate=0.05,
        seed=7,
    )


@pytest.fixture()
def fresh(graded_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy, for tests that shuffle or mutate."""
    return copy.deepcopy(graded_records)
