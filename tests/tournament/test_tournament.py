"""Tournaments on a real local Ray and a real MLflow store.

The reference is the smoke spec played in-process; every other way of running it — on
Ray, with a worker killed mid-run, with the driver SIGKILLed and restarted — must end
with exactly the same records and logs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import REPO, SMOKE, write_spec

from mafia_arena.agents import registry
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.experiments import (
    ResultsConflict,
    TournamentError,
    load_spec,
    read_records,
    run_tournament,
)

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

Snapshot = tuple[list[dict], dict[str, str]]


def snapshot(folder: Path) -> Snapshot:
    """The records as read, and every log file's text."""
    records = read_records(folder / "games.jsonl")
    return records, {r["log_path"]: (folder / r["log_path"]).read_text() for r in records}


def estimates(client, run_id: str) -> dict[str, tuple[float, float, float]]:
    """(ci_low, value, ci_high) per name, from the run's tables/estimates.csv."""
    import csv
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = client.download_artifacts(run_id, "tables/estimates.csv", tmp)
        with open(path, newline="") as handle:
            return {
                row["name"]: (float(row["ci_low"]), float(row["value"]), float(row["ci_high"]))
                for row in csv.DictReader(handle)
            }


def raw_indices(folder: Path) -> list[int]:
    lines = (folder / "games.jsonl").read_text().splitlines()
    return sorted(json.loads(line)["game_index"] for line in lines)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    folder = with_host_key(tmp_path_factory.mktemp("reference"))
    summary = run_tournament(SMOKE, use_ray=False, results_dir=folder, track=False, progress=False)
    assert summary.ok
    return snapshot(folder)


def test_ray_tournament_logs_runs_metrics_and_artifacts(
    ray_cluster: str, mlflow_uri: str, tmp_path: Path, reference: Snapshot
) -> None:
    from mlflow import MlflowClient

    spec = load_spec(SMOKE)
    summary = run_tournament(
        SMOKE, results_dir=with_host_key(tmp_path), tracking_uri=mlflow_uri, progress=False
    )
    assert summary.ok and summary.games_played == spec.games_total
    assert snapshot(tmp_path) == reference

    client = MlflowClient(tracking_uri=mlflow_uri)
    experiment = client.get_experiment_by_name(spec.name)
    assert experiment is not None
    runs = client.search_runs(
        [experiment.experiment_id], f"tags.`mafia_arena.spec_hash` = '{spec.spec_hash}'"
    )
    parents = [r for r in runs if r.data.tags["mafia_arena.run_kind"] == "tournament"]
    children = {
        r.info.run_name: r for r in runs if r.data.tags["mafia_arena.run_kind"] == "matchup"
    }
    assert [p.info.run_id for p in parents] == [summary.parent_run_id]
    assert set(children) == {m.label for m in spec.matchups}
    for matchup in spec.matchups:
        child = children[matchup.label]
        assert child.data.tags["mlflow.parentRunId"] == summary.parent_run_id
        assert child.info.status == "FINISHED"
        assert child.data.params["variant"] == matchup.variant
        assert child.data.params["players"] == str(matchup.players)
        metrics = child.data.metrics
        assert metrics["games"] == matchup.games
        wins = [k for k in metrics if k.startswith("win.") and k.count(".") == 1]
        assert sum(metrics[k] for k in wins) + metrics["draw"] == pytest.approx(1.0)
        intervals = estimates(client, child.info.run_id)
        for key in [*wins, "irp", "length_days", "agent.random.win_rate"]:
            low, value, high = intervals[key]
            assert value == pytest.approx(metrics[key])
            assert low <= value <= high
        assert not [k for k in metrics if k.endswith((".ci_low", ".ci_high"))]
        roles = [k for k in metrics if k.startswith("agent.random.role.")]
        assert roles and all(0.0 <= metrics[k] <= 1.0 for k in roles)
        names = {a.path for a in client.list_artifacts(child.info.run_id)}
        assert {"tables", "plots", "logs.tar.gz"} <= names
        tables = {a.path for a in client.list_artifacts(child.info.run_id, "tables")}
        assert {"tables/games.csv", "tables/seats.csv"} <= tables
    parent = client.get_run(summary.parent_run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.metrics["games_stored"] == spec.games_total
    assert parent.data.metrics["games_done"] == spec.games_total
    assert "rating.random.bt" in parent.data.metrics
    assert parent.data.tags["mafia_arena.version"]
    assert {"spec.toml", "summary.json", "tables", "plots"} <= {
        a.path for a in client.list_artifacts(summary.parent_run_id)
    }

    again = run_tournament(SMOKE, results_dir=tmp_path, tracking_uri=mlflow_uri, progress=False)
    assert (again.games_played, again.games_skipped) == (0, spec.games_total)
    assert again.parent_run_id == summary.parent_run_id
    assert again.child_run_ids == summary.child_run_ids


def test_a_killed_worker_loses_and_duplicates_no_game(
    ray_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: Snapshot
) -> None:
    marker = tmp_path / "killed-once"
    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"kill_at": 4, "marker": str(marker)}))
    summary = run_tournament(
        SMOKE, results_dir=with_host_key(tmp_path / "r"), track=False, progress=False
    )
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # a worker died
    assert summary.ok
    assert raw_indices(tmp_path / "r") == list(range(summary.games_total))
    assert snapshot(tmp_path / "r") == reference


