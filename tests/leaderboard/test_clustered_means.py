"""Means over seats (IRP, VSS, bus rate, tokens per seat) and per-side rates with
intervals that take a game's seats as one cluster, on the board and in MLflow alike."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mafia_arena.leaderboard.render import markdown_leaderboard
from mafia_arena.leaderboard.table import leaderboard_table
from mafia_arena.metrics.aggregate import ClusteredMeanAccumulator, clustered_mean_ci, mean_ci
from mafia_arena.stats import clustered_wilson_interval, t_quantile, wilson_interval, z_value
from mafia_arena.tracking.summaries import agent_aggregates

from .test_leaderboard_ratings import GameFactory

NORMAL_95 = z_value(0.95)


def test_independent_clusters_of_one_give_the_plain_interval() -> None:
    values = [0.1, 0.5, 0.2, 0.9, 0.4, 0.3, 0.7]
    clustered, plain = clustered_mean_ci([[v] for v in values]), mean_ci(values)
    assert clustered is not None and plain is not None
    assert clustered.value == plain.value
    # only the small-sample factor G/(G-1) differs: never narrower than the plain one
    assert clustered.low <= plain.low and clustered.high >= plain.high
    assert clustered.high - clustered.low == pytest.approx(plain.high - plain.low, rel=0.1)


def test_seats_that_share_a_game_count_about_once() -> None:
    """Five seats per game with the same value: eight games, not forty values."""
    per_game = [0.1, 0.8, 0.3, 0.6, 0.2, 0.9, 0.4, 0.5]
    clustered = clustered_mean_ci([[v] * 5 for v in per_game])
    per_seat = mean_ci([v for v in per_game for _ in range(5)])
    one_per_game = mean_ci(per_game)
    assert clustered is not None and per_seat is not None and one_per_game is not None
    assert clustered.high - clustered.low > 2 * (per_seat.high - per_seat.low)
    assert clustered.high - clustered.low == pytest.approx(
        one_per_game.high - one_per_game.low, rel=0.1
    )


def test_seats_that_move_against_each_other_are_no_narrower_than_per_seat() -> None:
    clusters = [[0.0, 1.0]] * 10  # every game: one seat 0, the other 1
    clustered, per_seat = clustered_mean_ci(clusters), mean_ci([0.0, 1.0] * 10)
    assert clustered == per_seat


def test_undefined_values_and_single_games() -> None:
    assert clustered_mean_ci([[None, None], [float("nan")]]) is None
    one = clustered_mean_ci([[0.25]])
    assert one is not None and (one.low, one.high) == (0.25, 0.25)
    single_game = clustered_mean_ci([[0.2, 0.4, 0.6]])
    assert single_game == mean_ci([0.2, 0.4, 0.6])  # one game says nothing of its spread


def test_streaming_equals_the_list() -> None:
    rng = np.random.default_rng(2)
    clusters = [list(rng.random(rng.integers(1, 4))) for _ in range(50)]
    acc = ClusteredMeanAccumulator()
    for cluster in clusters:
        acc.add(cluster)
    mean = acc.mean
    for cluster in clusters:
        acc.add_second(cluster, mean)
    assert acc.estimate() == clustered_mean_ci(clusters)


TRUTH = 0.5


def _leagues(seed: int, games: int, seats: int, reps: int = 2000) -> Iterator[np.ndarray]:
    """`reps` simulated leagues: an agent in `seats` seats of `games` games whose metric
    is mostly the game's (a shared game effect, sd 0.2, plus seat noise, sd 0.05) around
    `TRUTH`; each a (games, seats) array."""
    rng = np.random.default_rng(seed)
    for _ in range(reps):
        game_effect = rng.normal(0.0, 0.2, size=(games, 1))
        yield TRUTH + game_effect + rng.normal(0.0, 0.05, size=(games, seats))


def test_clustered_means_cover_where_per_seat_ones_do_not() -> None:
    """2,000 leagues of 30 games, five seats each: per-seat intervals miss the true mean
    far more often than 5%; the clustered ones cover it."""
    per_seat = clustered = 0
    for values in _leagues(8, games=30, seats=5):
        estimate = mean_ci(values.ravel().tolist())
        assert estimate is not None
        per_seat += estimate.low <= TRUTH <= estimate.high
        estimate = clustered_mean_ci(values.tolist())
        assert estimate is not None
        clustered += estimate.low <= TRUTH <= estimate.high
    assert per_seat / 2000 < 0.85
    assert clustered / 2000 >= 0.93


def test_small_leagues_take_students_quantile() -> None:
    """2,000 leagues of 5 games, three seats each: the clustered interval with
    t(4) = 2.78 covers the true mean in at least 93% of leagues; the same interval with
    the normal 1.96 in under 90%."""
    assert t_quantile(4) == pytest.approx(2.776, abs=1e-3)
    normal = student = 0
    for values in _leagues(11, games=5, seats=3):
        estimate = clustered_mean_ci(values.tolist())
        assert estimate is not None
        student += estimate.low <= TRUTH <= estimate.high
        half = (estimate.high - estimate.low) / 2 * NORMAL_95 / t_quantile(4)
        normal += abs(estimate.value - TRUTH) <= half
    assert student / 2000 >= 0.93
    assert normal / 2000 < 0.90


def _records(game: GameFactory) -> list[dict[str, Any]]:
    """40 games: x holds three villager seats and a mafioso, y the rest; each game's IRP
    of x's seats moves together."""
    rng = np.random.default_rng(4)
    records = []
    for i in range(40):
        seats = [("x", "villager", "town")] * 3 + [("y", "villager", "town")] * 2
        seats += [("x", "mafioso", "mafia"), ("y", "mafioso", "mafia")]
        shared = float(rng.random())
        per_seat = {
            str(s): {"irp": min(1.0, shared + 0.01 * s), "vss": float(rng.random())}
            for s in range(7)
        }
        winner = "town" if rng.random() < 0.4 else "mafia"
        record = game(seats, winner, game_index=i, seed=i, per_seat=per_seat)
        record["seats"][5]["survived"] = bool(i % 3)
        records.append(record)
    return records


