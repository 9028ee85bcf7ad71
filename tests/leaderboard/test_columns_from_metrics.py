"""Issue 18 item 8: every leaderboard column comes from a metric that exists.

The leaderboard once read ``false_claims`` while the metrics wrote ``false_role_claims``,
and the false-claim column silently vanished. Here real games are played through the
tournament pipeline (records and metrics as stored), and the leaderboard built from them
must have a non-empty column for every metric the data holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.host_key import with_host_key

from mafia_arena.experiments import run_tournament
from mafia_arena.leaderboard.columns import (
    FALSE_CLAIM_DAYS,
    FALSE_CLAIMS,
    OPTIONAL_COLUMNS,
    POLICY_COUNTERS,
    SEAT_METRICS_READ,
    ZERO_OPTIONAL_COLUMNS,
)
from mafia_arena.leaderboard.records import GameResult, SeatResult, prepare_games
from mafia_arena.leaderboard.table import leaderboard_table
from mafia_arena.results_file import read_records

ROOT = Path(__file__).resolve().parents[2]

Seats = list[tuple[GameResult, SeatResult]]


def _metric(name: str) -> Callable[[Seats], int]:
    return lambda seats: sum(s.metric(name) is not None for _, s in seats)


def _side(side: str) -> Callable[[Seats], int]:
    return lambda seats: sum(s.side == side for g, s in seats if not g.void)


#: For each optional column of the agent table (dropped when empty), how many data
#: points the games hold for it: a column whose data has a point must not be empty.
SOURCE: dict[str, Callable[[Seats], int]] = {
    "seats_solo": _side("solo"),
    "win_rate_solo": _side("solo"),
    "bt_solo": _side("solo"),
    "irp": _metric("irp"),
    "vss": _metric("vss"),
    "mafia_survival": lambda seats: sum(
        s.side == "mafia" and s.survived is not None for g, s in seats if not g.void
    ),
    "bus_rate": _metric("bus_rate"),
    "false_claim_survival": lambda seats: sum((s.metric(FALSE_CLAIMS) or 0) > 0 for _, s in seats),
    "brier": _metric("brier"),
    "void_games": lambda seats: sum(g.void for g, _ in seats),
    "infra_fallback_rate": lambda seats: sum(s.fallbacks_infrastructure > 0 for _, s in seats),
    "model_fallback_rate": lambda seats: sum(s.fallbacks_model > 0 for _, s in seats),
    "policy_share": lambda seats: sum(POLICY_COUNTERS[0] in s.extra for _, s in seats),
}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    folder = tmp_path_factory.mktemp("league")
    run_tournament(
        ROOT / "experiments" / "mini-league.toml",
        use_ray=False,
        results_dir=with_host_key(folder),
        track=False,
        progress=False,
    )
    return read_records(folder / "games.jsonl")


def per_seat_values(records: list[dict], name: str) -> list[float]:
    return [
        m[name]
        for r in records
        for m in r["metrics"]["per_seat"].values()
        if m.get(name) is not None
    ]


def test_item8_every_metric_a_column_reads_is_written_by_the_metrics(records: list[dict]) -> None:
    written = {k for r in records for m in r["metrics"]["per_seat"].values() for k in m}
    assert set(SEAT_METRICS_READ) <= written, set(SEAT_METRICS_READ) - written


def test_item8_every_optional_column_has_a_source() -> None:
    optional = {*OPTIONAL_COLUMNS, *ZERO_OPTIONAL_COLUMNS}
    assert optional - set(SOURCE) == set(), "optional columns without a source in SOURCE"
    assert set(SOURCE) - optional == set(), "SOURCE names columns that are not optional"


def test_item8_no_optional_column_is_empty_for_data_that_has_it(records: list[dict]) -> None:
    assert any(v > 0 for v in per_seat_values(records, FALSE_CLAIMS)), "need false claims"
    games = prepare_games(records)
    seats = [(game, seat) for game in games for seat in game.seats]
    table = leaderboard_table(records, n_boot=0)
    checked = []
    for column in (*OPTIONAL_COLUMNS, *ZERO_OPTIONAL_COLUMNS):
        points = SOURCE[column](seats)
        if not points:
            continue
        assert column in table, f"{column} dropped though the games hold {points} values"
        assert not table[column].isna().all(), f"{column} is empty"
        checked.append(column)
    assert len(checked) >= 5, checked  # the league's data reaches the metric columns


def test_item8_false_claim_survival_weights_each_seat_by_its_claims(records: list[dict]) -> None:
    table = leaderboard_table(records, n_boot=0).set_index("agent")
    for agent in table.index:
        seats = [
            r["metrics"]["per_seat"][str(s["seat"])]
            for r in records
            for s in r["seats"]
            if s["agent"] == agent
        ]
        claims = [(m[FALSE_CLAIMS], m[FALSE_CLAIM_DAYS]) for m in seats if m[FALSE_CLAIMS]]
        expected = sum(n * d for n, d in claims) / sum(n for n, _ in claims)
        assert table.loc[agent, "false_claim_survival"] == pytest.approx(expected)
