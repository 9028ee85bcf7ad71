"""Aggregate metrics of a set of game records, as named estimates for MLflow.

Every aggregate is an `Estimate` (value, 95% interval, number of values behind it; see
`metrics.aggregate` for which interval) under a flat MLflow-safe name. The tracker logs
each value as a metric and the intervals as one table (`tables.estimate_rows`), so a
run's metric list holds one entry per quantity rather than three.

* per game (`game_aggregates`): 0/1 outcome indicators (``win.<faction>``, ``town_win``,
  ``mafia_win``, ``draw``) as Wilson proportions; every other game metric as a mean over
  the games where it is defined;
* per agent (`agent_aggregates`, names ``agent.<name>.…``): win rate and survival
  overall and per side (Wilson), the mean of every per-seat metric over the agent's
  seats where it is defined, and tokens and cost per seat; seat counts are counts
  (their interval is the point);
* per agent and role (`role_aggregates`, ``agent.<name>.role.<role>.win_rate``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mafia_arena.metrics.aggregate import Estimate, mean_ci, wilson

INDICATORS = {"town_win", "mafia_win", "draw"}
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. :/]")
Estimates = dict[str, Estimate]


def safe_key(name: str) -> str:
    """A string usable in an MLflow metric name."""
    return _UNSAFE.sub("_", name)


def count(n: int) -> Estimate:
    """A count as an estimate (exact: the interval is the point)."""
    return Estimate(float(n), float(n), float(n), n)


def point_values(estimates: Mapping[str, Estimate]) -> dict[str, float]:
    """The metric to log per estimate: its value."""
    return {name: e.value for name, e in estimates.items()}


def _put(out: Estimates, name: str, estimate: Estimate | None) -> None:
    if estimate is not None:
        out[name] = estimate


def _keys(rows: Iterable[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for row in rows for k in row))


def _number(value: Any) -> float | None:
    if value is None:
        return None
    return float(value)


def game_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    out: Estimates = {}
    games = [r["metrics"]["game"] for r in records]
    for key in _keys(games):
        values = [_number(g.get(key)) for g in games]
        if key in INDICATORS or key.startswith("win."):
            defined = [v for v in values if v is not None]
            _put(out, key, wilson(sum(defined), len(defined)))
        else:
            _put(out, key, mean_ci(values))
    return out


def _seats_by_agent(
    records: Sequence[dict[str, Any]],
) -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    seats: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for record in records:
        per_seat = record["metrics"]["per_seat"]
        for seat in record["seats"]:
            seats.setdefault(seat["agent"], []).append((seat, per_seat.get(str(seat["seat"]), {})))
    return seats


def agent_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    seats = _seats_by_agent(records)
    out: Estimates = {}
    for agent in sorted(seats):
        rows = seats[agent]
        prefix = f"agent.{safe_key(agent)}"
        n = len(rows)
        out[f"{prefix}.seats"] = count(n)
        _put(out, f"{prefix}.win_rate", wilson(sum(s["won"] for s, _ in rows), n))
        _put(out, f"{prefix}.survival", wilson(sum(s["survived"] for s, _ in rows), n))
        for side in sorted({s["side"] for s, _ in rows}):
            on_side = [s for s, _ in rows if s["side"] == side]
            out[f"{prefix}.{side}.seats"] = count(len(on_side))
            _put(
                out,
                f"{prefix}.{side}.win_rate",
                wilson(sum(s["won"] for s in on_side), len(on_side)),
            )
        for key in _keys(m for _, m in rows):
            _put(out, f"{prefix}.{key}", mean_ci(_number(m.get(key)) for _, m in rows))
        for key in ("tokens_in", "tokens_out", "cost"):
            _put(out, f"{prefix}.{key}_per_seat", mean_ci(s.get(key, 0) for s, _ in rows))
    return out


def role_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    """Win rate (Wilson) of every agent in every role it held."""
    out: Estimates = {}
    seats = _seats_by_agent(records)
    for agent in sorted(seats):
        by_role: dict[str, list[bool]] = {}
        for seat, _ in seats[agent]:
            by_role.setdefault(str(seat["role"]), []).append(bool(seat["won"]))
        for role in sorted(by_role):
            won = by_role[role]
            name = f"agent.{safe_key(agent)}.role.{safe_key(role)}.win_rate"
            _put(out, name, wilson(sum(won), len(won)))
    return out


def win_table(records: Sequence[dict[str, Any]]) -> Estimates:
    """Win rate of each faction (and draws) over the records, for plots and summaries."""
    n = len(records)
    factions = sorted({s["faction"] for r in records for s in r["seats"]})
    table = {f: wilson(sum(r["winner"] == f for r in records), n) for f in factions}
    table["draw"] = wilson(sum(r["winner"] is None for r in records), n)
    return {k: v for k, v in table.items() if v is not None}
