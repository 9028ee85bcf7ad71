"""Running totals over seats for one leaderboard row: counts, rates and means with intervals.

A :class:`SeatTotals` is fed the seats of one agent (or one agent in one role) in
canonical game order and answers each row's counts, win rates and per-seat metric means;
the builders in ``table.py`` only lay its answers out as columns.

Win rates count *seats*: an agent holding two seats in one game contributes two trials.
In the usual arena setup (one seat per agent per game) seats equal games. Seats in one
game share an outcome and read the same events, so every rate and mean over seats takes a
game's seats as one cluster for its interval (`stats.clustered_wilson_interval`,
`metrics.aggregate.ClusteredMeanAccumulator`). A void game (decided by infrastructure
failures) counts only in reliability and cost, and in a trained policy's share of its
own decisions (who answered is known however the game was decided).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from mafia_arena.metrics.aggregate import Moments, clustered_mean_ci, clustered_moments_ci
from mafia_arena.stats import clustered_wilson_interval

from .columns import (
    FALSE_CLAIM_DAYS,
    FALSE_CLAIM_DAYS_SQ,
    FALSE_CLAIMS,
    PER_SEAT_MEANS,
    POLICY_COUNTERS,
)
from .records import GameResult, SeatResult

__all__ = ["SeatTotals"]


@dataclass
class SeatTotals:
    """Per-agent (or per agent-role) running totals over seats, in canonical game order."""

    games: set[int] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    sides: set[str] = field(default_factory=set)
    seats: int = 0
    wins: int = 0
    drawn_games: set[int] = field(default_factory=set)
    side_seats: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    side_wins: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    side_games: dict[str, dict[int, tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    """(wins, seats) on each side in each game: the clusters of the per-side intervals."""
    mafia_alive: int = 0
    mafia_known: int = 0
    mafia_games: dict[int, tuple[int, int]] = field(default_factory=dict)
    """(alive, known) mafia seats in each game: the clusters of mafia survival."""
    metric_values: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    """Each per-seat metric's values by game: a game's values are one cluster."""
    false_claims: int = 0
    false_claim_days: float = 0.0
    claim_moments: dict[int, Moments] = field(default_factory=dict)
    """The false role claims of each game: their number, days and days squared, summed
    over the seats (each claim one value of `false_claim_survival`, a game one cluster)."""
    claim_spread_unknown: bool = False
    """Whether a seat of several claims came without the mean square of their days."""
    decisions: int = 0
    fallbacks: int = 0
    infra_fallbacks: int = 0
    model_fallbacks: int = 0
    tokens: int = 0
    cost: float = 0.0
    policy_decisions: float = 0.0
    delegated_decisions: float = 0.0
    """Decisions of the seats that count who answered them (`POLICY_COUNTERS`: trained
    policies): answered by the policy itself, and left to its fallback."""
    void_games: set[int] = field(default_factory=set)
    all_games: set[int] = field(default_factory=set)
    per_game: dict[int, tuple[int, int]] = field(default_factory=dict)
    """(wins, seats) in each game that is not void: the clusters of the win-rate interval."""

    def add(self, game_no: int, game: GameResult, seat: SeatResult) -> None:
        """Count a seat: reliability and cost over every game; results only over games
        that are not void (a void game was decided by infrastructure failures)."""
        self.all_games.add(game_no)
        self.kinds.add(seat.kind)
        self.decisions += seat.decisions
        self.fallbacks += seat.fallbacks
        self.infra_fallbacks += seat.fallbacks_infrastructure
        self.model_fallbacks += seat.fallbacks_model
        self.tokens += seat.tokens_in + seat.tokens_out
        self.cost += seat.cost
        own, delegated = POLICY_COUNTERS
        if own in seat.extra:  # a seat without the counters says nothing of the split
            self.policy_decisions += seat.extra[own]
            self.delegated_decisions += seat.extra.get(delegated, 0.0)
        if game.void:
            self.void_games.add(game_no)
            return
        self.games.add(game_no)
        self.sides.add(seat.side)
        self.seats += 1
        self.wins += int(seat.won)
        _count(self.per_game, game_no, int(seat.won))
        if game.is_draw:
            self.drawn_games.add(game_no)
        self.side_seats[seat.side] += 1
        self.side_wins[seat.side] += int(seat.won)
        _count(self.side_games[seat.side], game_no, int(seat.won))
        if seat.side == "mafia" and seat.survived is not None:
            self.mafia_known += 1
            self.mafia_alive += int(seat.survived)
            _count(self.mafia_games, game_no, int(seat.survived))
        for name in PER_SEAT_MEANS:
            value = seat.metric(name)
            if value is not None:
                self.metric_values[name][game_no].append(value)
        claims = seat.metric(FALSE_CLAIMS)
        if claims is not None and claims > 0:
            self._add_claims(game_no, int(claims), seat)

    def _add_claims(self, game_no: int, claims: int, seat: SeatResult) -> None:
        """Count a seat's `claims` false role claims. The record gives the mean days they
        stood and the mean of those days squared (for a lone claim, its mean squared),
        so the game's sums over claims are those of each claim's own days."""
        days = seat.metric(FALSE_CLAIM_DAYS) or 0.0
        squares = seat.metric(FALSE_CLAIM_DAYS_SQ)
        if squares is None:
            self.claim_spread_unknown |= claims > 1
            squares = days * days
        self.false_claims += claims
        self.false_claim_days += claims * days
        known = self.claim_moments.get(game_no, Moments(0, 0.0, 0.0))
        self.claim_moments[game_no] = Moments(
            known.n + claims, known.total + claims * days, known.squares + claims * squares
        )

    def win_rate_interval(self, confidence: float) -> tuple[float, float]:
        """The win rate's interval with the seats of one game as one cluster (they share
        its outcome: `stats.clustered_wilson_interval`)."""
        return clustered_wilson_interval(self.per_game.values(), confidence)

    def mean(self, name: str, confidence: float) -> tuple[float, float, float]:
        """(mean, low, high) of a per-seat metric over the seats where it is defined, the
        interval clustered by game (`ClusteredMeanAccumulator`) and clipped to the
        metric's range; NaNs where no seat has a value."""
        by_game = self.metric_values.get(name)
        estimate = clustered_mean_ci(by_game.values(), confidence) if by_game else None
        if by_game is None or estimate is None:
            return (math.nan, math.nan, math.nan)
        floor, ceiling = _METRIC_RANGE.get(name, (-math.inf, math.inf))
        low, high = max(floor, estimate.low), min(ceiling, estimate.high)
        return (float(math.fsum(_flat(by_game.values())) / estimate.n), low, high)

    def false_claim_survival(self, confidence: float) -> tuple[float, float, float]:
        """(mean days a false role claim stood, low, high): each claim is one value and a
        game's claims one cluster (`metrics.aggregate.clustered_moments_ci`), the interval
        clipped at 0 days; NaNs without a claim. The interval is NaN where a seat of
        several claims came without `FALSE_CLAIM_DAYS_SQ` (a record written before it):
        the spread of those claims' days is unknown, and counting their mean once per
        claim would make the interval too narrow."""
        estimate = clustered_moments_ci(self.claim_moments.values(), confidence)
        if estimate is None:
            return (math.nan, math.nan, math.nan)
        value = self.false_claim_days / self.false_claims
        if self.claim_spread_unknown:
            return (value, math.nan, math.nan)
        return (value, max(0.0, estimate.low), estimate.high)

    def rate(self, side: str, confidence: float) -> tuple[float, float, float]:
        """(win rate, low, high) on one side, clustered by game; NaNs without a seat."""
        n = self.side_seats.get(side, 0)
        if not n:
            return (math.nan, math.nan, math.nan)
        low, high = clustered_wilson_interval(self.side_games[side].values(), confidence)
        return (self.side_wins.get(side, 0) / n, low, high)

    def mafia_survival(self, confidence: float) -> tuple[float, float, float]:
        """(share of mafia seats alive at the end, low, high), clustered by game."""
        if not self.mafia_known:
            return (math.nan, math.nan, math.nan)
        low, high = clustered_wilson_interval(self.mafia_games.values(), confidence)
        return (self.mafia_alive / self.mafia_known, low, high)


def _count(tallies: dict[int, tuple[int, int]], game_no: int, success: int) -> None:
    """One more trial, `success` or not, in the game's (successes, trials)."""
    successes, trials = tallies.get(game_no, (0, 0))
    tallies[game_no] = (successes + success, trials + 1)


def _flat(groups: Iterable[list[float]]) -> Iterable[float]:
    return (value for group in groups for value in group)


#: Value ranges the per-seat metrics' intervals are clipped to (all shares but one).
_METRIC_RANGE: dict[str, tuple[float, float]] = {
    "irp": (0.0, 1.0),
    "vss": (0.0, 1.0),
    "bus_rate": (0.0, 1.0),
    "brier": (0.0, 1.0),
}
