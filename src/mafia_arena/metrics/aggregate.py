"""Tournament-level aggregates of per-game values, with 95% confidence intervals.

* Proportions (win rates, survival) use the Wilson score interval, which stays inside
  [0, 1] and keeps sensible coverage for small samples and extreme rates; a rate over
  seats takes each game's seats as one cluster (`clustered`: they share its outcome).
* Means of per-game metric values use Student's interval ``mean ± t(n-1) · sd / sqrt(n)``
  over the games where the metric is defined (None is skipped, not counted as zero); with
  one value the interval is the point.
* Means over seats (an agent's IRP, VSS, tokens per seat) take each game's seats as one
  cluster, as the rates do (`ClusteredMeanAccumulator`): the seats of one game share
  its events, so they are not independent values; the quantile is then t(G-1) over the
  G games.

Student's quantile rather than the normal 1.96 because LLM leagues are often small (a
dozen games): with 5 games the normal interval is 29% narrower (1.96 against
t(4) = 2.78). From a few hundred games on, the two agree to the third decimal. The
quantile is `stats.t_quantile` (SciPy, in the tracking and leaderboard extras).

A mean is computed in two passes over the values (`MeanAccumulator`: the sum, then the
squared deviations from the mean), each a `FloatSum` that adds exactly as the built-in
``sum`` does. The values need not be held: a tournament's aggregates stream its store
twice and give the same numbers, bit for bit, as a list of its records would.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from mafia_arena.stats import ClusteredRate, t_quantile, wilson_interval

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and the number of values behind it."""

    value: float
    low: float
    high: float
    n: int


def wilson(successes: float, n: int) -> Estimate | None:
    """95% Wilson score interval of successes / n (`mafia_arena.stats`); None when n == 0."""
    if n <= 0:
        return None
    low, high = wilson_interval(successes, n)  # type: ignore[arg-type]
    return Estimate(successes / n, low, high, n)


def clustered(tally: ClusteredRate) -> Estimate | None:
    """The rate of a `ClusteredRate` with its 95% clustered Wilson interval and its
    number of trials; None without trials."""
    if tally.trials <= 0:
        return None
    low, high = tally.interval()
    return Estimate(tally.successes / tally.trials, low, high, tally.trials)


class FloatSum:
    """A running sum of floats equal, bit for bit, to ``sum(values)`` of the same values
    in the same order: plain addition before Python 3.12, the compensated (Neumaier)
    summation the built-in uses from 3.12 on. Exactness is what lets a streamed
    aggregate equal the one computed from a list."""

    __slots__ = ("compensation", "total")

    COMPENSATED = sys.version_info >= (3, 12)

    def __init__(self) -> None:
        self.total = 0.0
        self.compensation = 0.0

    def add(self, x: float) -> None:
        total = self.total
        t = total + x
        if self.COMPENSATED:
            if abs(total) >= abs(x):
                self.compensation += (total - t) + x
            else:
                self.compensation += (x - t) + total
        self.total = t

    @property
    def value(self) -> float:
        c = self.compensation
        return self.total + c if c and math.isfinite(c) else self.total


class MeanAccumulator:
    """`mean_ci` over values fed twice in the same order: `add` each value (pass one),
    then `add_second` each again (pass two: squared deviations from the first pass's
    mean), then `estimate`. None and NaN are skipped, as in `mean_ci`."""

    __slots__ = ("deviations", "n", "total")

    def __init__(self) -> None:
        self.total = FloatSum()
        self.deviations = FloatSum()
        self.n = 0

    def add(self, value: float | int | bool | None) -> None:
        if value is not None and not _nan(value):
            self.total.add(float(value))
            self.n += 1

    @property
    def mean(self) -> float:
        return self.total.value / self.n

    def add_second(self, value: float | int | bool | None, mean: float) -> None:
        """Pass two; `mean` is `self.mean`, passed in so a caller computes it once."""
        if value is not None and not _nan(value):
            self.deviations.add((float(value) - mean) ** 2)

    def estimate(self, confidence: float = CONFIDENCE) -> Estimate | None:
        n = self.n
        if not n:
            return None
        mean = self.mean
        if n == 1:
            return Estimate(mean, mean, mean, 1)
        sd = math.sqrt(self.deviations.value / (n - 1))
        half = t_quantile(n - 1, confidence) * sd / math.sqrt(n)
        return Estimate(mean, mean - half, mean + half, n)


