"""Issue 18 item 8: every leaderboard column comes from a metric that exists.

The leaderboard once read ``false_claims`` while the metrics wrote ``false_role_claims``,
and the false-claim column silently vanished. Here real games are played through the
tournament pipeline (records and metrics as stored), and the leaderboard built from them
must have a non-empty column for every metric the data holds.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mafia_arena.experiments import run_tournament
from mafia_arena.leaderboard.table import (
    FALSE_CLAIM_DAYS,
    FALSE_CLAIMS,
    OPTIONAL_COLUMNS,
    SEAT_METRICS_READ,
    leaderboard_table,
)
from mafia_arena.results_file import read_records

ROOT = Path(__file__).resolve().parents[2]

#: The per-seat metric behind each optional metric column of the agent table.
SOURCE = {
    "irp": "irp",
    "vss": "vss",
    "bus_rate": "bus_rate",
    "brier": "brier",
    "false_claim_survival": FALSE_CLAIMS,
}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    folder = tmp_path_factory.mktemp("league")
    run_tournament(
        ROOT / "experiments" / "mini-league.toml",
        use_ray=False,
        results_dir=folder,
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


def test_every_metric_a_column_reads_is_written_by_the_metrics(records: list[dict]) -> None:
    written = {k for r in records for m in r["metrics"]["per_seat"].values() for k in m}
    assert set(SEAT_METRICS_READ) <= written, set(SEAT_METRICS_READ) - written


def test_no_metric_column_is_empty_for_data_that_has_it(records: list[dict]) -> None:
    assert any(v > 0 for v in per_seat_values(records, FALSE_CLAIMS)), "need false claims"
    table = leaderboard_table(records, n_boot=0)
    for column, metric in SOURCE.items():
        assert column in OPTIONAL_COLUMNS
        values = per_seat_values(records, metric)
        if column == "false_claim_survival":
            values = [v for v in values if v > 0]
        if not values:
            continue
        assert column in table, f"{column} dropped though {metric} has {len(values)} values"
        assert not all(math.isnan(v) for v in table[column]), f"{column} is empty"


def test_false_claim_survival_weights_each_seat_by_its_claims(records: list[dict]) -> None:
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
