"""Shared fixtures: one real local Ray (2 CPUs) and one real MLflow SQLite store per
session (Ray takes ~10 s to start and a fresh MLflow database ~2 s to migrate)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "experiments" / "smoke.toml"


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A private local Ray of 2 CPUs (loopback only, as the driver starts it); yields its
    GCS address (for drivers that join it)."""
    ray = pytest.importorskip("ray")
    from mafia_arena.local_ray import start_local_ray

    start_local_ray(2)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def mlflow_uri(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("mlflow")
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp_path_factory.mktemp('mlflow') / 'mlflow.db'}"
    MlflowClient(tracking_uri=uri).search_experiments()  # create and migrate once
    return uri


def write_spec(folder: Path, name: str, body: str) -> Path:
    """A spec file `name`.toml in `folder` with a header and `body` (TOML)."""
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\n' + body, encoding="utf-8")
    return path
