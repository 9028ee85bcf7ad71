"""Ratings as named estimates, for the tournament's MLflow runs.

The tournament driver logs these on the parent run next to the win-rate aggregates, so
the ratings of a tournament are in MLflow as well as in the published leaderboard, with
the same numbers (same fit, same bootstrap seed and resamples):

* ``rating.<agent>.bt`` — Bradley–Terry rating (Elo scale) with its interval (the
  bootstrap's and the Laplace interval's span); ``rating.<agent>.<side>.bt`` and
  ``rating.<agent>.role.<role>.bt`` per side and role;
* ``rating.<agent>.os_ordinal`` — OpenSkill ordinal (mu − 3·sigma; no interval: the
  interval of a point is the point).

``n`` is the number of decisive games the entity was rated on.

The records may be a streamed store (`results_file.StoredRecords`): each is cut down, as
it is read, to what a rating reads of it (`rating_game`), so a tournament of any size is
rated holding a few hundred bytes per game rather than its records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from mafia_arena.metrics.aggregate import Estimate

from .ratings import DEFAULT_N_BOOT, LEVEL_COLUMNS, compute_ratings
from .records import GameResult, SeatResult, parse_game

_PREFIX = {"agent": "", "side": "", "role": "role."}


def rating_estimates(
    records: Iterable[Mapping[str, Any]], n_boot: int = DEFAULT_N_BOOT, seed: int = 0
) -> dict[str, Estimate]:
    """The ratings of every agent, side and role of `records` (module docstring)."""
    out: dict[str, Estimate] = {}
    seats: dict[tuple[Any, ...], SeatResult] = {}
    games = [rating_game(r, seats) for r in records]
    for level, frame in compute_ratings(games, n_boot=n_boot, seed=seed).items():
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


def rating_game(record: Mapping[str, Any], seats: dict[tuple[Any, ...], SeatResult]) -> GameResult:
    """`record` parsed, keeping only what ratings read: each seat's number, agent, kind,
    role, faction, side and result (its counts, tokens and metrics dropped), one shared
    object per distinct seat (`seats` is the cache), and the canonical sort key without
    its full-record tie-breaker. That tie-breaker only orders records equal in
    ``(spec_hash, game_index, seed)``, which a results store never holds twice, so the
    ratings are those of the full records, bit for bit."""
    game = parse_game(record)
    slim = []
    for seat in game.seats:
        kept = (seat.seat, seat.agent, seat.kind, seat.role, seat.faction, seat.side)
        key = (*kept, seat.won, seat.survived)
        shared = seats.get(key)
        if shared is None:
            shared = seats[key] = SeatResult(*kept, seat.won, seat.survived, 0, 0, 0, 0, 0.0)
        slim.append(shared)
    return replace(game, key=game.key[:3], seats=tuple(slim), cards={})
