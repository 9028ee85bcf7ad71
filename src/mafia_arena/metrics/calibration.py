"""Calibration of stated beliefs: Brier score and ROC AUC over (probability, truth) pairs.

A pair is one stated probability that a seat is on the mafia side and whether it was
(1) or not (0). Both functions return None when there is nothing to score, so a game
without stated beliefs has no calibration rather than a misleading zero.
"""

from __future__ import annotations

from collections.abc import Sequence

Pair = tuple[float, int]


def brier(pairs: Sequence[Pair]) -> float | None:
    """Mean squared error of the probabilities: mean((p - y)^2); 0 is perfect, 0.25 is
    a constant 0.5."""
    if not pairs:
        return None
    return sum((p - y) ** 2 for p, y in pairs) / len(pairs)


def auc(pairs: Sequence[Pair]) -> float | None:
    """Probability that a random mafia pair got a higher p than a random town pair (ties
    count one half; the Mann-Whitney U statistic over both counts); None without both."""
    positives = [p for p, y in pairs if y]
    negatives = [p for p, y in pairs if not y]
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for q in negatives:
            wins += 1.0 if p > q else 0.5 if p == q else 0.0
    return wins / (len(positives) * len(negatives))
