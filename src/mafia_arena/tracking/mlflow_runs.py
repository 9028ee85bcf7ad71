"""MLflow logging of a tournament: an experiment per spec, a parent run per results
store, a child run per matchup (variant, player count, agent pool).

Contract
--------
* Only the driver calls this module (workers never talk to MLflow), through one
  `MlflowClient` built from `tracking.uri.resolve_tracking_uri` — the one place that
  decides the tracking URI. It knows the tournament only through the small protocols
  below (`TrackedExperiment`, `TrackedMatchup`): tracking sits below experiments and
  imports nothing from it.
* A tournament is identified by its spec hash *and its results store*: the parent run
  carries the tags ``mafia_arena.spec_hash`` and ``mafia_arena.store`` (the store's id,
  kept in its manifest), and a resumed run of the same store reopens that parent (and
  its children, tagged ``mafia_arena.matchup``) instead of making a new one. Two stores
  of one spec sharing a tracking store get two parent runs. Params are only values the
  hash determines (MLflow refuses to change a param); settings that may differ between
  invocations (concurrency, Ray address, code version) are tags. The code-identity
  tags (``mafia_arena.version``, ``mafia_arena.git_commit``,
  ``mafia_arena.source_digest``) are on the parent and on every child run.
* Aggregates are computed from the results store at the end, over every stored game of
  the spec (not only the ones this invocation played), so the numbers of a resumed run
  equal those of an uninterrupted one. The store is streamed through them twice
  (`run_tally`), never held, so memory stays bounded however many games it has. Each
  estimate is one metric (its value); its 95% interval and count go, one row per
  estimate, into the ``tables/estimates.csv`` artifact, next to the per-game and
  per-seat tables. Never one run per game.
* Runs never stay ``RUNNING``: if the final logging fails, every run this tracker
  opened is ended ``FAILED`` before the error propagates; `interrupted` ends them
  ``KILLED`` (Ctrl-C) or ``FAILED``.
* A run's artifacts are whole: a copy onto this machine's disk is held against Ctrl-C
  and SIGTERM until it ends (`interrupts_deferred`), then the runs end ``KILLED``; so
  is a run's creation on a local SQLite store, until the tracker keeps its id (`_held`).
* Artifacts of a local SQLite store are written under ``<db folder>/mlruns`` of the
  database *in use*: a working folder that was copied elsewhere writes into its own
  copy, never back into the folder its runs were first created in. Opening such a store
  first re-roots the artifact locations its database records
  (`tracking.artifact_roots`), so the copy's MLflow client and ``mlflow ui`` read the
  copy's artifacts, also after the original folder is gone.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

from mafia_arena.metrics.aggregate import Estimate
from mafia_arena.sigterm import interrupts_deferred
from mafia_arena.tracking.artifact_roots import reroot_local_store
from mafia_arena.tracking.run_tally import RunTally
from mafia_arena.tracking.summaries import point_values, safe_key
from mafia_arena.tracking.tables import estimate_rows, write_table
from mafia_arena.tracking.uri import artifact_location, resolve_tracking_uri, sqlite_path

TAG_HASH = "mafia_arena.spec_hash"
TAG_KIND = "mafia_arena.run_kind"
TAG_MATCHUP = "mafia_arena.matchup"
TAG_STORE = "mafia_arena.store"
TAG_PARENT = "mlflow.parentRunId"
BATCH_LIMIT = 900  # MLflow accepts at most 1000 entities per log_batch call


class TrackedMatchup(Protocol):
    """What the tracker reads of a matchup."""

    @property
    def label(self) -> str: ...
    @property
    def variant(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def games(self) -> int: ...
    @property
    def seating(self) -> str: ...
    @property
    def first_index(self) -> int: ...
    @property
    def overrides(self) -> dict[str, Any]: ...
    @property
    def quotas(self) -> dict[str, int]: ...
    @property
    def indices(self) -> range: ...
    @property
    def pool_labels(self) -> list[str]: ...


class TrackedExperiment(Protocol):
    """What the tracker reads of a tournament."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def source(self) -> Path: ...
    @property
    def text(self) -> str: ...
    @property
    def base_seed(self) -> int: ...
    @property
    def spec_hash(self) -> str: ...
    @property
    def tracking_uri(self) -> str | None: ...
    @property
    def games_total(self) -> int: ...
    @property
    def tracked_matchups(self) -> Sequence[TrackedMatchup]: ...
    @property
    def concurrency_settings(self) -> dict[str, Any]: ...


