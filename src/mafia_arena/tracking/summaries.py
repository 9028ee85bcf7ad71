"""Aggregate metrics of a set of game records, flattened into MLflow metric names.

Every aggregate is logged as three metrics: ``<name>`` (the estimate), ``<name>.ci_low``
and ``<name>.ci_high`` (its 95% interval; see `metrics.aggregate` for which interval),
plus ``<name>.n`` where the number of values behind it differs from the games.

* per game (`game_aggregates`): 0/1 outcome indicators (``win.<faction>``, ``town_win``,
  ``mafia_win``, ``draw``) as Wilson proportions; every other game metric as a mean over
  the games where it is defined;
* per agent (`agent_aggregates`, names ``agent.<name>.…``): seats played, win rate and
  survival overall and per side (Wilson), the mean of every per-seat metric over the
  agent's seats where it is defined, and tokens and cost per seat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from mafia_arena.metrics.aggregate import Estimate, mean_ci, wilson

INDICATORS = {"town_win", "mafia_win", "draw"}
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. :/]")


def safe_key(name: str) -> str:
    """A string usable in an MLflow metric name."""
    return _UNSAFE.sub("_", name)


def flatten(name: str, estimate: Estimate | None, total: int | None = None) -> dict[str, float]:
    if estimate is None:
        return {}
    out = {name: estimate.value, f"{name}.ci_low": estimate.low, f"{name}.ci_high": estimate.high}
    if total is None or estimate.n != total:
        out[f"{name}.n"] = float(estimate.n)
    return out


def _keys(rows: Iterable[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for row in rows for k in row))


def _number(value: Any) -> float | None:
    if value is None:
        return None
    return float(value)


def game_aggregates(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    n = len(records)
    out: dict[str, float] = {"games": float(n)}
    games = [r["metrics"]["game"] for r in records]
    for key in _keys(games):
        values = [_number(g.get(key)) for g in games]
        if key in INDICATORS or key.startswith("win."):
            defined = [v for v in values if v is not None]
            out.update(flatten(key, wilson(sum(defined), len(defined)), n))
        else:
            out.update(flatten(key, mean_ci(values), n))
    return out


def agent_aggregates(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    seats: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for record in records:
        per_seat = record["metrics"]["per_seat"]
        for seat in record["seats"]:
            seats.setdefault(seat["agent"], []).append((seat, per_seat.get(str(seat["seat"]), {})))
    out: dict[str, float] = {}
    for agent in sorted(seats):
        rows = seats[agent]
        prefix = f"agent.{safe_key(agent)}"
        n = len(rows)
        out[f"{prefix}.seats"] = float(n)
        out.update(flatten(f"{prefix}.win_rate", wilson(sum(s["won"] for s, _ in rows), n), n))
        out.update(flatten(f"{prefix}.survival", wilson(sum(s["survived"] for s, _ in rows), n), n))
        for side in sorted({s["side"] for s, _ in rows}):
            on_side = [s for s, _ in rows if s["side"] == side]
            out[f"{prefix}.{side}.seats"] = float(len(on_side))
            out.update(
                flatten(
                    f"{prefix}.{side}.win_rate",
                    wilson(sum(s["won"] for s in on_side), len(on_side)),
                )
            )
        for key in _keys(m for _, m in rows):
            out.update(flatten(f"{prefix}.{key}", mean_ci(_number(m.get(key)) for _, m in rows)))
        for key in ("tokens_in", "tokens_out", "cost"):
            estimate = mean_ci(s.get(key, 0) for s, _ in rows)
            if estimate is not None:
                out[f"{prefix}.{key}_per_seat"] = estimate.value
    return out


def win_table(records: Sequence[dict[str, Any]]) -> dict[str, Estimate]:
    """Win rate of each faction (and draws) over the records, for plots and summaries."""
    n = len(records)
    factions = sorted({s["faction"] for r in records for s in r["seats"]})
    table = {f: wilson(sum(r["winner"] == f for r in records), n) for f in factions}
    table["draw"] = wilson(sum(r["winner"] is None for r in records), n)
    return {k: v for k, v in table.items() if v is not None}
