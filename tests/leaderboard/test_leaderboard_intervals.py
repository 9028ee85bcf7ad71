"""Wilson score intervals and the game bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from mafia_arena.leaderboard.intervals import (
    bootstrap_ci,
    bootstrap_distribution,
    percentile_interval,
    resample_indices,
    resample_rows,
    wilson_interval,
    z_value,
)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.27753),  # closed form: upper = z²/(n+z²)
        (10, 10, 0.72247, 1.0),
        (5, 10, 0.23659, 0.76341),
        (1, 10, 0.01787, 0.40415),
        (8, 10, 0.49016, 0.94332),
    ],
)
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (3, 7), (17, 40), (99, 100), (250, 1000)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_matches_scipy(k: int, n: int, confidence: float) -> None:
    ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    lo, hi = wilson_interval(k, n, confidence)
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)


def test_wilson_edge_cases() -> None:
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        z_value(1.0)
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_resample_indices_seeded() -> None:
    a = resample_indices(50, 20, seed=3)
    b = resample_indices(50, 20, seed=3)
    assert a.shape == (20, 50)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, resample_indices(50, 20, seed=4))
    assert a.min() >= 0 and a.max() < 50


@pytest.mark.parametrize("n", [0, 1, 7, 1001, 100_000])
def test_resample_rows_are_the_rows_of_resample_indices(n: int) -> None:
    rows = list(resample_rows(n, 5, seed=11))
    assert len(rows) == 5
    assert np.array_equal(np.stack(rows), resample_indices(n, 5, seed=11))


def test_bootstrap_mean_interval_covers_and_is_reproducible() -> None:
    rng = np.random.default_rng(0)
    games = [{"won": bool(x)} for x in rng.random(400) < 0.3]

    def win_share(sample: list[dict[str, bool]]) -> float:
        return sum(g["won"] for g in sample) / len(sample)

    lo, hi = bootstrap_ci(games, win_share, n_boot=300, seed=1)
    assert lo < win_share(games) < hi
    assert 0.2 < lo < hi < 0.4
    assert (lo, hi) == bootstrap_ci(games, win_share, n_boot=300, seed=1)


def test_bootstrap_vector_statistic_and_nan_handling() -> None:
    dist = bootstrap_distribution([1.0, 2.0, 3.0], lambda s: [min(s), max(s)], n_boot=25)
    assert dist.shape == (25, 2)
    samples = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    lo, hi = percentile_interval(samples, 0.5)
    assert lo[0] == pytest.approx(1.5) and hi[0] == pytest.approx(2.5)
    assert math.isnan(lo[1]) and math.isnan(hi[1])