def test_a_killed_driver_resumes_to_identical_results(
    ray_cluster: str, tmp_path: Path, reference: Snapshot
) -> None:
    results = with_host_key(tmp_path / "r")
    code = (
        "from mafia_arena.experiments import run_tournament\n"
        f"run_tournament({str(SMOKE)!r}, address={ray_cluster!r}, "
        f"results_dir={str(results)!r}, track=False, progress=False)\n"
    )
    env = {**os.environ, "MAFIA_ARENA_FAULT": json.dumps({"sleep_per_game_s": 0.3})}
    with (tmp_path / "driver.log").open("w") as log:
        driver = subprocess.Popen(
            [sys.executable, "-c", code], env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 90
        while not read_records(results / "games.jsonl"):
            assert driver.poll() is None, (tmp_path / "driver.log").read_text()
            assert time.monotonic() < deadline, "the driver stored nothing in 90 s"
            time.sleep(0.02)
        driver.kill()
        driver.wait()
    stored = read_records(results / "games.jsonl")
    total = load_spec(SMOKE).games_total
    assert 0 < len(stored) < total, "kill the driver mid-run"

    summary = run_tournament(SMOKE, results_dir=results, track=False, progress=False)
    assert summary.games_skipped == len(stored)
    assert summary.games_played == total - len(stored)
    assert raw_indices(results) == list(range(total))
    assert snapshot(results) == reference


def test_a_changed_spec_is_refused_unless_started_over(tmp_path: Path) -> None:
    body = 'pool = ["random"]\n[[variants]]\nvariant = "simple"\nplayers = 5\ngames = {}\n'
    spec = write_spec(tmp_path, "changed", body.format(3))
    results = tmp_path / "r"
    run_tournament(spec, use_ray=False, results_dir=results, track=False, progress=False)
    spec = write_spec(tmp_path, "changed", body.format(4))
    with pytest.raises(ResultsConflict, match="another version"):
        run_tournament(spec, use_ray=False, results_dir=results, track=False, progress=False)
    summary = run_tournament(
        spec, use_ray=False, results_dir=results, resume=False, track=False, progress=False
    )
    assert summary.games_played == 4 and summary.ok
    assert list(results.glob("games.jsonl.*.old"))


class Broken(RandomAgent):
    name = "broken"

    def decide(self, view):  # a bug, not an illegal move: the game cannot go on
        raise RuntimeError("boom")


def test_failed_games_are_reported_and_the_rest_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry._SCRIPTED, "broken", Broken)
    spec = write_spec(
        tmp_path,
        "failing",
        'games = 2\n[[variants]]\nvariant = "simple"\n'
        'players = 5\npool = ["random"]\n[[variants]]\nvariant = "simple"\n'
        'players = 6\npool = ["broken"]\n',
    )
    with pytest.raises(TournamentError) as caught:
        run_tournament(spec, use_ray=False, results_dir=tmp_path / "r", track=False, progress=False)
    assert sorted(caught.value.failed) == [2, 3]
    assert "boom" in caught.value.failed[2]
    assert raw_indices(tmp_path / "r") == [0, 1]
