"""`run_tournament`: play a spec's games (in-process or on Ray), store, track, summarise.

The driver is the only process that writes results and talks to MLflow. It

1. loads and validates the spec, and builds every pool agent once (a broken agent file
   fails here, before any game, not in a worker half an hour in);
2. opens the results store (lock, cut a truncated tail) and reads what is stored: with
   ``resume`` only the missing ``(spec_hash, game_index)`` games are played; a store
   holding another version of the spec is refused (`ResultsConflict`) unless
   ``resume=False``, which archives the old store and starts over;
3. cuts the missing games into idempotent batches, runs them (`executors`), and stores
   every batch the moment it arrives, with a progress bar (rate, ETA);
4. logs the MLflow runs from the store's records, so a resumed tournament reports
   exactly what an uninterrupted one does.

Ctrl-C cancels the outstanding tasks, marks the MLflow run killed and re-raises; what
was stored stays, and the next call resumes. Games that fail for good (after Ray's
retries) are reported at the end by `TournamentError`, after everything else is stored
and tracked.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mafia_arena.agents.registry import make_agent
from mafia_arena.experiments.errors import ResultsConflict, SpecError, TournamentError
from mafia_arena.experiments.executors import InProcessExecutor, RayExecutor
from mafia_arena.experiments.faults import FaultPlan
from mafia_arena.experiments.plan import Experiment, batches
from mafia_arena.experiments.spec import load_spec
from mafia_arena.experiments.store import ResultsStore
from mafia_arena.experiments.summary import Summary
from mafia_arena.experiments.worker import BatchJob
from mafia_arena.seat_seeds import load_or_create_host_key


def run_tournament(
    spec_path: str | Path,
    *,
    address: str | None = None,
    use_ray: bool = True,
    resume: bool = True,
    progress: bool = True,
    results_dir: str | Path | None = None,
    tracking_uri: str | None = None,
    track: bool = True,
) -> Summary:
    """Run (or resume) the tournament of `spec_path` and return its `Summary`.

    `address` joins a Ray cluster (default: start a local one with the spec's
    ``concurrency.workers`` CPUs); `use_ray=False` plays in this process. `results_dir`
    and `tracking_uri` override the spec's (they do not change the spec hash);
    `track=False` skips MLflow. Raises `SpecError` for a bad spec, `ResultsConflict` for
    a results folder of another spec version or in use, `TournamentError` if games
    failed for good.
    """
    experiment = load_spec(spec_path)
    if results_dir is not None:
        experiment = Experiment(**{**experiment.__dict__, "results_dir": Path(results_dir)})
    async_agents = _preflight(experiment)
    store = ResultsStore(experiment.results_dir)
    store.open()
    try:
        return _run(
            experiment,
            store,
            async_agents,
            address=address,
            use_ray=use_ray,
            resume=resume,
            progress=progress,
            tracking_uri=tracking_uri,
            track=track,
        )
    finally:
        store.close()


def _preflight(experiment: Experiment) -> set[str]:
    """Build each pool agent once; return the labels of async (non-scripted) agents."""
    async_agents: set[str] = set()
    for matchup in experiment.matchups:
        for ref in matchup.pool:
            try:
                agent = make_agent(ref.target)
            except Exception as exc:
                raise SpecError(
                    str(experiment.source), "pool", f"agent {ref.label!r} cannot be built: {exc}"
                ) from exc
            if not agent.synchronous:
                async_agents.add(ref.label)
    return async_agents


def _stored(experiment: Experiment, store: ResultsStore, resume: bool) -> set[int]:
    records = store.read()
    others = {r.get("spec_hash") for r in records} - {experiment.spec_hash}
    if others and resume:
        raise ResultsConflict(
            f"{store.path} holds games of another version of this spec (hash "
            f"{', '.join(sorted(map(str, others)))}, now {experiment.spec_hash}); pass "
            "resume=False (--no-resume) to archive them and start over, or use another "
            "results folder"
        )
    if records and not resume:
        store.archive()
        return set()
    return {int(r["game_index"]) for r in records}


def _run(
    experiment: Experiment,
    store: ResultsStore,
    async_agents: set[str],
    *,
    address: str | None,
    use_ray: bool,
    resume: bool,
    progress: bool,
    tracking_uri: str | None,
    track: bool,
) -> Summary:
    done = _stored(experiment, store, resume)
    pending = [i for m in experiment.matchups for i in m.indices if i not in done]
    summary = Summary(
        experiment.name,
        experiment.spec_hash,
        experiment.results_dir,
        store.path,
        experiment.games_total,
        games_skipped=len(done),
        executor="ray" if use_ray else "in-process",
    )
    tracker = _tracker(experiment, tracking_uri, address, use_ray) if track else None
    conc = experiment.concurrency
    fault = FaultPlan.from_env()
    host_key = load_or_create_host_key(experiment.results_dir)  # seat seeds; kept there
    jobs = [
        BatchJob(
            experiment.name,
            experiment.spec_hash,
            experiment.base_seed,
            b.matchup,
            b.indices,
            conc.llm_in_flight,
            conc.decision_timeout_s,
            fault,
            host_key,
        )
        for b in batches(experiment, pending, async_agents)
    ]
    executor: Any = None
    started = time.perf_counter()
    try:
        executor = (
            RayExecutor(address=address, num_cpus=conc.workers, max_retries=conc.max_retries)
            if use_ray and jobs
            else InProcessExecutor()
        )
        started = time.perf_counter()
        _play(executor, jobs, store, summary, tracker, progress, len(done))
    except BaseException as exc:  # Ctrl-C, or the store failing (disk full): stop cleanly
        if isinstance(executor, RayExecutor):
            executor.cancel()
        if tracker is not None:
            tracker.interrupted("KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
        raise
    finally:
        summary.wall_s = time.perf_counter() - started
        if executor is not None:
            executor.close()
    summary.games_per_s = summary.games_played / summary.wall_s if summary.wall_s else 0.0
    records = [r for r in store.read() if r.get("spec_hash") == experiment.spec_hash]
    summary.games_stored = len(records)
    for matchup in experiment.matchups:
        summary.add_matchup(
            matchup.label, [r for r in records if r["game_index"] in matchup.indices]
        )
    if tracker is not None:
        run_metrics = {
            "games_played": float(summary.games_played),
            "games_failed": float(len(summary.failed)),
            "wall_s": summary.wall_s,
            "games_per_s": summary.games_per_s,
        }
        tracker.finish(
            records,
            experiment.results_dir,
            run_metrics,
            status="FAILED" if summary.failed else "FINISHED",
        )
        summary.tracking_uri = tracker.uri
        summary.parent_run_id = tracker.parent_id
        summary.child_run_ids = dict(tracker.child_ids)
    if summary.failed:
        raise TournamentError(
            f"{len(summary.failed)} game(s) failed; the others are "
            f"stored; run again to retry them\n{summary}",
            summary,
        )
    return summary


def _tracker(
    experiment: Experiment, tracking_uri: str | None, address: str | None, use_ray: bool
) -> Any:
    from mafia_arena.tracking.mlflow_runs import TournamentTracker

    mode = f"ray:{address}" if use_ray and address else "ray:local" if use_ray else "in-process"
    return TournamentTracker(
        experiment,
        tracking_uri,
        tags={"executor": mode, "results_dir": str(experiment.results_dir.resolve())},
    )


def _play(
    executor: Any,
    jobs: list[BatchJob],
    store: ResultsStore,
    summary: Summary,
    tracker: Any,
    progress: bool,
    already: int,
) -> None:
    from tqdm import tqdm

    bar = tqdm(
        total=summary.games_total,
        initial=already,
        unit="game",
        disable=not progress,
        desc=summary.experiment,
        dynamic_ncols=True,
        smoothing=0.1,
    )
    try:
        for outcome in executor.run(jobs):
            if outcome.games is None:
                for index in outcome.job.indices:
                    summary.failed[index] = outcome.error or "unknown error"
                bar.write(
                    f"batch {outcome.job.indices[0]}..{outcome.job.indices[-1]} "
                    f"failed: {(outcome.error or '').strip().splitlines()[-1:]}"
                )
                continue
            store.append(outcome.games)
            summary.games_played += len(outcome.games)
            bar.update(len(outcome.games))
            if tracker is not None:
                tracker.progress(already + summary.games_played)
    finally:
        bar.close()
