"""Aggregates fed record by record equal those of the built-in arithmetic, bit for bit.

A tournament's store is streamed through the tallies rather than held; these tests pin
that the streamed numbers are exactly those of the list-based computation.
"""

from __future__ import annotations

import math
import random
import statistics

from scipy.stats import t as student_t

from mafia_arena.metrics.aggregate import FloatSum, mean_ci


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
