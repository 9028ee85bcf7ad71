"""Intervals that say how little few or dependent observations tell.

Win rates: the seats of one game share its outcome, so a game is one cluster of seats
(`stats.clustered_wilson_interval`). Ratings: the bootstrap collapses for an entity with
few games (the prior holds every refit in place), so the reported interval also spans the
fit's Laplace interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mafia_arena.leaderboard.ratings import bootstrap_bradley_terry, compute_ratings
from mafia_arena.leaderboard.table import leaderboard_table
from mafia_arena.stats import clustered_wilson_interval, wilson_interval

from .test_leaderboard_ratings import GameFactory


def test_one_seat_per_game_is_about_plain_wilson() -> None:
    """Only the between-game variance's small-sample factor G/(G-1) widens it."""
    clusters = [(1, 1)] * 7 + [(0, 1)] * 13
    low, high = clustered_wilson_interval(clusters)
    plain = wilson_interval(7, 20)
    assert low <= plain[0] and high >= plain[1]
    assert high - low == pytest.approx(plain[1] - plain[0], rel=0.05)


def test_seats_sharing_a_games_outcome_count_about_once_per_game() -> None:
    clusters = [(5, 5)] * 4 + [(0, 5)] * 12  # five town seats, 4 games of 16 won
    low, high = clustered_wilson_interval(clusters)
    per_game, per_seat = wilson_interval(4, 16), wilson_interval(20, 80)
    assert low <= per_game[0] and high >= per_game[1]
    assert high - low > 1.5 * (per_seat[1] - per_seat[0])


def test_a_rate_of_zero_counts_games_not_seats() -> None:
    assert clustered_wilson_interval([(0, 5)] * 4) == wilson_interval(0, 4)
    assert clustered_wilson_interval([(3, 3)]) == wilson_interval(1, 1)


def test_anti_correlated_seats_are_no_narrower_than_per_seat() -> None:
    # one seat on each side of every game: always one win, one loss
    assert clustered_wilson_interval([(1, 2)] * 20) == wilson_interval(20, 40)


def test_clustered_intervals_cover_where_per_seat_ones_do_not() -> None:
    """Coverage over 2,000 simulated leagues: an agent in five town seats of 30 games,
    town winning each game with probability 0.3. Counting seats as independent covers
    the true rate far less often than 95%; the clustered interval covers it."""
    rng = np.random.default_rng(5)
    truth, games, seats = 0.3, 30, 5
    per_seat = clustered = 0
    reps = 2000
    for _ in range(reps):
        won = rng.random(games) < truth
        wins = int(won.sum())
        low, high = wilson_interval(wins * seats, games * seats)
        per_seat += low <= truth <= high
        low, high = clustered_wilson_interval([(seats * int(w), seats) for w in won])
        clustered += low <= truth <= high
    assert per_seat / reps < 0.85
    assert clustered / reps >= 0.93


def test_the_leaderboard_win_rate_interval_clusters_by_game(game: GameFactory) -> None:
    town = [("x", "villager", "town")] * 5 + [("y", "mafioso", "mafia")] * 2
    records = [game(town, "town" if i < 4 else "mafia", game_index=i, seed=i) for i in range(16)]
    row = leaderboard_table(records, n_boot=0).set_index("agent").loc["x"]
    assert row["win_rate_high"] - row["win_rate_low"] >= np.subtract(*wilson_interval(4, 16)[::-1])


def _league_with_a_newcomer(game: GameFactory) -> list[dict[str, Any]]:
    """300 games of A and B, then Z as one of five villagers in 4 games, all lost."""
    rng = np.random.default_rng(1)
    records = []
    for i in range(300):
        town_agent, mafia_agent = ("A", "B") if i % 2 else ("B", "A")
        seats = [(town_agent, "villager", "town")] * 5 + [(mafia_agent, "mafioso", "mafia")] * 2
        winner = "town" if rng.random() < (0.6 if town_agent == "A" else 0.3) else "mafia"
        records.append(game(seats, winner, game_index=i, seed=i))
    for i in range(4):
        seats = [("Z", "villager", "town")] + [("A", "villager", "town")] * 4
        seats += [("B", "mafioso", "mafia")] * 2
        records.append(game(seats, "mafia", game_index=300 + i, seed=300 + i))
    return records


