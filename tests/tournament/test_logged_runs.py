"""What a tournament logs in MLflow stays what it was when the final logging got cheaper.

`logged_runs.json` beside this file holds what the code before that change logged for
`SPEC` into a fresh SQLite store: every run by name with its status, params, metrics,
tags and artifacts (names, and the content of each that the same games always give).
The test logs the same spec with the code now and reads it back through MLflow's client.
Values that differ from one run of the command to the next are left out, by name
(`VOLATILE`); the plots' pixels are compared where they are drawn
(tests/tournament/test_tracking_cost.py).

Regenerate (only when a change of what is logged is meant):
``PYTHONPATH=src python -m tests.tournament.test_logged_runs``.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

GOLDEN = Path(__file__).with_name("logged_runs.json")
NAME = "logged-runs"
SPEC = """base_seed = 11
pool = ["random", "heuristic"]
games = 3

[[variants]]
variant = "simple"
players = 5
label = "first"

[[variants]]
variant = "simple"
players = 6
label = "second"

[[variants]]
variant = "classic"
players = 7
label = "third"
"""
VOLATILE = {
    "metrics": {"wall_s", "games_per_s"},
    "tags": {
        "mafia_arena.version",
        "mafia_arena.git_commit",
        "mafia_arena.source_digest",
        "mafia_arena.store",
    },
    "summary": {"wall_s", "games_per_s", "child_runs"},
}
"""What changes between two runs of the same command: times, the code's identity and
the store's random id (their names are still compared), run ids."""


def _without_code(line: bytes) -> str:
    """A game log's line less the name of the code that played it (its header's
    ``meta.code``: the source digest changes with every edit of the package)."""
    entry = json.loads(line)
    if isinstance(entry, dict) and isinstance(entry.get("meta"), dict):
        entry["meta"].pop("code", None)
    return json.dumps(entry, sort_keys=True)


def _archive(path: Path) -> dict[str, str]:
    """A log archive's entries: name -> digest of its game log less the code's name."""
    entries: dict[str, str] = {}
    with tarfile.open(path, "r:gz") as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            assert handle is not None
            text = "\n".join(_without_code(line) for line in handle.read().splitlines())
            entries[member.name] = hashlib.sha256(text.encode()).hexdigest()
    return entries


def _content(path: Path) -> Any:
    """What an artifact holds that the same games always give: a PNG's presence (its
    pixels are tested where drawn), a log archive's entries, a Parquet table's rows, the
    summary less its volatile keys, else the file's digest."""
    if path.suffix == ".png":
        return "png"
    if path.name.endswith(".tar.gz"):
        return _archive(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
        return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
    if path.name == "summary.json":
        summary = json.loads(path.read_text(encoding="utf-8"))
        return {k: v for k, v in sorted(summary.items()) if k not in VOLATILE["summary"]}
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _artifacts(client: Any, run_id: str, into: Path) -> dict[str, Any]:
    local = Path(client.download_artifacts(run_id, "", str(into)))
    return {
        str(path.relative_to(local)): _content(path)
        for path in sorted(local.rglob("*"))
        if path.is_file()
    }


def _tag(key: str, value: str, names: dict[str, str], folder: Path) -> str:
    if key in VOLATILE["tags"]:
        return "<varies>"
    if key == "mlflow.parentRunId":
        return names[value]
    return value.replace(str(folder), "<folder>")


def logged(uri: str, folder: Path) -> dict[str, Any]:
    """Every run of the experiment `NAME` in the store at `uri`, by run name, read back
    through MLflow's client; `folder` (where the spec and results lie) is written as
    ``<folder>`` in the tags that name a path."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(NAME)
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id], max_results=1000)
    names = {run.info.run_id: run.info.run_name for run in runs}
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            metrics = run.data.metrics
            out[run.info.run_name] = {
                "status": run.info.status,
                "params": dict(sorted(run.data.params.items())),
                "metrics": {
                    k: ("<varies>" if k in VOLATILE["metrics"] else metrics[k])
                    for k in sorted(metrics)
                },
                "tags": {k: _tag(k, v, names, folder) for k, v in sorted(run.data.tags.items())},
                "artifacts": _artifacts(client, run.info.run_id, Path(tmp) / run.info.run_id),
            }
    return dict(sorted(out.items()))


def log_spec(folder: Path) -> dict[str, Any]:
    """Run `SPEC` in `folder` (fixed host key, fresh SQLite store) and read back what
    it logged."""
    from mafia_arena.experiments import run_tournament

    spec = write_spec(folder, NAME, SPEC)
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    results = with_host_key(folder / "results")
    summary = run_tournament(
        spec, use_ray=False, results_dir=results, tracking_uri=uri, progress=False
    )
    assert summary.ok and summary.games_stored == 9
    return logged(uri, folder)


def test_a_tournament_logs_the_runs_params_metrics_tags_and_artifacts_it_logged(
    tmp_path: Path,
) -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(log_spec(tmp_path)))  # as the golden file holds it
    assert sorted(got) == sorted(expected)
    for name, run in expected.items():
        for part, value in run.items():
            assert got[name][part] == value, (name, part)


def main() -> None:
    """Write `GOLDEN` from the code on the import path."""
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = log_spec(Path(tmp))
    text = io.StringIO()
    json.dump(snapshot, text, indent=1, sort_keys=True)
    GOLDEN.write_text(text.getvalue() + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
