"""MLflow logging of a tournament: an experiment per spec, a parent run per tournament,
a child run per matchup (variant, player count, agent pool).

Contract
--------
* Only the driver calls this module (workers never talk to MLflow), through one
  `MlflowClient` built from `tracking.uri.resolve_tracking_uri` — the one place that
  decides the tracking URI.
* A tournament is identified by its spec hash: the parent run carries the tag
  ``mafia_arena.spec_hash``, and a resumed or repeated run of the same spec reopens that
  parent (and its children, tagged ``mafia_arena.matchup``) instead of making a new one.
  Params are therefore only values the hash determines (MLflow refuses to change a
  param); settings that may differ between invocations (concurrency, Ray address) are
  tags.
* Aggregates are computed from the results store at the end, over every stored game of
  the spec (not only the ones this invocation played), so the numbers of a resumed run
  equal those of an uninterrupted one. Per-game rows go in as table artifacts, never as
  one run per game.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mafia_arena.tracking.plots import plot_records
from mafia_arena.tracking.summaries import agent_aggregates, game_aggregates
from mafia_arena.tracking.tables import game_rows, seat_rows, write_table
from mafia_arena.tracking.uri import artifact_location, resolve_tracking_uri

if TYPE_CHECKING:  # tracking sits below experiments: types only, no import at run time
    from mafia_arena.experiments.plan import Experiment, Matchup

TAG_HASH = "mafia_arena.spec_hash"
TAG_KIND = "mafia_arena.run_kind"
TAG_MATCHUP = "mafia_arena.matchup"
TAG_PARENT = "mlflow.parentRunId"
BATCH_LIMIT = 900  # MLflow accepts at most 1000 entities per log_batch call


class TournamentTracker:
    """Opens (or reopens) the runs of one tournament and logs into them."""

    def __init__(
        self,
        experiment: Experiment,
        tracking_uri: str | None = None,
        tags: dict[str, str] | None = None,
    ) -> None:
        from mlflow import MlflowClient

        self.uri = resolve_tracking_uri(tracking_uri or experiment.tracking_uri)
        self.client = MlflowClient(tracking_uri=self.uri)
        self.experiment = experiment
        self.experiment_id = self._experiment_id(experiment.name)
        self.parent_id = self._open_parent(tags or {})
        self.child_ids: dict[str, str] = {}
        self._last_progress = 0.0

    # ------------------------------------------------------------------ runs
    def _experiment_id(self, name: str) -> str:
        from mlflow.exceptions import MlflowException

        found = self.client.get_experiment_by_name(name)
        if found is None:
            try:
                return self.client.create_experiment(
                    name, artifact_location=artifact_location(self.uri)
                )
            except MlflowException:  # created by a concurrent driver meanwhile
                found = self.client.get_experiment_by_name(name)
                assert found is not None
        if found.lifecycle_stage == "deleted":
            self.client.restore_experiment(found.experiment_id)
        return found.experiment_id

    def _find(self, kind: str, extra: str = "") -> str | None:
        query = (
            f"tags.`{TAG_HASH}` = '{self.experiment.spec_hash}' "
            f"and tags.`{TAG_KIND}` = '{kind}'" + extra
        )
        runs = self.client.search_runs(
            [self.experiment_id],
            filter_string=query,
            max_results=1,
            order_by=["attributes.start_time ASC"],
        )
        return runs[0].info.run_id if runs else None

    def _open_parent(self, tags: dict[str, str]) -> str:
        exp = self.experiment
        run_id = self._find("tournament")
        if run_id is None:
            run = self.client.create_run(
                self.experiment_id,
                run_name=f"{exp.name}-{exp.spec_hash}",
                tags={TAG_HASH: exp.spec_hash, TAG_KIND: "tournament"},
            )
            run_id = run.info.run_id
        else:
            self.client.update_run(run_id, status="RUNNING")
        params = {
            "spec_hash": exp.spec_hash,
            "base_seed": exp.base_seed,
            "games_total": exp.games_total,
            "matchups": ", ".join(m.label for m in exp.matchups),
        }
        conc = exp.concurrency.model_dump()
        all_tags = {
            "spec_path": str(exp.source),
            "description": exp.description[:4000],
            **{f"concurrency.{k}": str(v) for k, v in conc.items()},
            **tags,
        }
        self._log(run_id, params=params, tags=all_tags)
        with tempfile.TemporaryDirectory() as tmp:
            spec = Path(tmp) / "spec.toml"
            spec.write_text(exp.text, encoding="utf-8")
            self.client.log_artifact(run_id, str(spec))
        return run_id

    def _child(self, matchup: Matchup) -> str:
        run_id = self._find("matchup", f" and tags.`{TAG_MATCHUP}` = '{matchup.label}'")
        if run_id is None:
            run = self.client.create_run(
                self.experiment_id,
                run_name=matchup.label,
                tags={
                    TAG_HASH: self.experiment.spec_hash,
                    TAG_KIND: "matchup",
                    TAG_MATCHUP: matchup.label,
                    TAG_PARENT: self.parent_id,
                },
            )
            run_id = run.info.run_id
        params: dict[str, Any] = {
            "variant": matchup.variant,
            "players": matchup.players,
            "games": matchup.games,
            "seating": matchup.seating,
            "pool": ", ".join(a.label for a in matchup.pool),
            "first_game_index": matchup.first_index,
        }
        params.update({f"set.{k}": v for k, v in sorted(matchup.overrides.items())})
        params.update({f"seats.{k}": v for k, v in sorted(matchup.quotas.items())})
        self._log(run_id, params=params)
        return run_id

    # ------------------------------------------------------------------ logging
    def _log(
        self,
        run_id: str,
        metrics: dict[str, float] | None = None,
        params: dict[str, Any] | None = None,
        tags: dict[str, str] | None = None,
        step: int = 0,
    ) -> None:
        from mlflow.entities import Metric, Param, RunTag

        stamp = int(time.time() * 1000)
        items: list[Any] = [Param(k, str(v)) for k, v in (params or {}).items()]
        items += [RunTag(k, str(v)) for k, v in (tags or {}).items()]
        items += [
            Metric(k, float(v), stamp, step) for k, v in (metrics or {}).items() if v is not None
        ]
        for start in range(0, len(items), BATCH_LIMIT):
            chunk = items[start : start + BATCH_LIMIT]
            self.client.log_batch(
                run_id,
                metrics=[i for i in chunk if isinstance(i, Metric)],
                params=[i for i in chunk if isinstance(i, Param)],
                tags=[i for i in chunk if isinstance(i, RunTag)],
            )

    def progress(self, games_done: int, every_s: float = 10.0) -> None:
        """Log ``games_done`` on the parent run, at most once per `every_s` seconds."""
        now = time.monotonic()
        if now - self._last_progress >= every_s:
            self._last_progress = now
            self._log(self.parent_id, {"games_done": games_done}, step=games_done)

    def interrupted(self, status: str = "KILLED") -> None:
        """End the parent run quickly (Ctrl-C, a crash); the next run reopens it."""
        self.client.set_terminated(self.parent_id, status=status)

    def finish(
        self,
        records: Sequence[dict[str, Any]],
        results_dir: Path,
        run_metrics: dict[str, float],
        status: str = "FINISHED",
    ) -> None:
        """Log every matchup's child run and the parent's aggregates and artifacts."""
        exp = self.experiment
        label_of = {i: m.label for m in exp.matchups for i in m.indices}

        def matchup_of(index: int) -> str:
            return label_of.get(index, "?")

        for matchup in exp.matchups:
            mine = [r for r in records if r["game_index"] in matchup.indices]
            run_id = self._child(matchup)
            self.child_ids[matchup.label] = run_id
            metrics = {
                **game_aggregates(mine),
                **agent_aggregates(mine),
                "games_expected": float(matchup.games),
            }
            self._log(run_id, metrics)
            self._artifacts(run_id, mine, results_dir, matchup_of, matchup.label, logs=True)
            complete = len(mine) == matchup.games
            self.client.set_terminated(run_id, status="FINISHED" if complete else status)
        overall = {
            **run_metrics,
            "games_stored": float(len(records)),
            "games_total": float(exp.games_total),
            **agent_aggregates(records),
        }
        self._log(self.parent_id, overall)
        self._artifacts(
            self.parent_id,
            records,
            results_dir,
            matchup_of,
            exp.name,
            logs=False,
            summary={"spec_hash": exp.spec_hash, **run_metrics, "child_runs": self.child_ids},
        )
        self.client.set_terminated(self.parent_id, status=status)

    def _artifacts(
        self,
        run_id: str,
        records: Sequence[dict[str, Any]],
        results_dir: Path,
        matchup_of: Any,
        title: str,
        *,
        logs: bool,
        summary: dict[str, Any] | None = None,
    ) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_table(game_rows(records, matchup_of), folder / "tables", "games")
            write_table(seat_rows(records, matchup_of), folder / "tables", "seats")
            plot_records(records, folder / "plots", title)
            if logs and records:
                with tarfile.open(folder / "logs.tar.gz", "w:gz", compresslevel=1) as archive:
                    for record in records:
                        path = results_dir / record["log_path"]
                        if path.exists():
                            archive.add(path, arcname=record["log_path"])
            if summary is not None:
                (folder / "summary.json").write_text(json.dumps(summary, indent=2))
            for path in sorted(folder.iterdir()):
                if path.is_dir():
                    self.client.log_artifacts(run_id, str(path), path.name)
                else:
                    self.client.log_artifact(run_id, str(path))
