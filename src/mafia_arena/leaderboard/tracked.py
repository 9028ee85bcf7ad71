"""Ratings as named estimates, for the tournament's MLflow runs.

The tournament driver logs these on the parent run next to the win-rate aggregates, so
the ratings of a tournament are in MLflow as well as in the published leaderboard, with
the same numbers (same fit, same bootstrap seed and resamples):

* ``rating.<agent>.bt`` — Bradley–Terry rating (Elo scale) with its bootstrap interval;
  ``rating.<agent>.<side>.bt`` and ``rating.<agent>.role.<role>.bt`` per side and role;
* ``rating.<agent>.os_ordinal`` — OpenSkill ordinal (mu − 3·sigma; no interval: the
  interval of a point is the point).

``n`` is the number of decisive games the entity was rated on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from mafia_arena.metrics.aggregate import Estimate

from .ratings import DEFAULT_N_BOOT, LEVEL_COLUMNS, compute_ratings

_PREFIX = {"agent": "", "side": "", "role": "role."}


def rating_estimates(
    records: Iterable[Mapping[str, Any]], n_boot: int = DEFAULT_N_BOOT, seed: int = 0
) -> dict[str, Estimate]:
    """The ratings of every agent, side and role of `records` (module docstring)."""
    out: dict[str, Estimate] = {}
    for level, frame in compute_ratings(list(records), n_boot=n_boot, seed=seed).items():
        keys = LEVEL_COLUMNS[level]
        for row in frame.to_dict(orient="records"):
            agent, *rest = (str(row[k]) for k in keys)
            name = ".".join(["rating", agent, *(_PREFIX[level] + r for r in rest)])
            n = int(row["rated_games"])
            bt = float(row["bt_rating"])
            low, high = float(row["bt_low"]), float(row["bt_high"])
            if math.isfinite(bt):
                out[f"{name}.bt"] = Estimate(
                    bt, low if math.isfinite(low) else bt, high if math.isfinite(high) else bt, n
                )
            ordinal = float(row["os_ordinal"])
            if level == "agent" and math.isfinite(ordinal):
                out[f"{name}.os_ordinal"] = Estimate(ordinal, ordinal, ordinal, n)
    return out
