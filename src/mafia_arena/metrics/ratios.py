"""Small helpers shared by the metric modules."""

from __future__ import annotations

from collections import defaultdict


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when the denominator is zero (metric undefined)."""
    return numerator / denominator if denominator else None


class Counts:
    """Per-seat numerator/denominator pairs, turned into per-seat ratios at the end."""

    def __init__(self) -> None:
        self.num: defaultdict[int, float] = defaultdict(float)
        self.den: defaultdict[int, float] = defaultdict(float)

    def add(self, seat: int, hit: bool | float, weight: float = 1.0) -> None:
        self.num[seat] += float(hit)
        self.den[seat] += weight

    def of(self, seat: int) -> float | None:
        return ratio(self.num.get(seat, 0.0), self.den.get(seat, 0.0))

    def total(self) -> float | None:
        return ratio(sum(self.num.values()), sum(self.den.values()))
