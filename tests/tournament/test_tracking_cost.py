"""A tournament's final logging does per matchup only what the matchup needs: its child
run created with its tags and one MLflow batch for the rest (no search of its own), and
plots drawn once each, with the margins a tight layout gives, on a figure the previous
plot of its kind left ready (docs/tournaments.md, *MLflow*). What a user sees in MLflow
stays: every child run's params, metrics and artifacts (tests/tournament/
test_logged_runs.py), and every plot's bytes."""

from __future__ import annotations

import random
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


def test_a_new_child_run_gets_its_tags_with_its_creation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each MLflow call that writes commits on its own; the code tags of a new child run
    come with its creation, so its batch commits params and metrics only."""
    from mlflow import MlflowClient

    created: list[dict[str, str]] = []
    batches: list[tuple[str, int]] = []
    create, batch = MlflowClient.create_run, MlflowClient.log_batch

    def create_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        created.append(dict(kwargs.get("tags") or {}))
        return create(self, *args, **kwargs)

    def log_batch(self: Any, run_id: str, *args: Any, **kwargs: Any) -> Any:
        batches.append((run_id, len(kwargs.get("tags") or [])))
        return batch(self, run_id, *args, **kwargs)

    monkeypatch.setattr(MlflowClient, "create_run", create_run)
    monkeypatch.setattr(MlflowClient, "log_batch", log_batch)
    text = 'base_seed = 5\npool = ["random"]\ngames = 1\n' + "".join(
        f'[[variants]]\nvariant = "simple"\nplayers = 5\nlabel = "m{i}"\n' for i in range(3)
    )
    spec = write_spec(tmp_path, "tags", text)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    summary = run_tournament(
        spec, use_ray=False, results_dir=with_host_key(tmp_path / "r"), tracking_uri=uri
    )
    children = [tags for tags in created if tags.get("mafia_arena.run_kind") == "matchup"]
    assert len(children) == 3
    for tags in children:
        assert {
            "mafia_arena.version",
            "mafia_arena.git_commit",
            "mafia_arena.source_digest",
        } <= set(tags)
    child_ids = set(summary.child_run_ids.values())
    assert [n for run_id, n in batches if run_id in child_ids] == [0, 0, 0]


def _tallies(count: int, seed: int) -> list[plots.PlotTally]:
    """`count` tallies of three to six games each, all with the same tick labels and
    ranges (one game of each length from 2 to 4 days and one of 5 won by the town) and
    different win rates."""
    from tests.tournament.test_plotted_rates import record

    chance = random.Random(seed)
    tallies = []
    for _ in range(count):
        tally = plots.PlotTally()
        tally.add(record("town", [True] * 3, days=5))
        tally.add(record("mafia", [False] * 3, days=2))
        for days in (3, 4)[: chance.randint(1, 2)]:
            won = chance.random() < 0.5
            tally.add(record("town" if won else "mafia", [won] * 3, days=days))
        tallies.append(tally)
    return tallies


def test_plots_of_the_same_axes_share_one_figure_and_draw_what_a_figure_of_their_own_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "_MARGINS", plots._Margins())
    monkeypatch.setattr(plots, "_FIGURES", plots._Figures())
    made = counting(monkeypatch, plots, "_figure")
    tallies = _tallies(6, seed=3)
    drawn = [t.draw(tmp_path / "shared" / str(i), f"m{i}") for i, t in enumerate(tallies)]
    assert len(made) == 3  # one figure per kind of plot, for all six matchups
    for i, tally in enumerate(tallies):
        monkeypatch.setattr(plots, "_FIGURES", plots._Figures())  # a figure of its own
        alone = tally.draw(tmp_path / "alone" / str(i), f"m{i}")
        for shared, own in zip(drawn[i], alone, strict=True):
            assert shared.read_bytes() == own.read_bytes(), (i, shared.name)
    assert len({p[0].read_bytes() for p in drawn}) > 1  # the win rates differ


def test_a_plot_of_other_axes_gets_a_figure_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tournament.test_plotted_rates import record

    monkeypatch.setattr(plots, "_FIGURES", plots._Figures())
    first = plots.PlotTally()
    first.add(record("town", [True] * 3, days=2))
    longer = plots.PlotTally()
    longer.add(record("town", [True] * 3, days=7))
    first.draw(tmp_path / "first", "m")
    shared = longer.draw(tmp_path / "shared", "m")
    monkeypatch.setattr(plots, "_FIGURES", plots._Figures())
    alone = longer.draw(tmp_path / "alone", "m")
    assert [p.read_bytes() for p in shared] == [p.read_bytes() for p in alone]
