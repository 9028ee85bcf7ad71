"""Tournament-level aggregates of per-game values, with 95% confidence intervals.

* Proportions (win rates, survival) use the Wilson score interval, which stays inside
  [0, 1] and keeps sensible coverage for small samples and extreme rates.
* Means of per-game metric values (ratios such as IRP) use the normal interval
  ``mean ± 1.96 · sd / sqrt(n)`` over the games where the metric is defined (None is
  skipped, not counted as zero); with one value the interval is the point.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from mafia_arena.stats import wilson_interval

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


def mean_ci(values: Iterable[float | int | bool | None], z: float = Z95) -> Estimate | None:
    """Mean with a normal-approximation interval over the defined values; None if none."""
    xs = [float(v) for v in values if v is not None and not _nan(v)]
    if not xs:
        return None
    n = len(xs)
    mean = sum(xs) / n
    if n == 1:
        return Estimate(mean, mean, mean, 1)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = z * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def _nan(value: float | int | bool) -> bool:
    return isinstance(value, float) and math.isnan(value)
