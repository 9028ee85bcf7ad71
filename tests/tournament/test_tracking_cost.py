"""A tournament's final logging does per matchup only what the matchup needs: one MLflow
batch for its child run (no search of its own), and plots drawn once each, with the
margins a tight layout gives (docs/tournaments.md, *MLflow*). What a user sees in MLflow
stays: every child run's params, metrics and artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.tracking import plots

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

MATCHUPS = 8
CHILD_ARTIFACTS = {
    "logs.tar.gz",
    "plots/agent_win_rates.png",
    "plots/length.png",
    "plots/win_rates.png",
    "tables/estimates.csv",
    "tables/estimates.parquet",
    "tables/games.csv",
    "tables/games.parquet",
    "tables/seats.csv",
    "tables/seats.parquet",
}


def artifact_names(client: Any, run_id: str, path: str | None = None) -> set[str]:
    names: set[str] = set()
    for item in client.list_artifacts(run_id, path):
        if item.is_dir:
            names |= artifact_names(client, run_id, item.path)
        else:
            names.add(item.path)
    return names


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of `owner.name` (the real method still runs)."""
    calls: list[int] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_resumed_store_finds_its_child_runs_in_one_search_and_logs_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlflow import MlflowClient

    text = 'base_seed = 5\npool = ["random"]\ngames = 1\n' + "".join(
        f'[[variants]]\nvariant = "simple"\nplayers = 5\nlabel = "m{i}"\n' for i in range(MATCHUPS)
    )
    spec = write_spec(tmp_path, "costs", text)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    results = with_host_key(tmp_path / "r")
    first = run_tournament(spec, use_ray=False, results_dir=results, tracking_uri=uri)
    searches = counting(monkeypatch, MlflowClient, "search_runs")
    batches = counting(monkeypatch, MlflowClient, "log_batch")
    again = run_tournament(spec, use_ray=False, results_dir=results, tracking_uri=uri)
    assert again.child_run_ids == first.child_run_ids  # reopened, not made again
    assert len(searches) <= 2  # the parent's, and one page of children
    assert len(batches) <= MATCHUPS + 3  # one per child; the parent's open, progress, end
    client = MlflowClient(tracking_uri=uri)
    for label, run_id in again.child_run_ids.items():
        run = client.get_run(run_id)
        assert run.info.status == "FINISHED"
        assert {"variant", "players", "games", "seating", "pool", "first_game_index"} <= set(
            run.data.params
        )
        assert {"games", "games_void", "games_expected"} <= set(run.data.metrics)
        assert "mafia_arena.version" in run.data.tags
        assert artifact_names(client, run_id) == CHILD_ARTIFACTS, label
    assert len(read_records(results / "games.jsonl")) == MATCHUPS


def test_reused_margins_draw_the_plots_a_tight_layout_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from matplotlib.figure import Figure
    from tests.tournament.test_plotted_rates import record

    monkeypatch.setattr(plots, "_MARGINS", plots._Margins())  # nothing computed yet
    layouts = counting(monkeypatch, Figure, "tight_layout")
    tally = plots.PlotTally()
    for won in (True, False, True):
        tally.add(record("town" if won else "mafia", [won] * 3))
    first = tally.draw(tmp_path / "first", "m1")
    second = tally.draw(tmp_path / "second", "m1")
    assert [p.name for p in first] == ["win_rates.png", "agent_win_rates.png", "length.png"]
    assert len(layouts) == 3  # the first of each kind only
    for one, other in zip(first, second, strict=True):
        assert one.read_bytes() == other.read_bytes()
