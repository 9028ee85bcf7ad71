"""The dictator spec (experiments/dictator.toml) on a real local Ray with a real
MLflow store: every game is played and stored, and the forum channel metrics reach
each matchup's run."""

from __future__ import annotations

from pathlib import Path

from tests.host_key import with_host_key
from tests.tournament.conftest import REPO

from mafia_arena.experiments import load_spec, run_tournament

SPEC = REPO / "experiments" / "dictator.toml"


def test_the_dictator_tournament_runs_on_ray_and_tracks_channel_metrics(
    ray_cluster: str, mlflow_uri: str, tmp_path: Path
) -> None:
    from mlflow import MlflowClient

    spec = load_spec(SPEC)
    summary = run_tournament(
        SPEC, results_dir=with_host_key(tmp_path), tracking_uri=mlflow_uri, progress=False
    )
    assert summary.ok and summary.games_played == spec.games_total
    client = MlflowClient(tracking_uri=mlflow_uri)
    assert len(summary.child_run_ids) == len(spec.matchups)
    for run_id in summary.child_run_ids.values():
        metrics = client.get_run(run_id).data.metrics
        assert metrics["games"] > 0
        assert metrics["pm.total"] > 0 and "town_partner_mafia" in metrics