class ClusteredMeanAccumulator:
    """A mean over values that arrive in clusters of dependent values (an agent's seats in
    one game), with a cluster-robust interval, fed twice in the same order:
    `add` each cluster (pass one), then `add_second` each again, then `estimate`.

    The mean is ``m = sum y / n`` over the n defined values. Its variance is the ratio
    estimator's linearised one over the G clusters, ``G/(G-1) * sum_g (sum_{i in g}
    (y_i - m))^2 / n^2``, never below the independent-values variance ``s^2 / n`` (as
    the clustered rate's design effect is never below 1: seats of one game that move
    against each other are not counted as extra information). The clustered half-width
    takes the quantile t(G-1), the usual small-sample choice for a cluster-robust
    variance (it has G - 1 degrees of freedom, however many seats); the floor keeps
    t(n-1). With one cluster the
    clusters say nothing about the spread and the independent-values variance is used;
    with one value the interval is the point. None and NaN are skipped, as in `mean_ci`.
    """

    __slots__ = ("cluster_spread", "clusters", "values")

    def __init__(self) -> None:
        self.values = MeanAccumulator()
        self.cluster_spread = FloatSum()
        self.clusters = 0

    def add(self, cluster: Iterable[float | int | bool | None]) -> None:
        n = self.values.n
        for value in cluster:
            self.values.add(value)
        self.clusters += self.values.n > n

    @property
    def n(self) -> int:
        return self.values.n

    @property
    def mean(self) -> float:
        return self.values.mean

    def add_second(self, cluster: Iterable[float | int | bool | None], mean: float) -> None:
        """Pass two; `mean` is `self.mean`, passed in so a caller computes it once."""
        deviation = FloatSum()
        for value in cluster:
            if value is not None and not _nan(value):
                self.values.add_second(value, mean)
                deviation.add(float(value) - mean)
        self.cluster_spread.add(deviation.value**2)

    def estimate(self, confidence: float = CONFIDENCE) -> Estimate | None:
        independent = self.values.estimate(confidence)
        groups, n = self.clusters, self.values.n
        if independent is None or n == 1 or groups < 2:
            return independent
        mean = independent.value
        variance = groups / (groups - 1) * self.cluster_spread.value / (n * n)
        clustered = t_quantile(groups - 1, confidence) * math.sqrt(variance)
        half = max(clustered, mean - independent.low)
        return Estimate(mean, mean - half, mean + half, n)


def clustered_mean_ci(
    clusters: Iterable[Iterable[float | int | bool | None]], confidence: float = CONFIDENCE
) -> Estimate | None:
    """`ClusteredMeanAccumulator` over a list of clusters; None without a defined value."""
    clusters = [list(cluster) for cluster in clusters]
    return _fed_twice(ClusteredMeanAccumulator(), clusters, confidence)


@dataclass(frozen=True)
class Moments:
    """`n` values known by their sum `total` and their sum of `squares` (not one by one):
    enough for their mean and variance, as `ClusteredMeanAccumulator` takes them."""

    n: int
    total: float
    squares: float


def clustered_moments_ci(
    clusters: Iterable[Moments], confidence: float = CONFIDENCE
) -> Estimate | None:
    """`clustered_mean_ci` of values known only by each cluster's `Moments`: the same
    mean, variances and quantiles (``s^2`` from the sums of squares), so a mean over
    values a record keeps as a count, a mean and a mean square (a seat's false claims)
    has the interval its values would have one by one. None without a value."""
    clusters = [c for c in clusters if c.n > 0]
    n = sum(c.n for c in clusters)
    if not n:
        return None
    mean = math.fsum(c.total for c in clusters) / n
    if n == 1:
        return Estimate(mean, mean, mean, 1)
    squares = math.fsum(c.squares - 2.0 * mean * c.total + c.n * mean * mean for c in clusters)
    independent = t_quantile(n - 1, confidence) * math.sqrt(max(0.0, squares) / (n - 1) / n)
    groups = len(clusters)
    half = independent
    if groups > 1:
        spread = math.fsum((c.total - c.n * mean) ** 2 for c in clusters)
        variance = groups / (groups - 1) * spread / (n * n)
        half = max(half, t_quantile(groups - 1, confidence) * math.sqrt(variance))
    return Estimate(mean, mean - half, mean + half, n)


def mean_ci(
    values: Iterable[float | int | bool | None], confidence: float = CONFIDENCE
) -> Estimate | None:
    """Mean with Student's interval over the defined values; None if none."""
    return _fed_twice(MeanAccumulator(), list(values), confidence)


def _fed_twice(acc: Any, items: list[Any], confidence: float) -> Estimate | None:
    """`acc`'s estimate after both passes over `items` (the second only where it has two
    values: with one the interval is the point)."""
    for item in items:
        acc.add(item)
    if acc.n > 1:
        mean = acc.mean
        for item in items:
            acc.add_second(item, mean)
    return cast(Estimate | None, acc.estimate(confidence))


def _nan(value: float | int | bool) -> bool:
    return isinstance(value, float) and math.isnan(value)
