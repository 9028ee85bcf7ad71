"""Synthetic game records with known ground truth, for tests, demos and docs.

The records follow the results-store schema exactly (see ``docs/leaderboard.md``), so
anything that consumes real results can be exercised without running games; their
per-seat metrics lie in the ranges the real ones take (shares in [0, 1]), so a board
made from them brackets each value with its interval as a real board does.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["DEFAULT_ROLES", "synthetic_records"]

#: (role, side) per seat of the 7-player standard setup: 5 town, 2 mafia.
DEFAULT_ROLES: tuple[tuple[str, str], ...] = (
    ("villager", "town"),
    ("villager", "town"),
    ("villager", "town"),
    ("doctor", "town"),
    ("detective", "town"),
    ("mafioso", "mafia"),
    ("godfather", "mafia"),
)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def synthetic_records(
    n_games: int,
    *,
    strengths: Mapping[str, float],
    seed: int = 0,
    kinds: Mapping[str, str] | None = None,
    town_advantage: float = 0.0,
    draw_rate: float = 0.0,
    focus_agent: str | None = None,
    focus_win_p: float = 0.8,
    solo_win_p: float = 0.1,
    roles: Sequence[tuple[str, str]] = DEFAULT_ROLES,
    experiment: str = "synthetic",
    variant: str = "standard",
) -> list[dict[str, Any]]:
    """Generate ``n_games`` finished-game records with a seeded ``numpy`` Generator.

    Default (strength) mode: every seat gets an agent drawn uniformly from ``strengths``;
    town wins with probability ``sigmoid(mean strength of town seats - mean strength of
    mafia seats + town_advantage)`` (the Bradley–Terry mean-team model the leaderboard
    fits). Focus mode (``focus_agent`` set): that agent takes exactly one random seat, the
    other seats are drawn from the remaining agents, and the focus agent's side wins with
    probability ``focus_win_p``. Seats whose side is ``solo`` form their own faction (named
    after the role); if there are any, the first one wins alone with probability
    ``solo_win_p`` (strength mode only). In all modes a game is a draw (``winner`` null)
    with probability ``draw_rate``. ``kinds`` maps agent → agent_kind (default ``"scripted"``).
    """
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    kinds = kinds or {}
    spec_hash = hashlib.sha256(f"{experiment}:{seed}".encode()).hexdigest()[:12]
    records: list[dict[str, Any]] = []
    for game_index in range(n_games):
        n_seats = len(roles)
        if focus_agent is not None:
            others = [a for a in names if a != focus_agent]
            agents = [others[int(rng.integers(len(others)))] for _ in range(n_seats)]
            focus_seat = int(rng.integers(n_seats))
            agents[focus_seat] = focus_agent
            focus_role, focus_side = roles[focus_seat]
            focus_faction = focus_role if focus_side == "solo" else focus_side
            other_side = "mafia" if focus_side == "town" else "town"
            winner: str | None = focus_faction if rng.random() < focus_win_p else other_side
        else:
            agents = [names[int(rng.integers(len(names)))] for _ in range(n_seats)]
            town = [strengths[a] for a, (_, s) in zip(agents, roles, strict=True) if s == "town"]
            mafia = [strengths[a] for a, (_, s) in zip(agents, roles, strict=True) if s == "mafia"]
            p_town = _sigmoid(float(np.mean(town)) - float(np.mean(mafia)) + town_advantage)
            winner = "town" if rng.random() < p_town else "mafia"
            solo_roles = [role for role, side in roles if side == "solo"]
            if solo_roles and rng.random() < solo_win_p:
                winner = solo_roles[0]
        if draw_rate > 0 and rng.random() < draw_rate:
            winner = None
        length = int(rng.integers(2, 7))
        seats = []
        per_seat: dict[str, dict[str, Any]] = {}
        for seat_no, (agent, (role, side)) in enumerate(zip(agents, roles, strict=True)):
            kind = kinds.get(agent, "scripted")
            faction = role if side == "solo" else side
            won = winner is not None and faction == winner
            decisions = int(rng.integers(5, 20))
            llm_like = kind == "llm"
            tokens_in = int(rng.integers(2000, 6000)) if llm_like else 0
            tokens_out = int(rng.integers(200, 800)) if llm_like else 0
            seats.append(
                {
                    "seat": seat_no,
                    "agent": agent,
                    "agent_kind": kind,
                    "role": role,
                    "faction": faction,
                    "side": side,
                    "won": won,
                    "survived": bool(rng.random() < (0.7 if won else 0.3)),
                    "decisions": decisions,
                    "reasks": 0,
                    "retries": 0,
                    "fallbacks": int(rng.integers(0, 2)) if llm_like else 0,
                    "tokens_in": tokens_in,
                    "tokens_out": tokens_out,
                    "cost": round(tokens_in * 1e-6 + tokens_out * 4e-6, 6),
                }
            )
            skill = _sigmoid(strengths.get(agent, 0.0))
            town_seat = side == "town"
            false_claims = 0 if town_seat else int(rng.integers(0, 3))
            values = per_seat[str(seat_no)] = {
                "irp": round(float(np.clip(skill + rng.normal(0, 0.15), 0, 1)), 4)
                if town_seat
                else None,
                "vss": round(float(np.clip(rng.normal(skill, 0.2), 0, 1)), 4)
                if town_seat
                else None,
                "bus_rate": None if town_seat else round(float(rng.random() * 0.3), 4),
                "false_role_claims": false_claims,
                "false_claim_days": int(rng.integers(0, length + 1)) if false_claims else 0,
                "brier": round(float(np.clip(0.3 - 0.2 * skill + rng.normal(0, 0.05), 0, 1)), 4),
            }
            values["false_claim_days_sq"] = values["false_claim_days"] ** 2  # every claim alike
        records.append(
            {
                "experiment": experiment,
                "spec_hash": spec_hash,
                "game_index": game_index,
                "seed": seed * 1_000_003 + game_index,
                "variant": variant,
                "players": n_seats,
                "winner": winner,
                "length_days": length,
                "seats": seats,
                "metrics": {"per_seat": per_seat, "game": {}},
            }
        )
    return records
