"""Aggregate metrics of a set of game records, as named estimates for MLflow.

Every aggregate is an `Estimate` (value, 95% interval, number of values behind it; see
`metrics.aggregate` for which interval) under a flat MLflow-safe name. The tracker logs
each value as a metric and the intervals as one table (`tables.estimate_rows`), so a
run's metric list holds one entry per quantity rather than three.

* per game (`game_aggregates`): 0/1 outcome indicators (``win.<faction>``, ``town_win``,
  ``mafia_win``, ``draw``) as Wilson proportions; every other game metric as a mean over
  the games where it is defined;
* per agent (`agent_aggregates`, names ``agent.<name>.…``): win rate and survival
  overall and per side (Wilson at the effective number of seats, a game's seats one
  cluster: `stats.clustered_wilson_interval`, as the leaderboard's), the mean of every
  per-seat metric over the agent's seats where it is defined (but the moments the records
  keep only for an interval, `metrics.SEAT_MOMENTS` such as ``false_claim_days_sq``:
  no quantity a reader reads on its own), and tokens and cost per
  seat (means whose interval takes a game's seats as one cluster:
  `metrics.aggregate.ClusteredMeanAccumulator`); seat counts are counts (their interval
  is the point);
* per agent and role (`role_aggregates`, ``agent.<name>.role.<role>.win_rate``).

Each aggregate is a tally (`GameTally`, `SeatTally`, `WinTally`) fed one record at a
time, in two passes where a mean needs its interval (`add`, then `add_second`): a
tournament's store is streamed through them in bounded memory, and the functions of a
list of records run the same tallies, so both give the same numbers bit for bit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from mafia_arena.metrics import SEAT_MOMENTS
from mafia_arena.metrics.aggregate import (
    ClusteredMeanAccumulator,
    Estimate,
    MeanAccumulator,
    clustered,
    wilson,
)
from mafia_arena.results_file import stored_metrics
from mafia_arena.stats import ClusteredRate

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


def _number(value: Any) -> float | None:
    if value is None:
        return None
    return float(value)


class Means:
    """A `MeanAccumulator` per key, keys in first-seen order (the order estimates get)."""

    __slots__ = ("by_key",)

    def __init__(self) -> None:
        self.by_key: dict[str, MeanAccumulator] = {}

    def add(self, key: str, value: float | int | bool | None) -> None:
        acc = self.by_key.get(key)
        if acc is None:
            acc = self.by_key[key] = MeanAccumulator()
        acc.add(value)

    def add_second(self, key: str, value: float | int | bool | None) -> None:
        acc = self.by_key[key]
        if acc.n > 1:
            acc.add_second(value, acc.mean)


class ClusteredMeans:
    """A `ClusteredMeanAccumulator` per key, keys in first-seen order; a cluster is one
    game's values of the key (`add` and `add_second` take a whole game's)."""

    __slots__ = ("by_key",)

    def __init__(self) -> None:
        self.by_key: dict[str, ClusteredMeanAccumulator] = {}

    def add(self, key: str, cluster: list[float | None]) -> None:
        acc = self.by_key.get(key)
        if acc is None:
            acc = self.by_key[key] = ClusteredMeanAccumulator()
        acc.add(cluster)

    def add_second(self, key: str, cluster: list[float | None]) -> None:
        acc = self.by_key[key]
        if acc.n > 1:
            acc.add_second(cluster, acc.mean)


class GameTally:
    """`game_aggregates`, fed record by record: indicators as counts, other game
    metrics as means (two passes)."""

    def __init__(self) -> None:
        self.keys: dict[str, None] = {}
        self.indicators: dict[str, list[float]] = {}  # key -> [successes, defined]
        self.means = Means()

    def add(self, record: dict[str, Any]) -> None:
        for key, raw in stored_metrics(record, "game").items():
            self.keys.setdefault(key)
            value = _number(raw)
            if key in INDICATORS or key.startswith("win."):
                tally = self.indicators.setdefault(key, [0, 0])
                if value is not None:
                    tally[0] += value
                    tally[1] += 1
            else:
                self.means.add(key, value)

    def add_second(self, record: dict[str, Any]) -> None:
        for key, raw in stored_metrics(record, "game").items():
            if key in self.means.by_key:
                self.means.add_second(key, _number(raw))

    def estimates(self) -> Estimates:
        out: Estimates = {}
        for key in self.keys:
            if key in self.indicators:
                successes, defined = self.indicators[key]
                _put(out, key, wilson(successes, int(defined)))
            else:
                _put(out, key, self.means.by_key[key].estimate())
        return out


class _AgentSeats:
    """What `SeatTally` keeps of one agent's seats: each rate as a `ClusteredRate` whose
    clusters are games (the agent's seats in one game share its outcome)."""

    __slots__ = ("means", "roles", "sides", "survival", "tokens", "wins")

    def __init__(self) -> None:
        self.wins = ClusteredRate()
        self.survival = ClusteredRate()
        self.sides: dict[str, ClusteredRate] = {}
        self.roles: dict[str, ClusteredRate] = {}
        self.means = ClusteredMeans()
        self.tokens = ClusteredMeans()

    def rates(self, seat: dict[str, Any]) -> tuple[tuple[ClusteredRate, Any], ...]:
        """(tally, success) of every rate one of the agent's seats counts in."""
        side = self.sides.setdefault(seat["side"], ClusteredRate())
        role = self.roles.setdefault(str(seat["role"]), ClusteredRate())
        won = seat["won"]
        return ((self.wins, won), (self.survival, seat["survived"]), (side, won), (role, won))


class SeatTally:
    """`agent_aggregates` and `role_aggregates`, fed record by record."""

    TOKEN_KEYS = ("tokens_in", "tokens_out", "cost")

    def __init__(self) -> None:
        self.agents: dict[str, _AgentSeats] = {}

    @staticmethod
    def _seats(record: dict[str, Any]) -> Iterable[tuple[dict[str, Any], dict[str, Any]]]:
        per_seat = stored_metrics(record, "per_seat")
        for seat in record["seats"]:
            yield seat, per_seat.get(str(seat["seat"]), {})

    def _agent(self, name: str) -> _AgentSeats:
        agent = self.agents.get(name)
        if agent is None:
            agent = self.agents[name] = _AgentSeats()
        return agent

    def _clusters(self, record: dict[str, Any]) -> Iterable[tuple[ClusteredMeans, str, list]]:
        """(means, key, this game's values of the key) for every agent of the game: the
        game's cluster of each of the agent's per-seat metrics and token counts."""
        values: dict[str, tuple[dict[str, list], dict[str, list]]] = {}
        for seat, metrics in self._seats(record):
            per_metric, per_token = values.setdefault(seat["agent"], ({}, {}))
            for key, value in metrics.items():
                if key not in SEAT_MOMENTS:
                    per_metric.setdefault(key, []).append(_number(value))
            for key in self.TOKEN_KEYS:
                per_token.setdefault(key, []).append(_number(seat.get(key, 0)))
        for name, (per_metric, per_token) in values.items():
            agent = self.agents[name]
            for key, cluster in per_metric.items():
                yield agent.means, key, cluster
            for key, cluster in per_token.items():
                yield agent.tokens, key, cluster

    def add(self, record: dict[str, Any]) -> None:
        clusters: dict[ClusteredRate, list[int]] = {}  # this game's [successes, seats]
        for seat, _metrics in self._seats(record):
            agent = self._agent(seat["agent"])
            for tally, success in agent.rates(seat):
                cell = clusters.setdefault(tally, [0, 0])
                cell[0] += int(bool(success))
                cell[1] += 1
        for tally, (successes, seats) in clusters.items():
            tally.add(successes, seats)
        for means, key, cluster in self._clusters(record):
            means.add(key, cluster)

    def add_second(self, record: dict[str, Any]) -> None:
        for means, key, cluster in self._clusters(record):
            means.add_second(key, cluster)

    def agent_estimates(self) -> Estimates:
        out: Estimates = {}
        for name in sorted(self.agents):
            agent = self.agents[name]
            prefix = f"agent.{safe_key(name)}"
            out[f"{prefix}.seats"] = count(agent.wins.trials)
            _put(out, f"{prefix}.win_rate", clustered(agent.wins))
            _put(out, f"{prefix}.survival", clustered(agent.survival))
            for side in sorted(agent.sides):
                out[f"{prefix}.{side}.seats"] = count(agent.sides[side].trials)
                _put(out, f"{prefix}.{side}.win_rate", clustered(agent.sides[side]))
            for key, acc in agent.means.by_key.items():
                _put(out, f"{prefix}.{key}", acc.estimate())
            for key, acc in agent.tokens.by_key.items():
                _put(out, f"{prefix}.{key}_per_seat", acc.estimate())
        return out

    def role_estimates(self) -> Estimates:
        """Win rate (clustered Wilson) of every agent in every role it held."""
        out: Estimates = {}
        for name in sorted(self.agents):
            roles = self.agents[name].roles
            for role in sorted(roles):
                name_role = f"agent.{safe_key(name)}.role.{safe_key(role)}.win_rate"
                _put(out, name_role, clustered(roles[role]))
        return out


class WinTally:
    """`win_table`, fed record by record."""

    def __init__(self) -> None:
        self.n = 0
        self.factions: set[str] = set()
        self.winners: dict[str | None, int] = {}

    def add(self, record: dict[str, Any]) -> None:
        self.n += 1
        self.factions.update(s["faction"] for s in record["seats"])
        winner = record["winner"]
        self.winners[winner] = self.winners.get(winner, 0) + 1

    def add_second(self, record: dict[str, Any]) -> None:
        """Nothing: counts need one pass."""

    def table(self) -> Estimates:
        table = {f: wilson(self.winners.get(f, 0), self.n) for f in sorted(self.factions)}
        table["draw"] = wilson(self.winners.get(None, 0), self.n)
        return {k: v for k, v in table.items() if v is not None}


class Tally(Protocol):
    """A record aggregate fed in two passes over the same records in the same order."""

    def add(self, record: dict[str, Any]) -> None: ...
    def add_second(self, record: dict[str, Any]) -> None: ...


T = TypeVar("T", bound=Tally)


def two_passes(tally: T, records: Iterable[dict[str, Any]]) -> T:
    """Feed `records` (a list, or a re-iterable store) through `tally`: `add`, then
    `add_second`."""
    for record in records:
        tally.add(record)
    for record in records:
        tally.add_second(record)
    return tally


def game_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    return two_passes(GameTally(), records).estimates()


def agent_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    return two_passes(SeatTally(), records).agent_estimates()


def role_aggregates(records: Sequence[dict[str, Any]]) -> Estimates:
    """Win rate (Wilson) of every agent in every role it held."""
    return two_passes(SeatTally(), records).role_estimates()


def win_table(records: Sequence[dict[str, Any]]) -> Estimates:
    """Win rate of each faction (and draws) over the records, for plots and summaries."""
    return two_passes(WinTally(), records).table()
