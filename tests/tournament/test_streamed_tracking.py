"""A tournament's end is streamed: the store is never read back as a list, and the
streamed tables are those of the list of rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.experiments.store import ResultsStore
from mafia_arena.tracking import tables
from mafia_arena.tracking.summaries import agent_aggregates, game_aggregates

SPEC = """
base_seed = 3
seating = "balanced"
pool = ["random", "heuristic"]
games = 12

[concurrency]
batch_size = 5

[[variants]]
variant = "simple"
players = 7

[[variants]]
variant = "classic"
players = 8
"""


def test_the_driver_never_reads_the_store_back_whole(
    tmp_path: Path, mlflow_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlflow import MlflowClient

    def whole(*args: object) -> None:
        raise AssertionError("the store was read back as a list")

    spec = write_spec(tmp_path, "streamed", SPEC)
    monkeypatch.setattr(ResultsStore, "read", whole)
    summary = run_tournament(
        spec,
        use_ray=False,
        results_dir=with_host_key(tmp_path / "r"),
        tracking_uri=mlflow_uri,
        progress=False,
    )
    assert summary.games_stored == 24 and summary.ok
    records = read_records(tmp_path / "r" / "games.jsonl")
    simple = [r for r in records if r["variant"] == "simple"]
    metrics = MlflowClient(tracking_uri=mlflow_uri).get_run(summary.child_run_ids["simple-7p"])
    logged = metrics.data.metrics
    for name, estimate in {**game_aggregates(simple), **agent_aggregates(simple)}.items():
        assert logged[name] == estimate.value, name
    assert logged["games"] == 12


def test_a_streamed_table_is_the_table_of_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"a": i, "b": None if i % 3 else i / 2, **({"c": f"x{i}"} if i % 4 == 0 else {})}
        for i in range(23)
    ]
    monkeypatch.setattr(tables, "ROW_GROUP", 5)  # five row groups
    tables.write_table(rows, tmp_path, "t")
    stored = pq.read_table(tmp_path / "t.parquet")
    columns = ["a", "b", "c"]
    assert stored.equals(pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in rows]))
    assert pq.ParquetFile(tmp_path / "t.parquet").num_row_groups == 5
    expected = io.StringIO(newline="")
    writer = csv.DictWriter(expected, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    assert (tmp_path / "t.csv").read_bytes().decode("utf-8") == expected.getvalue()


def test_many_matchups_are_logged_with_few_open_files(tmp_path: Path, mlflow_uri: str) -> None:
    """Each matchup's tables and log archive are closed once its games are logged: with
    every matchup's files open to the end, a spec of a few hundred matchups ran out of
    file handles (the default limit is 1,024 on Linux, 256 on macOS) after its games."""
    import os
    import resource

    matchups = 40
    text = 'base_seed = 5\npool = ["random"]\ngames = 1\n' + "".join(
        f'[[variants]]\nvariant = "simple"\nplayers = 5\nlabel = "m{i}"\n' for i in range(matchups)
    )
    spec = write_spec(tmp_path, "many", text)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    open_now = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + matchups, hard))
    try:
        summary = run_tournament(
            spec,
            use_ray=False,
            results_dir=with_host_key(tmp_path / "r"),
            tracking_uri=mlflow_uri,
            progress=False,
        )
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert summary.ok and summary.games_stored == matchups
    assert len(summary.child_run_ids) == matchups
