"""Tournament-level aggregates of per-game values, with 95% confidence intervals.

* Proportions (win rates, survival) use the Wilson score interval, which stays inside
  [0, 1] and keeps sensible coverage for small samples and extreme rates; a rate over
  seats takes each game's seats as one cluster (`clustered`: they share its outcome).
* Means of per-game metric values (ratios such as IRP) use the normal interval
  ``mean ± 1.96 · sd / sqrt(n)`` over the games where the metric is defined (None is
  skipped, not counted as zero); with one value the interval is the point.

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

from mafia_arena.stats import ClusteredRate, wilson_interval

Z95 = 1.959963984540054


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

    def estimate(self, z: float = Z95) -> Estimate | None:
        n = self.n
        if not n:
            return None
        mean = self.mean
        if n == 1:
            return Estimate(mean, mean, mean, 1)
        sd = math.sqrt(self.deviations.value / (n - 1))
        half = z * sd / math.sqrt(n)
        return Estimate(mean, mean - half, mean + half, n)


def mean_ci(values: Iterable[float | int | bool | None], z: float = Z95) -> Estimate | None:
    """Mean with a normal-approximation interval over the defined values; None if none."""
    xs = list(values)
    acc = MeanAccumulator()
    for v in xs:
        acc.add(v)
    if acc.n > 1:
        mean = acc.mean
        for v in xs:
            acc.add_second(v, mean)
    return acc.estimate(z)


def _nan(value: float | int | bool) -> bool:
    return isinstance(value, float) and math.isnan(value)
