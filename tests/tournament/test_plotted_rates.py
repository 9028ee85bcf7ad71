"""The win rates the run's plots draw are the ones the docs define: void games left out
(docs/tournaments.md, *Void games*), an agent's seats of one game taken as one cluster
(docs/metrics.md, *Aggregation*), as in the aggregates and on the leaderboard."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mafia_arena.tracking.plots import PlotTally

Z = 1.959963984540054


def record(winner: str, won: list[bool], *, void: bool = False, days: int = 3) -> dict[str, Any]:
    """A game of `len(won)` town seats of agent "a" (winning when `won`) and one mafia seat
    of agent "b"."""
    seats = [
        {"agent": "a", "faction": "town", "side": "town", "won": w, "survived": True} for w in won
    ]
    seats.append({"agent": "b", "faction": "mafia", "side": "mafia", "won": winner == "mafia"})
    return {"winner": winner, "seats": seats, "length_days": days, "void": void}


def wilson(p: float, n: float) -> tuple[float, float]:
    """The docs' Wilson interval at rate p and (effective) size n."""
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def test_a_void_game_is_not_in_the_plotted_win_rates_or_lengths() -> None:
    tally = PlotTally()
    tally.add(record("mafia", [False, False], void=True, days=9))
    tally.add(record("town", [True, True], days=2))
    table = tally.wins.table()
    assert tally.wins.n == 1
    assert table["town"].value == 1.0
    assert table["mafia"].value == 0.0
    assert tally.lengths == {2: 1}
    assert tally.by_side["a (town)"].trials == 2
    assert tally.by_side["b (mafia)"].successes == 0


def test_an_agents_seats_of_one_game_are_one_cluster_in_the_side_plot() -> None:
    tally = PlotTally()
    for won in (True, True, False, False):
        tally.add(record("town" if won else "mafia", [won] * 5))
    rate = tally.by_side["a (town)"]
    low, high = rate.interval()
    # 20 seats in 4 games, each game all won or all lost: p = 1/2,
    # v = 4/3 * 4 * 2.5^2 / 20^2, deff = v / (p(1-p)/n) = 20/3, n_eff = 3
    expected = wilson(0.5, 3.0)
    assert (low, high) == pytest.approx(expected, abs=1e-12)
    assert high - low > wilson(0.5, 20.0)[1] - wilson(0.5, 20.0)[0] + 0.2