def matchup_positions(matchups: Sequence[TrackedMatchup]) -> Callable[[int], int | None]:
    """A lookup from a game index to the position of the matchup that plays it (None
    outside every matchup).

    Matchups hold consecutive index ranges in file order, so this is a binary search
    over their first indices: it runs for every stored record, twice, and a spec may
    have thousands of matchups."""
    starts = [m.first_index for m in matchups]

    def position_of(index: int) -> int | None:
        position = bisect.bisect_right(starts, index) - 1
        if position >= 0 and index in matchups[position].indices:
            return position
        return None

    return position_of


class TournamentTracker:
    """Opens (or reopens) the runs of one tournament and logs into them."""

    def __init__(
        self,
        experiment: TrackedExperiment,
        tracking_uri: str | None = None,
        tags: dict[str, str] | None = None,
        store_id: str = "",
        code_tags: dict[str, str] | None = None,
    ) -> None:
        """Open the experiment and the parent run of `experiment`.

        `tags` go on the parent run only; `code_tags` (the code identity: package
        version, git commit, source digest) go on the parent *and* on every child run,
        so a matchup's run read on its own still says which code produced it.
        """
        from mlflow import MlflowClient

        self.uri = resolve_tracking_uri(tracking_uri or experiment.tracking_uri)
        db = sqlite_path(self.uri)
        if db is not None:
            reroot_local_store(db)  # a moved folder's runs name their own artifacts
        self.client = MlflowClient(tracking_uri=self.uri)
        self.experiment = experiment
        self.store_id = store_id
        self.experiment_id = self._experiment_id(experiment.name)
        self.child_ids: dict[str, str] = {}
        self._artifact_uris: dict[str, str] = {}  # run id -> artifact URI, as MLflow has it
        self._children: dict[str, str] | None = None  # matchup label -> its existing run
        self._last_progress = 0.0
        self.code_tags = dict(code_tags or {})
        self.parent_id = self._open_parent({**(tags or {}), **self.code_tags})

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
            f"and tags.`{TAG_KIND}` = '{kind}' "
            f"and tags.`{TAG_STORE}` = '{self.store_id}'" + extra
        )
        runs = self.client.search_runs(
            [self.experiment_id],
            filter_string=query,
            max_results=1,
            order_by=["attributes.start_time ASC"],
        )
        if not runs:
            return None
        self._artifact_uris[runs[0].info.run_id] = runs[0].info.artifact_uri or ""
        return runs[0].info.run_id

    def _existing_children(self) -> dict[str, str]:
        """Matchup label -> the run id of its existing child run (the earliest, as
        `_find` picks), read with one paged search for all matchups.

        Why: a search per matchup was a third of the MLflow time of a spec's final
        logging, and a spec may have thousands of matchups."""
        if self._children is not None:
            return self._children
        query = (
            f"tags.`{TAG_HASH}` = '{self.experiment.spec_hash}' "
            f"and tags.`{TAG_KIND}` = 'matchup' "
            f"and tags.`{TAG_STORE}` = '{self.store_id}'"
        )
        children: dict[str, str] = {}
        token: str | None = None
        while True:
            page = self.client.search_runs(
                [self.experiment_id],
                filter_string=query,
                max_results=1000,
                order_by=["attributes.start_time ASC"],
                page_token=token,
            )
            for run in page:
                label = run.data.tags.get(TAG_MATCHUP, "")
                if label not in children:
                    children[label] = run.info.run_id
                    self._artifact_uris[run.info.run_id] = run.info.artifact_uri or ""
            token = page.token
            if not token:
                break
        self._children = children
        return children

    def _held(self) -> contextlib.AbstractContextManager[None]:
        """Hold Ctrl-C and SIGTERM back (`interrupts_deferred`) over a run's creation on
        a local SQLite store, until its id is kept: MLflow commits the run ``RUNNING``
        before it hands back the id, and an interrupt in between left a run that
        nothing ended, ``RUNNING`` for good. Not on a server: a request there may wait
        on the network as long as MLflow's timeout and retries."""
        if sqlite_path(self.uri) is None:
            return contextlib.nullcontext()
        return interrupts_deferred()

    def _open_parent(self, tags: dict[str, str]) -> str:
        exp = self.experiment
        run_id = self._find("tournament")
        try:
            with self._held():
                if run_id is None:
                    run = self.client.create_run(
                        self.experiment_id,
                        run_name=f"{exp.name}-{exp.spec_hash}",
                        tags={
                            TAG_HASH: exp.spec_hash,
                            TAG_KIND: "tournament",
                            TAG_STORE: self.store_id,
                        },
                    )
                    run_id = run.info.run_id
                    self._artifact_uris[run_id] = run.info.artifact_uri or ""
                else:
                    self.client.update_run(run_id, status="RUNNING")
        except KeyboardInterrupt:  # delivered once the run is kept: end it, as below
            if run_id is not None:
                self.client.set_terminated(run_id, status="KILLED")
            raise
        params = {
            "spec_hash": exp.spec_hash,
            "base_seed": exp.base_seed,
            "games_total": exp.games_total,
            "matchups": ", ".join(m.label for m in exp.tracked_matchups),
        }
        all_tags = {
            "spec_path": str(exp.source),
            "description": exp.description[:4000],
            **{f"concurrency.{k}": str(v) for k, v in exp.concurrency_settings.items()},
            **tags,
        }
        try:
            self._log(run_id, params=params, tags=all_tags)
            with tempfile.TemporaryDirectory() as tmp:
                spec = Path(tmp) / "spec.toml"
                spec.write_text(exp.text, encoding="utf-8")
                self._log_artifacts(run_id, Path(tmp))
        except BaseException as exc:  # Ctrl-C ends it KILLED, as every other run
            failed = not isinstance(exc, KeyboardInterrupt)
            self.client.set_terminated(run_id, status="FAILED" if failed else "KILLED")
            raise
        return run_id

    def _child(self, matchup: TrackedMatchup, metrics: Mapping[str, float]) -> str:
        """Open (or reopen) the matchup's child run and log its params, code tags and
        `metrics`: a new run gets its tags (code tags included) with its creation and
        the rest in one batch; a reopened run gets all of it, code tags included (the
        code may have changed since), in one batch.

        Why tags at creation: each MLflow call that writes commits on its own (a
        batch commits params, metrics and tags one after the other), and on a local
        SQLite store a commit waits for the disk; the code tags of a new run are
        written with the run itself, one commit fewer per matchup."""
        run_id = self._existing_children().get(matchup.label)
        tags: Mapping[str, str] = self.code_tags
        with self._held():  # kept in `child_ids` before an interrupt: `interrupted` ends it
            if run_id is None:
                run = self.client.create_run(
                    self.experiment_id,
                    run_name=matchup.label,
                    tags={
                        TAG_HASH: self.experiment.spec_hash,
                        TAG_KIND: "matchup",
                        TAG_MATCHUP: matchup.label,
                        TAG_STORE: self.store_id,
                        TAG_PARENT: self.parent_id,
                        **self.code_tags,
                    },
                )
                run_id = run.info.run_id
                self._artifact_uris[run_id] = run.info.artifact_uri or ""
                tags = {}
            else:
                self.client.update_run(run_id, status="RUNNING")
            self.child_ids[matchup.label] = run_id
        params: dict[str, Any] = {
            "variant": matchup.variant,
            "players": matchup.players,
            "games": matchup.games,
            "seating": matchup.seating,
            "pool": ", ".join(matchup.pool_labels),
            "first_game_index": matchup.first_index,
        }
        params.update({f"set.{k}": v for k, v in sorted(matchup.overrides.items())})
        params.update({f"seats.{k}": v for k, v in sorted(matchup.quotas.items())})
        self._log(run_id, metrics, params=params, tags=tags)
        return run_id

    # ------------------------------------------------------------------ logging
    def _log(
        self,
        run_id: str,
        metrics: Mapping[str, float] | None = None,
        params: Mapping[str, Any] | None = None,
        tags: Mapping[str, str] | None = None,
        step: int = 0,
    ) -> None:
        from mlflow.entities import Metric, Param, RunTag

        stamp = int(time.time() * 1000)
        items: list[Any] = [Param(k, str(v)) for k, v in (params or {}).items()]
        items += [RunTag(k, str(v)) for k, v in (tags or {}).items()]
        items += [
            Metric(safe_key(k), float(v), stamp, step)
            for k, v in (metrics or {}).items()
            if v is not None and math.isfinite(float(v))
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
        """End every open run quickly (Ctrl-C, a crash); the next run reopens them."""
        for run_id in [*self.child_ids.values(), self.parent_id]:
            self.client.set_terminated(run_id, status=status)

    def finish(
        self,
        records: Iterable[dict[str, Any]],
        results_dir: Path,
        run_metrics: dict[str, float],
        status: str = "FINISHED",
        ratings: Mapping[str, Estimate] | None = None,
    ) -> None:
        """Log every matchup's child run and the parent's aggregates and artifacts.

        `records` is re-iterable (a list, or a streamed results store,
        `results_file.StoredRecords`), in game-index order (the store's reader sorts
        them), and is read twice (`run_tally`); each matchup's run is logged as soon as
        the second pass is past its games (ValueError if a record comes back to one).
        `ratings` (name -> estimate, computed by the caller over all `records`) are
        logged on the parent.
        Void games (``"void": true``, decided by infrastructure failures) are counted
        (``games_void``) but left out of every aggregate. If any of this fails, every run
        is ended ``FAILED``, or ``KILLED`` when Ctrl-C stopped it (as during the games).
        """
        try:
            self._finish(records, results_dir, run_metrics, status, ratings or {})
        except BaseException as exc:
            self.interrupted("KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
            raise

    def _finish(
        self,
        records: Iterable[dict[str, Any]],
        results_dir: Path,
        run_metrics: dict[str, float],
        status: str,
        ratings: Mapping[str, Estimate],
    ) -> None:
        exp = self.experiment
        matchups = exp.tracked_matchups
        position_of = matchup_positions(matchups)

        def matchup_of(index: int) -> str:
            position = position_of(index)
            return "?" if position is None else matchups[position].label

        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            tallies = [
                RunTally(root / f"matchup-{i}", matchup_of, games=True, logs_from=results_dir)
                for i in range(len(matchups))
            ]
            overall = RunTally(root / "tournament", matchup_of, games=False)
            for record in records:
                position = position_of(record["game_index"])
                if position is not None:
                    tallies[position].add(record)
                overall.add(record)
            done = 0  # matchups before this position are logged and their files closed
            for record in records:
                position = position_of(record["game_index"])
                if position is not None:
                    if position < done:
                        raise ValueError("records must come in game-index order")
                    for finished in range(done, position):
                        self._matchup_run(matchups[finished], tallies[finished], status)
                    done = position
                    tallies[position].add_second(record)
                overall.add_second(record)
            for finished in range(done, len(matchups)):
                self._matchup_run(matchups[finished], tallies[finished], status)
            estimates = {**overall.estimates(), **ratings}
            stored = float(overall.records)
            totals = {
                **run_metrics,
                "games_stored": stored,
                "games_void": float(overall.void),
                "games_done": stored,
                "games_total": float(exp.games_total),
                **point_values(estimates),
            }
            self._log(self.parent_id, totals, step=overall.records)
            summary = {"spec_hash": exp.spec_hash, **run_metrics, "child_runs": self.child_ids}
            self._artifacts(self.parent_id, overall, estimates, exp.name, summary)
        self.client.set_terminated(self.parent_id, status=status)

    def _matchup_run(self, matchup: TrackedMatchup, tally: RunTally, status: str) -> None:
        """Log one matchup's child run, then drop its local files.

        Called as soon as the second pass is past the matchup's records, so only one
        matchup's tables and log archive are open at a time (a spec of hundreds of
        matchups ran out of file handles) and the temporary folder holds one matchup."""
        estimates = tally.estimates()
        counts = {
            "games": float(tally.records),
            "games_void": float(tally.void),
            "games_expected": float(matchup.games),
        }
        run_id = self._child(matchup, {**point_values(estimates), **counts})
        self._artifacts(run_id, tally, estimates, matchup.label)
        shutil.rmtree(tally.folder, ignore_errors=True)
        complete = tally.records == matchup.games
        self.client.set_terminated(run_id, status="FINISHED" if complete else status)

    def _artifacts(
        self,
        run_id: str,
        tally: RunTally,
        estimates: Mapping[str, Estimate],
        title: str,
        summary: dict[str, Any] | None = None,
    ) -> None:
        folder = tally.folder
        tally.finish(title)
        write_table(estimate_rows(estimates), folder / "tables", "estimates")
        if summary is not None:
            (folder / "summary.json").write_text(json.dumps(summary, indent=2))
        self._log_artifacts(run_id, folder)

    def _log_artifacts(self, run_id: str, folder: Path) -> None:
        """Upload the contents of `folder` into the run's artifact root (see the contract).

        A copy onto this machine's disk is held against Ctrl-C and SIGTERM
        (`interrupts_deferred`; a few tables, plots and one log archive: short). Why:
        MLflow copies file by file, in place, so an interrupt in the middle left a
        truncated table in the run's artifacts, beside tables of the run that were
        never copied; held, the run's artifacts are its folder's, whole, and the
        interrupt then ends the runs ``KILLED``. An upload to a server is not held (it
        may wait on the network as long as MLflow's timeout): stopped there, the runs
        end ``KILLED`` and the next run of the store logs the artifacts again."""
        local = self._local_artifact_dir(run_id)
        if local is not None:
            from mlflow.store.artifact.local_artifact_repo import LocalArtifactRepository

            with interrupts_deferred():
                LocalArtifactRepository(str(local)).log_artifacts(str(folder))
        elif self._artifacts_on_disk(run_id):
            with interrupts_deferred():
                self.client.log_artifacts(run_id, str(folder))
        else:
            self.client.log_artifacts(run_id, str(folder))

    def _artifacts_on_disk(self, run_id: str) -> bool:
        """Whether MLflow writes the run's artifacts to a folder of this machine (a
        ``file:`` URI or a plain path: a custom artifact location, not a server)."""
        stored = self._artifact_uris.get(run_id)
        if stored is None:
            stored = self.client.get_run(run_id).info.artifact_uri or ""
        return urlparse(stored).scheme in ("", "file")

    def _local_artifact_dir(self, run_id: str) -> Path | None:
        """``<db folder>/mlruns/<run id>/artifacts`` for a local SQLite store, else None.

        MLflow records an absolute artifact location when a run is created; after the
        folder is copied that location still names the original. The run's artifacts
        are therefore re-rooted at the database actually in use.
        """
        db = sqlite_path(self.uri)
        if db is None:
            return None
        stored = self._artifact_uris.get(run_id)
        if stored is None:
            stored = self.client.get_run(run_id).info.artifact_uri or ""
        if stored.startswith("file://"):
            stored = stored[len("file://") :]
        marker = f"/mlruns/{run_id}/artifacts"
        if not stored.endswith(marker):
            return None  # a custom artifact location: MLflow decides
        return db.parent / "mlruns" / run_id / "artifacts"
