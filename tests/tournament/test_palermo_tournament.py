"""The Palermo spec (experiments/palermo.toml) on a real local Ray with a real MLflow
store: every game is played and stored with its log, and each matchup's run is
tracked. Each record is also checked against its log: the winner, and the next-game
`banned` list against the log's removals for absences (empty when, as is usual with
so few games, nobody was removed; T05 plays a removal).

The spec is played as shipped except for its game count (kept small: a few games per
player count), so its variants, pool, seating and concurrency are what is tested."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import REPO

from mafia_arena.engine.catalogue import StateChanged
from mafia_arena.experiments import load_spec, read_records, run_tournament
from mafia_arena.runner.log import GameLog

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

SPEC = REPO / "experiments" / "palermo.toml"
GAMES = 3
"""Games per player count: enough for every matchup of the 12- and 16-player presets."""


def small_copy(folder: Path) -> Path:
    """experiments/palermo.toml with `games` set to `GAMES`, in `folder`."""
    text, found = re.subn(r"(?m)^games = \d+", f"games = {GAMES}", SPEC.read_text("utf-8"))
    assert found == 1, "experiments/palermo.toml has no `games = N` line"
    path = folder / "palermo.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_palermo_tournament_runs_on_ray_and_tracks_every_matchup(
    ray_cluster: str, mlflow_uri: str, tmp_path: Path
) -> None:
    from mlflow import MlflowClient

    spec_path = small_copy(tmp_path)
    spec = load_spec(spec_path)
    assert spec.games_total == 2 * GAMES and {m.variant for m in spec.matchups} == {"palermo"}
    results = with_host_key(tmp_path / "results")
    summary = run_tournament(
        spec_path, results_dir=results, tracking_uri=mlflow_uri, progress=False
    )
    assert summary.ok and summary.games_played == spec.games_total
    records = read_records(results / "games.jsonl")
    assert sorted(r["players"] for r in records) == [12] * GAMES + [16] * GAMES
    for record in records:
        assert record["variant"] == "palermo" and not record["void"]
        log = GameLog.load(results / record["log_path"])
        assert log.result is not None and log.result.winner == record["winner"]
        removed = [
            e.fact.seat
            for e in log.events
            if isinstance(e.fact, StateChanged) and e.fact.cause == "absences"
        ]
        assert record.get("banned", []) == sorted(removed), record["game_index"]
    client = MlflowClient(tracking_uri=mlflow_uri)
    assert len(summary.child_run_ids) == len(spec.matchups)
    for run_id in summary.child_run_ids.values():
        metrics = client.get_run(run_id).data.metrics
        assert metrics["games"] > 0
