"""`false_claim_survival`'s interval takes each false role claim's own days as one value.

A record keeps a seat's claims as a count, their mean days and the mean of their days
squared (`metrics.deception`); the interval must be the one the claims would have one by
one, clustered by game (docs/leaderboard.md), not one that counts the seat's mean once per
claim: that drops the spread between a seat's claims and narrows the interval. Here the
interval is computed afresh from hand-made claims, with the formula written out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from scipy.stats import t

from mafia_arena.leaderboard.table import leaderboard_table

GameFactory = Callable[..., dict[str, Any]]

SEATS = [
    ("liar", "mafioso", "mafia"),
    ("liar", "mafioso", "mafia"),
    ("bot", "villager", "town"),
    ("bot", "doctor", "town"),
]

#: Days each false role claim of the liar's two seats stood, game by game.
Claims = list[tuple[list[int], list[int]]]
#: Every game's claims average 6 days, so the games agree and the spread is all within
#: seats: a seat's mean counted once per claim would give the interval [6, 6].
SPREAD_WITHIN_SEATS: Claims = [([4, 8], []), ([5, 7], []), ([6], [3, 9])]
#: Games that disagree, seats of one claim and seats of none.
SPREAD_BETWEEN_GAMES: Claims = [([1, 2], [2]), ([], [5, 7, 9]), ([0], []), ([3, 3], [4])]


def seat_metrics(days: list[int]) -> dict[str, float | int | None]:
    """A seat's false-claim metrics as `metrics.deception` writes them."""
    if not days:
        return {"false_role_claims": 0, "false_claim_days": None, "false_claim_days_sq": None}
    return {
        "false_role_claims": len(days),
        "false_claim_days": sum(days) / len(days),
        "false_claim_days_sq": sum(d * d for d in days) / len(days),
    }


def records(game: GameFactory, claims: Claims) -> list[dict[str, Any]]:
    return [
        game(
            SEATS,
            "mafia",
            game_index=index,
            per_seat={"0": seat_metrics(first), "1": seat_metrics(second)},
        )
        for index, (first, second) in enumerate(claims)
    ]


def expected_interval(claims: Claims) -> tuple[float, float, float]:
    """Mean days over claims with its 95% interval: m ± max(t(G−1)·sqrt(v_games),
    t(n−1)·s/sqrt(n)) over the n claims in G games, clipped at 0 days."""
    games = [first + second for first, second in claims if first + second]
    values = [d for days in games for d in days]
    n, groups = len(values), len(games)
    mean = sum(values) / n
    s2 = sum((d - mean) ** 2 for d in values) / (n - 1)
    v_games = groups / (groups - 1) * sum(sum(d - mean for d in g) ** 2 for g in games) / n**2
    half = max(t.ppf(0.975, groups - 1) * math.sqrt(v_games), t.ppf(0.975, n - 1) * (s2 / n) ** 0.5)
    return (mean, max(0.0, mean - half), mean + half)


@pytest.mark.parametrize("claims", [SPREAD_WITHIN_SEATS, SPREAD_BETWEEN_GAMES])
def test_the_interval_counts_each_claim_once_with_its_own_days(
    game: GameFactory, claims: Claims
) -> None:
    row = leaderboard_table(records(game, claims), n_boot=0).set_index("agent").loc["liar"]
    value, low, high = expected_interval(claims)
    assert row["false_claim_survival"] == pytest.approx(value)
    assert row["false_claim_survival_low"] == pytest.approx(low, abs=1e-9)
    assert row["false_claim_survival_high"] == pytest.approx(high, abs=1e-9)


def test_several_claims_without_their_spread_leave_the_interval_empty(
    game: GameFactory,
) -> None:
    """A record written before `false_claim_days_sq` existed: the value still stands, but
    the spread of a seat's several claims is unknown, so no interval is made up."""
    old = records(game, SPREAD_WITHIN_SEATS)
    for record in old:
        for values in record["metrics"]["per_seat"].values():
            del values["false_claim_days_sq"]
    row = leaderboard_table(old, n_boot=0).set_index("agent").loc["liar"]
    assert row["false_claim_survival"] == pytest.approx(6.0)
    assert math.isnan(row["false_claim_survival_low"])
    assert math.isnan(row["false_claim_survival_high"])


def test_single_claims_need_no_spread(game: GameFactory) -> None:
    """One claim per seat: the mean is the claim's days, so its square is known."""
    claims: Claims = [([2], [5]), ([3], []), ([], [1])]
    old = records(game, claims)
    for record in old:
        for values in record["metrics"]["per_seat"].values():
            del values["false_claim_days_sq"]
    row = leaderboard_table(old, n_boot=0).set_index("agent").loc["liar"]
    _, low, high = expected_interval(claims)
    assert (row["false_claim_survival_low"], row["false_claim_survival_high"]) == pytest.approx(
        (low, high)
    )
