"""Confidence intervals: Wilson score intervals and the percentile bootstrap over games.

Wilson rather than the normal ("Wald") interval because leaderboards are full of small
samples and extreme rates (an agent that won 9 of 9): Wald collapses to zero width there,
Wilson stays inside [0, 1] with sensible coverage.

The bootstrap resamples *whole games*: the seats of one game share an outcome and are
strongly dependent, so resampling seats would understate the uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from mafia_arena.stats import wilson_interval, z_value

__all__ = [
    "bootstrap_ci",
    "bootstrap_distribution",
    "percentile_interval",
    "resample_indices",
    "resample_rows",
    "wilson_interval",
    "z_value",
]

T = TypeVar("T")


def resample_indices(n: int, n_boot: int, seed: int | np.random.Generator) -> np.ndarray:
    """``(n_boot, n)`` array of indices drawn with replacement from ``range(n)``.

    Uses a ``numpy.random.Generator`` seeded with ``seed`` (or the generator given), so the
    same call always returns the same resamples.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if n == 0:
        return np.zeros((n_boot, 0), dtype=np.int64)
    return rng.integers(0, n, size=(n_boot, n))


def resample_rows(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """The rows of ``resample_indices(n, n_boot, seed)``, drawn one at a time (the
    generator fills an array in row order, so the rows are the same), so a bootstrap over
    a large tournament holds one resample rather than ``n_boot``."""
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        yield rng.integers(0, n, size=n) if n else np.zeros(0, dtype=np.int64)


def bootstrap_distribution(
    items: Sequence[T],
    statistic: Callable[[list[T]], Any],
    *,
    n_boot: int = 200,
    seed: int | np.random.Generator = 0,
) -> np.ndarray:
    """Statistic evaluated on ``n_boot`` resamples (with replacement) of ``items``.

    ``items`` are whole games (records); ``statistic`` maps a list of them to a float or to
    a 1-D array of fixed length. Returns shape ``(n_boot,)`` or ``(n_boot, k)``.
    Put ``items`` in a canonical order first if the result must not depend on input order:
    the resampled indices refer to positions.
    """
    idx = resample_indices(len(items), n_boot, seed)
    values = [np.asarray(statistic([items[i] for i in row]), dtype=float) for row in idx]
    return np.stack(values) if values else np.empty((0,))


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> Any:
    """Percentile interval over axis 0 of ``samples``, ignoring NaN (undefined resamples).

    Returns ``(low, high)``: floats for 1-D input, arrays for 2-D input. All-NaN columns
    give NaN.
    """
    samples = np.asarray(samples, dtype=float)
    alpha = (1.0 - confidence) / 2.0
    q = [100.0 * alpha, 100.0 * (1.0 - alpha)]
    if samples.size == 0:
        return (math.nan, math.nan)
    finite = np.isfinite(samples)
    if samples.ndim == 1:
        if not finite.any():
            return (math.nan, math.nan)
        lo, hi = np.percentile(samples[finite], q)
        return (float(lo), float(hi))
    out_lo = np.full(samples.shape[1], np.nan)
    out_hi = np.full(samples.shape[1], np.nan)
    for j in range(samples.shape[1]):
        col = samples[finite[:, j], j]
        if col.size:
            out_lo[j], out_hi[j] = np.percentile(col, q)
    return (out_lo, out_hi)


def bootstrap_ci(
    items: Sequence[T],
    statistic: Callable[[list[T]], float],
    *,
    n_boot: int = 200,
    seed: int | np.random.Generator = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap interval for a scalar ``statistic`` of a list of games."""
    dist = bootstrap_distribution(items, statistic, n_boot=n_boot, seed=seed)
    return percentile_interval(dist, confidence)
