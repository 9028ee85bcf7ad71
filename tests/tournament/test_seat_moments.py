"""A tournament's MLflow summaries leave out the per-seat moments kept for an interval.

``false_claim_days_sq`` (docs/metrics.md) is the mean square of the days a seat's false
role claims stood: the records keep it so the leaderboard's ``false_claim_survival``
interval counts each claim's own days. It is no quantity a reader reads, so no run logs
it as an agent's metric (``agent.<name>.false_claim_days_sq``) or estimate, while the
agent's ``false_claim_days`` beside it is logged as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

SPEC = """
base_seed = 11
pool = ["random", "heuristic"]
games = 3

[[variants]]
variant = "classic"
players = 7
"""
"""Games in which random players make false role claims (so the moment has values)."""


def test_no_mlflow_run_logs_an_agent_s_false_claim_days_sq(tmp_path: Path, mlflow_uri: str) -> None:
    from mlflow import MlflowClient

    summary = run_tournament(
        write_spec(tmp_path, "seat-moments", SPEC),
        use_ray=False,
        results_dir=with_host_key(tmp_path / "results"),
        tracking_uri=mlflow_uri,
        progress=False,
    )
    assert summary.ok and summary.games_stored == 3
    records = read_records(tmp_path / "results" / "games.jsonl")
    kept = [
        values["false_claim_days_sq"]
        for r in records
        for values in r["metrics"]["per_seat"].values()
        if values.get("false_claim_days_sq") is not None
    ]
    assert kept  # the records keep it for the leaderboard's interval
    client = MlflowClient(tracking_uri=mlflow_uri)
    runs = [summary.parent_run_id, *summary.child_run_ids.values()]
    logged = {name for run in runs for name in client.get_run(run).data.metrics}
    assert any(name.endswith(".false_claim_days") for name in logged)  # the mean still is
    assert not [name for name in logged if "false_claim_days_sq" in name]
