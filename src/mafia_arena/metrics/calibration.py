"""Calibration of stated beliefs: Brier score, ROC AUC, expected calibration error and
overconfidence over (probability, truth) pairs.

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


#: Equal-width probability bins of the expected calibration error.
CALIBRATION_BINS = 10


def calibration_error(pairs: Sequence[Pair], bins: int = CALIBRATION_BINS) -> float | None:
    """Expected calibration error: the statements grouped into `bins` equal-width bins of
    p (p = 1 in the last), then Σ over bins of (statements in the bin / all) ×
    |mean p − share that were mafia|. 0: among the players called "70% mafia", 70% were;
    unlike Brier it does not reward telling mafia from town, only saying honest numbers."""
    if not pairs:
        return None
    groups: dict[int, list[Pair]] = {}
    for p, y in pairs:
        # the epsilon keeps 0.3 (0.3 * 10 = 2.999…) in its own bin
        groups.setdefault(min(int(p * bins + 1e-9), bins - 1), []).append((p, y))
    total = 0.0
    for members in groups.values():
        mean_p = sum(p for p, _ in members) / len(members)
        rate = sum(y for _, y in members) / len(members)
        total += len(members) * abs(mean_p - rate)
    return total / len(pairs)


def overconfidence(pairs: Sequence[Pair]) -> float | None:
    """Mean confidence − accuracy: the confidence of a statement is max(p, 1 − p), it is
    right when it leans the true way (p > ½ for a mafioso, p < ½ otherwise; p = ½ counts
    one half). Positive: surer than right (0.9s that are right half the time: +0.4);
    negative: timid (0.6s that are always right: −0.4); 0 for a constant ½."""
    if not pairs:
        return None
    confidence = sum(max(p, 1.0 - p) for p, _ in pairs) / len(pairs)
    right = sum(0.5 if p == 0.5 else float((p > 0.5) == bool(y)) for p, y in pairs)
    return confidence - right / len(pairs)
