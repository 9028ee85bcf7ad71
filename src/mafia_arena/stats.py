"""Small statistics shared by the command line, the benchmarks and the leaderboards.

Standard library only at import, so the core command line needs no scientific stack;
`t_quantile` imports SciPy when it is first called (its callers, the tracking and
leaderboard code, come with the extras that install it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from statistics import NormalDist


def _upper_tail(confidence: float) -> float:
    """The cumulative probability of a two-sided interval's upper end at ``confidence``
    (0.95 → 0.975), after checking that ``confidence`` lies strictly between 0 and 1."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return 0.5 + confidence / 2.0


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (0.95 → 1.959963...)."""
    return NormalDist().inv_cdf(_upper_tail(confidence))


@lru_cache(maxsize=256)
def t_quantile(df: int, confidence: float = 0.95) -> float:
    """The two-sided Student t quantile with `df` degrees of freedom (``df`` >= 1):
    ``t_quantile(4) = 2.776...``, ``t_quantile(10**6) = 1.95996...``."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    from scipy.stats import t

    return float(t.ppf(_upper_tail(confidence), df))


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n``.

    Wilson rather than the normal ("Wald") interval because samples are often small and
    rates extreme (9 wins of 9): Wald collapses to zero width there, Wilson stays inside
    [0, 1] with sensible coverage. Returns ``(low, high)``; ``(nan, nan)`` when n == 0.

    With p = successes/n and z the two-sided normal quantile::

        centre = (p + z²/(2n)) / (1 + z²/n)
        half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/(4n²))
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return (math.nan, math.nan)
    return _wilson(successes / n, n, confidence)


def _wilson(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson's interval around the rate `p` of `n` (possibly effective, fractional)
    independent trials; the ends are exact at a rate of 0 or 1."""
    z = z_value(confidence)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return (low, high)


class ClusteredRate:
    """Successes and trials arriving in clusters of dependent trials (an agent's wins and
    seats in each game), tallied as they come: a few integer sums, whatever the number of
    clusters, so a tournament's store can be streamed through it. `interval` is
    `clustered_wilson_interval` of the clusters added."""

    __slots__ = ("clusters", "cross", "squared_successes", "squared_trials", "successes", "trials")

    def __init__(self) -> None:
        self.clusters = 0
        self.successes = 0
        self.trials = 0
        self.squared_successes = 0  # sum x_g^2
        self.cross = 0  # sum x_g n_g
        self.squared_trials = 0  # sum n_g^2

    def add(self, successes: int, trials: int) -> None:
        """One cluster: `successes` of `trials` (a cluster without trials adds nothing)."""
        if not 0 <= successes <= trials:
            raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
        if trials == 0:
            return
        self.clusters += 1
        self.successes += successes
        self.trials += trials
        self.squared_successes += successes * successes
        self.cross += successes * trials
        self.squared_trials += trials * trials

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """See `clustered_wilson_interval`."""
        x, n, groups = self.successes, self.trials, self.clusters
        if n == 0:
            return (math.nan, math.nan)
        if groups < 2 or x in (0, n):
            deff = n / groups
        else:
            # sum (x_g - p n_g)^2 with p = x/n, times n^2: exact in integers
            spread = (
                n * n * self.squared_successes
                - 2 * x * n * self.cross
                + x * x * self.squared_trials
            )
            # variance G/(G-1) * spread / n^4 over the binomial p(1-p)/n = x(n-x)/n^3
            deff = groups / (groups - 1) * spread / (n * x * (n - x))
        return _wilson(x / n, n / max(1.0, deff), confidence)


def clustered_wilson_interval(
    clusters: Iterable[tuple[int, int]], confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson interval for a rate pooled over clusters of dependent trials.

    `clusters` are ``(successes, trials)`` per cluster: an agent's wins and seats in each
    game. The seats of one game share its outcome (every town seat wins or loses
    together), so counting them as independent trials understates the uncertainty: an
    agent in five town seats of 16 games has 16 outcomes, not 80. The interval is
    Wilson's at the *effective* sample size ``n / deff`` (Korn and Graubard's approach),
    where the design effect ``deff`` compares the between-cluster variance of the pooled
    rate (the ratio estimator's linearised variance, ``G/(G-1) * sum (x_g - p n_g)^2 /
    n^2`` over ``G`` clusters) with the independent-trials variance ``p(1-p)/n``:

    * ``deff`` is at least 1, so the interval is never narrower than the per-trial one (an
      agent on both sides of one game has anti-correlated seats; that is not counted as
      extra information);
    * at a rate of 0 or 1 the spread cannot be estimated and every game is taken as one
      trial (``deff = n / G``), as is a single game.

    ``(nan, nan)`` without trials. Streamed: `ClusteredRate`.
    """
    tally = ClusteredRate()
    for successes, trials in clusters:
        tally.add(successes, trials)
    return tally.interval(confidence)