def test_a_rating_from_four_games_has_a_wide_interval(game: GameFactory) -> None:
    records = _league_with_a_newcomer(game)
    frame = compute_ratings(records, levels=("agent",), n_boot=100, seed=0)["agent"]
    z = frame.set_index("agent").loc["Z"]
    boot_low, boot_high = bootstrap_bradley_terry(records, n_boot=100, seed=0)[("Z",)]
    assert z["bt_low"] <= boot_low and z["bt_high"] >= boot_high
    assert z["bt_high"] - z["bt_low"] > 1.5 * (boot_high - boot_low)
    assert z["bt_high"] - z["bt_low"] > 1000  # four games of one seat in five: little
    assert z["bt_low"] < z["bt_rating"] < z["bt_high"]


def test_well_observed_ratings_keep_their_bootstrap_interval(game: GameFactory) -> None:
    """A and B played 304 games each: their own games pin them down, so the newcomer's
    uncertainty does not spread to them through the Laplace part."""
    records = _league_with_a_newcomer(game)
    rows = compute_ratings(records, levels=("agent",), n_boot=100)["agent"].set_index("agent")
    boot = bootstrap_bradley_terry(records, n_boot=100)
    for agent in ("A", "B"):
        assert (rows.loc[agent, "bt_low"], rows.loc[agent, "bt_high"]) == boot[(agent,)]


@pytest.mark.parametrize("games", [40, 400])
def test_the_interval_narrows_as_games_accumulate(games: int) -> None:
    from mafia_arena.leaderboard.synthetic import synthetic_records

    strengths = {"A": 1.0, "B": 0.0, "C": -1.0}
    few = compute_ratings(synthetic_records(games, strengths=strengths, seed=3), n_boot=50)
    more = compute_ratings(synthetic_records(4 * games, strengths=strengths, seed=3), n_boot=50)
    width = lambda f: (f["bt_high"] - f["bt_low"]).to_numpy()  # noqa: E731
    assert (width(more["agent"]) < width(few["agent"])).all()


def test_tracked_win_rates_cluster_like_the_leaderboard(game: GameFactory) -> None:
    """The tournament's MLflow aggregates and the published table give an agent's and a
    role's win rate the same interval (the store is streamed through integer tallies;
    the table keeps its games)."""
    from mafia_arena.leaderboard.table import roles_table
    from mafia_arena.tracking.summaries import agent_aggregates, role_aggregates

    rng = np.random.default_rng(4)
    records = []
    for i in range(40):
        seats = [("x", "villager", "town")] * 3 + [("y", "villager", "town")] * 2
        seats += [("x", "mafioso", "mafia"), ("y", "mafioso", "mafia")]
        winner = "town" if rng.random() < 0.4 else "mafia"
        records.append(game(seats, winner, game_index=i, seed=i))
    table = leaderboard_table(records, n_boot=0).set_index("agent")
    tracked = agent_aggregates(records)
    roles = roles_table(records, n_boot=0).set_index(["agent", "role"])
    tracked_roles = role_aggregates(records)
    for agent in ("x", "y"):
        estimate = tracked[f"agent.{agent}.win_rate"]
        expected = (table.loc[agent, "win_rate_low"], table.loc[agent, "win_rate_high"])
        assert (estimate.low, estimate.high) == pytest.approx(expected, abs=1e-12)
        role = tracked_roles[f"agent.{agent}.role.villager.win_rate"]
        expected = (
            roles.loc[(agent, "villager"), "win_rate_low"],
            roles.loc[(agent, "villager"), "win_rate_high"],
        )
        assert (role.low, role.high) == pytest.approx(expected, abs=1e-12)
    villagers = tracked_roles["agent.x.role.villager.win_rate"]
    per_seat = wilson_interval(round(villagers.value * villagers.n), villagers.n)
    assert villagers.high - villagers.low > per_seat[1] - per_seat[0]