def test_the_board_gives_every_rate_and_mean_a_clustered_interval(game: GameFactory) -> None:
    records = _records(game)
    row = leaderboard_table(records, n_boot=0).set_index("agent").loc["x"]
    town = [(3 * (r["winner"] == "town"), 3) for r in records]
    assert (row["win_rate_town_low"], row["win_rate_town_high"]) == clustered_wilson_interval(town)
    mafia = [(int(r["winner"] == "mafia"), 1) for r in records]
    assert (row["win_rate_mafia_low"], row["win_rate_mafia_high"]) == clustered_wilson_interval(
        mafia
    )
    assert row["win_rate_town_high"] - row["win_rate_town_low"] > 1.5 * np.subtract(
        *wilson_interval(sum(w for w, _ in town), 120)[::-1]
    )
    survived = [(int(bool(i % 3)), 1) for i in range(40)]
    assert (row["mafia_survival_low"], row["mafia_survival_high"]) == clustered_wilson_interval(
        survived
    )
    irp = [[r["metrics"]["per_seat"][str(s)]["irp"] for s in (0, 1, 2, 5)] for r in records]
    estimate = clustered_mean_ci(irp)
    assert estimate is not None
    assert row["irp"] == pytest.approx(estimate.value, abs=1e-12)
    assert (row["irp_low"], row["irp_high"]) == (
        pytest.approx(max(0.0, estimate.low), abs=1e-12),
        pytest.approx(min(1.0, estimate.high), abs=1e-12),
    )
    per_seat = mean_ci([v for cluster in irp for v in cluster])
    assert per_seat is not None
    assert row["irp_high"] - row["irp_low"] > 1.5 * (per_seat.high - per_seat.low)
    board = markdown_leaderboard(leaderboard_table(records, n_boot=0))
    assert "| IRP [95% CI] |" in board and "as town [95% CI]" in board
    assert f"{row['irp']:.3f} [{row['irp_low']:.3f}, {row['irp_high']:.3f}]" in board


def test_tracked_means_cluster_like_the_board(game: GameFactory) -> None:
    records = _records(game)
    table = leaderboard_table(records, n_boot=0).set_index("agent")
    tracked = agent_aggregates(records)
    for agent in ("x", "y"):
        for metric in ("irp", "vss"):
            estimate = tracked[f"agent.{agent}.{metric}"]
            assert estimate.value == pytest.approx(table.loc[agent, metric], abs=1e-12)
            low, high = table.loc[agent, f"{metric}_low"], table.loc[agent, f"{metric}_high"]
            assert max(0.0, estimate.low) == pytest.approx(low, abs=1e-12)
            assert min(1.0, estimate.high) == pytest.approx(high, abs=1e-12)
        tokens = tracked[f"agent.{agent}.tokens_in_per_seat"]
        assert (tokens.value, tokens.low, tokens.high) == (0.0, 0.0, 0.0)


def test_metrics_nobody_has_drop_with_their_interval(game: GameFactory) -> None:
    records = [game([("x", "villager", "town"), ("y", "mafioso", "mafia")], "town")]
    frame = leaderboard_table(records, n_boot=0)
    assert not {"irp", "irp_low", "irp_high", "brier_low"} & set(frame.columns)
    assert math.isnan(frame.set_index("agent").loc["x", "win_rate_mafia_low"])
