"""Aggregates fed record by record equal those of the built-in arithmetic, bit for bit.

A tournament's store is streamed through the tallies rather than held; these tests pin
that the streamed numbers are exactly those of the list-based computation.
"""

from __future__ import annotations

import math
import random
import statistics

from scipy.stats import t as student_t

from mafia_arena.metrics.aggregate import (
    FloatSum,
    Moments,
    clustered_mean_ci,
    clustered_moments_ci,
    mean_ci,
)


def test_float_sum_adds_exactly_as_the_builtin_sum() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        xs = [
            rng.choice([rng.random(), rng.random() * 1e16, -rng.random() * 1e-9, 0.1, -0.0])
            for _ in range(rng.randrange(40))
        ]
        total = FloatSum()
        for x in xs:
            total.add(x)
        assert total.value == sum(xs)
        assert math.copysign(1.0, total.value) == math.copysign(1.0, sum(xs))


def test_mean_ci_is_the_two_pass_student_interval() -> None:
    rng = random.Random(1)
    xs = [rng.gauss(3.0, 2.0) for _ in range(500)]
    estimate = mean_ci([*xs, None, float("nan")])
    assert estimate is not None and estimate.n == 500
    mean = sum(xs) / 500
    t499 = float(student_t.ppf(0.975, 499))
    half = t499 * math.sqrt(sum((x - mean) ** 2 for x in xs) / 499) / math.sqrt(500)
    assert (estimate.value, estimate.low, estimate.high) == (mean, mean - half, mean + half)
    assert abs(estimate.value - statistics.fmean(xs)) < 1e-12


def test_the_interval_from_moments_is_the_interval_from_the_values() -> None:
    """`clustered_moments_ci` (values known only by each cluster's count, sum and sum of
    squares, as a record keeps a seat's false claims) gives what `clustered_mean_ci`
    gives over the same values one by one, so the two cannot drift apart."""
    rng = random.Random(11)
    for _ in range(500):
        clusters = [
            [float(rng.randrange(0, 9)) for _ in range(rng.randrange(1, 5))]
            for _ in range(rng.randrange(1, 7))
        ]
        moments = [Moments(len(c), sum(c), sum(v * v for v in c)) for c in clusters]
        by_values, by_moments = clustered_mean_ci(clusters), clustered_moments_ci(moments)
        assert by_values is not None and by_moments is not None
        assert by_moments.n == by_values.n
        for got, want in zip(
            (by_moments.value, by_moments.low, by_moments.high),
            (by_values.value, by_values.low, by_values.high),
            strict=True,
        ):
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9), (clusters, got, want)
