"""`run_tournament`: play a spec's games (in-process or on Ray), store, track, summarise.

The driver is the only process that writes results and talks to MLflow. It

1. loads and validates the spec, and builds every pool agent once (a broken agent file
   fails here, before any game, not in a worker half an hour in);
2. checks the services it needs — the results folder is writable, the MLflow tracking
   store answers, a given Ray address accepts connections — each with a short timeout
   (`experiments.services`), before anything is written;
3. opens the results store (lock, cut a truncated tail) and reads what is stored: with
   ``resume`` only the missing ``(spec_hash, game_index)`` games are played, and the
   void ones (``"void": true``: decided by infrastructure failures) again, with the same
   seed, so a tournament resumed after an outage ends as one that never had it. A store
   holding another version of the spec (a changed spec, variant file, agent file or
   prompt template) is refused (`ResultsConflict`, naming what changed) unless
   ``resume=False``, which archives the old store and starts over; a store whose games
   were played by other code (package version or source, `experiments.provenance`) or
   by another build of its agents (the manifest's ``builds``: the local server's and
   weights' versions and the GGUF's sha256, a policy file's sha256, the numpy version;
   `provenance.build_differences`) is refused unless ``force_resume=True``; one whose
   host key file is gone or holds another key than the manifest's fingerprint names
   is refused, always (`provenance.folder_host_key`: the seats of resumed games would
   get other seeds); a store with games but no manifest (written before manifests
   existed) is resumed with a one-line warning on stderr, while one whose manifest is
   there but unreadable is refused (`ManifestError`, a `ResultsConflict`) and left as
   it is: it is the only record of the code that played the games. A store line that
   is not a game record the leaderboard can rate (`leaderboard.records.check_store`:
   not a JSON object, a ``won`` or ``void`` that is not a boolean, a ``game_index``
   that is not a whole number) or whose ``game_index`` lies outside the spec's games
   (`StoreFormatError`) stops the run before anything is played;
4. cuts the missing games into idempotent batches, runs them (`executors`), and stores
   every finished game the moment its batch arrives, with a progress bar (rate, ETA). A
   game that raised is recorded in ``failed.jsonl`` (index, seed, error) and reported;
   the rest of its batch is stored, and the next call plays only the games not stored.
   At the end of the run ``failed.jsonl`` is rewritten to list only the games still not
   stored, so it agrees with the summary;
5. logs the MLflow runs from the store's records, so a resumed tournament reports
   exactly what an uninterrupted one does. The store is streamed (`StoredRecords`), at
   the start and at the end, and the summary, ratings and MLflow aggregates are tallied
   record by record, so the driver's memory does not grow with the number of games
   (beyond an index of 9 bytes and a compact rating entry per game).

Ctrl-C (or SIGTERM) cancels the outstanding tasks, ends the MLflow runs ``KILLED`` and
raises `Interrupted` (a `KeyboardInterrupt`) saying how many games are stored, read back
from the store once it is closed (`_stored_after_interrupt`); the next call resumes.
So does an interrupt after the games, while the store is read back and the runs are
logged: the games are stored, and the next call logs the runs.
SIGTERM is such an interrupt from the first line of `run_tournament` on
(`mafia_arena.sigterm`), also while Ray starts (`local_ray`: what it had started is shut
down); stopped before the store was read, `Interrupted` says that no game was played.
Games that failed are reported at the end by `TournamentError`, after everything else is
stored and tracked.
"""

from __future__ import annotations

import contextlib
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from mafia_arena.agents.base import Agent
from mafia_arena.agents.registry import make_agent
from mafia_arena.experiments.errors import (
    Interrupted,
    ResultsConflict,
    SpecError,
    TournamentError,
)
from mafia_arena.experiments.executors import InProcessExecutor, RayExecutor
from mafia_arena.experiments.faults import FaultPlan
from mafia_arena.experiments.plan import Experiment, batches, game_seed
from mafia_arena.experiments.provenance import (
    MANIFEST_NAME,
    build_differences,
    code_differences,
    code_provenance,
    folder_host_key,
    input_differences,
    manifest,
    pool_builds,
    read_manifest,
    write_manifest,
)
from mafia_arena.experiments.records import check_written_keys
from mafia_arena.experiments.services import check_ray_address, check_tracking, writable_results
from mafia_arena.experiments.spec import load_spec
from mafia_arena.experiments.store import ResultsStore
from mafia_arena.experiments.summary import Summary
from mafia_arena.experiments.worker import BatchJob, failure
from mafia_arena.input_files import reference_from, spec_projects
from mafia_arena.results_file import StoredRecords
from mafia_arena.rules.loader import variant_path
from mafia_arena.sigterm import interrupt_behind, sigterm_arrived, sigterm_as_interrupt
from mafia_arena.tracking.uri import resolve_tracking_uri, tracking_uri_origin


def run_tournament(
    spec_path: str | Path,
    *,
    address: str | None = None,
    use_ray: bool = True,
    resume: bool = True,
    force_resume: bool = False,
    progress: bool = True,
    results_dir: str | Path | None = None,
    tracking_uri: str | None = None,
    track: bool = True,
    host_key: bytes | None = None,
) -> Summary:
    """Run (or resume) the tournament of `spec_path` and return its `Summary`.

    `address` joins a Ray cluster (default: start a private local one, bound to
    127.0.0.1, with the spec's ``concurrency.workers`` CPUs); `use_ray=False` plays in
    this process. `host_key` is the key a results folder without one starts with (a
    published board's, `mafia-arena leaderboard`); without it a fresh one is drawn.
    `results_dir` and `tracking_uri` override the spec's (they do not
    change the spec hash); `track=False` skips MLflow. Raises `SpecError` for a bad spec,
    `ServiceError` for an unreachable service, `ResultsConflict` for a results folder of
    another spec or code version, in use, with an unreadable manifest, or whose host key
    is not the one its stored games were played with,
    `LeaderboardError` or `StoreFormatError` for a store line that is not a game record
    (naming file, line and key), `TournamentError` if games failed, `Interrupted` on
    Ctrl-C.
    """
    with sigterm_as_interrupt():
        try:
            return _start(
                spec_path,
                address=address,
                use_ray=use_ray,
                resume=resume,
                force_resume=force_resume,
                progress=progress,
                results_dir=results_dir,
                tracking_uri=tracking_uri,
                track=track,
                host_key=host_key,
            )
        except Interrupted:
            raise
        except BaseException as exc:  # before the games started: nothing of this run stored
            if not interrupt_behind(exc):  # Ctrl-C, or one Python wrapped (interrupt_behind)
                raise
            raise Interrupted.while_starting() from None


def _start(
    spec_path: str | Path,
    *,
    address: str | None,
    use_ray: bool,
    resume: bool,
    force_resume: bool,
    progress: bool,
    results_dir: str | Path | None,
    tracking_uri: str | None,
    track: bool,
    host_key: bytes | None,
) -> Summary:
    """`run_tournament` once SIGTERM is an interrupt: the checks, then `_run` in the
    opened store."""
    experiment = load_spec(spec_path)
    if results_dir is not None:
        experiment = Experiment(**{**experiment.__dict__, "results_dir": Path(results_dir)})
    async_agents, builds = _preflight(experiment)
    uri = resolve_tracking_uri(tracking_uri or experiment.tracking_uri) if track else None
    writable_results(experiment.results_dir, _results_origin(experiment, results_dir))
    if uri is not None:
        origin = tracking_uri_origin(tracking_uri, experiment.tracking_uri, str(experiment.source))
        check_tracking(uri, origin=origin)
    if use_ray and address:
        check_ray_address(address)
    store = ResultsStore(experiment.results_dir)
    store.open()
    try:
        return _run(
            experiment,
            store,
            async_agents,
            builds,
            address=address,
            use_ray=use_ray,
            resume=resume,
            force_resume=force_resume,
            progress=progress,
            tracking_uri=uri,
            host_key=host_key,
        )
    finally:
        store.close()


def _results_origin(experiment: Experiment, results_dir: str | Path | None) -> str:
    """Where the results folder came from, as the user can change it: the option, else
    the spec's ``results`` key (its default, ``results/<name>``, when not written)."""
    if results_dir is not None:
        return "--results"
    if experiment.results_dir == Path("results") / experiment.name:
        return f"{experiment.source}: results, by default results/<name>"
    return f"{experiment.source}: results"


def _preflight(experiment: Experiment) -> tuple[set[str], dict[str, dict[str, Any]]]:
    """Build each pool agent once; return the labels of async (non-scripted) agents and
    the builds of the agents that have a card (`provenance.pool_builds`), which the
    resume check compares with the manifest's."""
    async_agents: set[str] = set()
    agents: list[Agent] = []
    for i, matchup in enumerate(experiment.matchups):
        for j, ref in enumerate(matchup.pool):
            try:
                agent = make_agent(ref.target)
            except Exception as exc:
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise SpecError(
                    str(experiment.source),
                    "pool",
                    f"agent {ref.label!r} (matchup {i}, entry {j}) cannot be built: {reason}",
                ) from exc
            if not agent.synchronous:
                async_agents.add(ref.label)
            agents.append(agent)
    return async_agents, pool_builds(agents)


def _stored(
    experiment: Experiment,
    store: ResultsStore,
    builds: dict[str, dict[str, Any]],
    resume: bool,
    force_resume: bool,
    host_key: bytes | None,
) -> tuple[set[int], str, bytes]:
    """The stored game indices to skip, the store's id and the results folder's host
    key (created there, from `host_key` if given, when it has none; the manifest names
    it by its fingerprint, and a resume checks it against that: `folder_host_key`), once
    the store passed the resume checks (see the module docstring)."""
    # lazily: the leaderboard package loads its rating and plotting libraries
    from mafia_arena.leaderboard.records import check_store

    if not resume and store.path.is_file() and store.path.stat().st_size:
        store.archive()  # before reading it: starting over must not need a readable store
    check_store(store.path)  # what the board and MLflow will rate: refused before playing
    stored = StoredRecords(
        store.path,
        games=(experiment.spec_hash, experiment.games_total),
        written=check_written_keys,
    )
    old = read_manifest(store.folder) if stored else None  # unreadable: ManifestError
    others = stored.spec_hashes() - {experiment.spec_hash}
    store_id = str(old.get("store_id") or "") if old is not None else ""
    key = folder_host_key(experiment.results_dir, old, len(stored), host_key)  # kept there
    current = manifest(
        experiment.spec_hash, experiment.inputs, store_id or uuid.uuid4().hex[:12], builds, key
    )
    if others:
        changed = input_differences(old, current) if old is not None else []
        what = "; ".join(changed) if changed else "the spec itself changed"
        raise ResultsConflict(
            f"{store.path} holds games of another version of this spec (hash "
            f"{', '.join(sorted(map(str, others)))}, now {experiment.spec_hash}): {what}. "
            "Pass --no-resume (resume=False) to archive them and start over, or use "
            "another results folder (--results)."
        )
    if stored and old is None:
        print(
            f"warning: {store.folder}: its {len(stored)} stored games have no {MANIFEST_NAME} "
            "(written before code versions were recorded), so whether the same code played "
            "them cannot be checked; resuming, and recording the present code from now on",
            file=sys.stderr,
        )
    if stored and old is not None:  # an empty object is a manifest too: it names no code
        changed = code_differences(old, current)
        if changed and not force_resume:
            raise ResultsConflict(
                f"{store.path}: its {len(stored)} games were played by other code "
                f"({'; '.join(changed)}); resuming would mix games of two code versions. "
                "Pass --force-resume (force_resume=True) to resume anyway, --no-resume "
                "to archive them and start over, or use another results folder (--results)."
            )
        changed = build_differences(old, current)
        if changed and not force_resume:
            raise ResultsConflict(
                f"{store.path}: its {len(stored)} games were played by another build of "
                f"their agents ({'; '.join(changed)}); resuming would mix games of two "
                "builds. Pass --force-resume (force_resume=True) to resume anyway, "
                "--no-resume to archive them and start over, or use another results "
                "folder (--results)."
            )
    write_manifest(store.folder, current)
    return stored.played_indices(), str(current["store_id"]), key


def _run(
    experiment: Experiment,
    store: ResultsStore,
    async_agents: set[str],
    builds: dict[str, dict[str, Any]],
    *,
    address: str | None,
    use_ray: bool,
    resume: bool,
    force_resume: bool,
    progress: bool,
    tracking_uri: str | None,
    host_key: bytes | None,
) -> Summary:
    done, store_id, key = _stored(experiment, store, builds, resume, force_resume, host_key)
    summary = Summary(
        experiment.name,
        experiment.spec_hash,
        experiment.results_dir,
        store.path,
        experiment.games_total,
        games_skipped=len(done),
        executor="ray" if use_ray else "in-process",
    )
    tracker: Any = None
    executor: Any = None
    ended = False  # the tracker's runs ended by an error or interrupt of the games
    started = time.perf_counter()
    try:
        if tracking_uri is not None:
            tracker = _tracker(experiment, tracking_uri, address, use_ray, store_id)
        jobs = _jobs(experiment, async_agents, done, key, store.logs)
        conc = experiment.concurrency
        executor = (
            RayExecutor(address=address, num_cpus=conc.workers, max_retries=conc.max_retries)
            if use_ray and jobs
            else InProcessExecutor()
        )
        summary.executor = "ray" if isinstance(executor, RayExecutor) else "in-process"
        started = time.perf_counter()
        _play(executor, jobs, store, summary, tracker, progress, len(done))
    except BaseException as exc:  # Ctrl-C, or the store failing (disk full): stop cleanly
        if isinstance(executor, RayExecutor):
            executor.cancel()
        if tracker is not None:
            ended = True
            tracker.interrupted("KILLED" if interrupt_behind(exc) else "FAILED")
        if interrupt_behind(exc) and not isinstance(exc, Interrupted):
            stored = _stored_after_interrupt(store, experiment)
            raise Interrupted(stored, experiment.games_total) from None
        raise
    finally:
        summary.wall_s = time.perf_counter() - started
        if executor is not None:
            _close(executor, store, experiment, None if ended else tracker)
    summary.games_per_s = summary.games_played / summary.wall_s if summary.wall_s else 0.0
    finishing = False  # once true, the tracking ends its runs itself if interrupted
    try:
        records = StoredRecords(store.path, experiment.spec_hash)  # streamed, never held
        summary.games_stored = len(records)
        summary.games_void = records.void_count()
        summary.add_matchups({m.label: m.indices for m in experiment.matchups}, records)
        if store.failures_path().exists():  # only games still not stored stay listed
            store.keep_failures(experiment.spec_hash, {int(r["game_index"]) for r in records})
        if tracker is not None:
            finishing = True
            _finish_tracking(tracker, experiment, summary, records)
    except KeyboardInterrupt:  # the games are stored: say so, not "while starting"
        if tracker is not None and not finishing:
            tracker.interrupted("KILLED")
        raise Interrupted(
            _stored_after_interrupt(store, experiment), experiment.games_total
        ) from None
    if summary.failed:
        raise TournamentError(
            f"{len(summary.failed)} game(s) failed; the others are "
            f"stored; run again to retry them\n{summary}",
            summary,
        )
    return summary


def _close(executor: Any, store: ResultsStore, experiment: Experiment, tracker: Any) -> None:
    """Close `executor`; an interrupt meanwhile is said with the games the store holds,
    and ends the `tracker`'s runs ``KILLED`` (None: no tracker, or its runs are ended).

    Why: a local Ray's shutdown takes seconds after the last game, and an interrupt then
    reached `run_tournament` bare, which took it for one before any game was played
    ("interrupted while starting") with every game of the run stored; and it passes the
    tracking's own handlers, so its runs would stay ``RUNNING`` for good."""
    try:
        executor.close()
    except BaseException as exc:
        if isinstance(exc, Interrupted) or not interrupt_behind(exc):
            raise
        if tracker is not None:
            tracker.interrupted("KILLED")
        raise Interrupted(
            _stored_after_interrupt(store, experiment), experiment.games_total
        ) from None


def _stored_after_interrupt(store: ResultsStore, experiment: Experiment) -> int:
    """How many games of `experiment` the store holds once an interrupt stopped the run:
    the store is closed first, then read back, so the count is what the next run finds.

    Why closed first: an interrupt that lands while a batch is being appended leaves some
    of its lines in the file's buffer, and closing writes them to the store (their logs
    are already in place: `ResultsStore.append`). Counting before that undercounted the
    games the next run skips. A store that cannot take them (a full disk) keeps what it
    holds; the count reads that."""
    with contextlib.suppress(OSError):
        store.close()
    return len(StoredRecords(store.path, experiment.spec_hash))


def _jobs(
    experiment: Experiment, async_agents: set[str], done: set[int], key: bytes, logs: Path
) -> list[BatchJob]:
    """The batch jobs of the games not in `done`, with the results folder's host `key`
    and, per matchup played from a variant file, how the game logs written to `logs`
    name it (`_variant_file`)."""
    conc = experiment.concurrency
    fault = FaultPlan.from_env()
    return [
        BatchJob(
            experiment.name,
            experiment.spec_hash,
            experiment.base_seed,
            b.matchup,
            b.indices,
            conc.llm_in_flight,
            conc.decision_timeout_s,
            fault,
            key,
            experiment.void_threshold,
            _variant_file(experiment, b.matchup.variant_source, logs),
        )
        for b in batches(experiment, None, async_agents, skip=done)
    ]


def _variant_file(experiment: Experiment, source: str, logs: Path) -> str | None:
    """What the logs in `logs` record as the variant file `source` (a matchup's
    ``variant_source``) where it is a researcher's own (`play_batch` sets it only
    then): `input_files.reference_from`, relative where the file and the logs lie
    in the working folder or the spec's repository; None where `source` names no file."""
    file = variant_path(source)
    if not file.is_file():
        return None
    return reference_from(file, logs, spec_projects(experiment.source))


def _same_code(
    items: list[dict[str, Any]], code: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The played games of `items` whose worker ran the driver's `code`, each record
    stamped with it, and a failure for each game played by other code.

    Why: a worker imports the package when it starts, so a checkout edited while a
    tournament runs can play later games with the new code while the driver (and the
    store's manifest) name the old one. Such a game is not stored: the store would mix
    two codes under one identity. It fails, so the next run plays it again, and that
    run's resume check names the change (`provenance.code_differences`)."""
    games: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    for game in (g for g in items if "record" in g):
        record = game["record"]
        changed = code_differences({"code": record.get("code")}, {"code": code})
        if changed:
            reason = (
                "played by other code than the tournament's: the package changed while "
                f"it ran ({'; '.join(changed)}); not stored"
            )
            stale.append(failure(record["game_index"], record["seed"], reason)["failed"])
            continue
        record["code"] = dict(code)
        games.append(game)
    return games, stale


def _finish_tracking(
    tracker: Any, experiment: Experiment, summary: Summary, records: StoredRecords
) -> None:
    from mafia_arena.leaderboard.tracked import rating_estimates

    run_metrics = {
        "games_played": float(summary.games_played),
        "games_failed": float(len(summary.failed)),
        "wall_s": summary.wall_s,
        "games_per_s": summary.games_per_s,
    }
    try:
        ratings = rating_estimates(records) if records else {}
    except BaseException as exc:
        tracker.interrupted("KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
        raise
    tracker.finish(
        records,
        experiment.results_dir,
        run_metrics,
        status="FAILED" if summary.failed else "FINISHED",
        ratings=ratings,
    )
    summary.tracking_uri = tracker.uri
    summary.parent_run_id = tracker.parent_id
    summary.child_run_ids = dict(tracker.child_ids)


def _tracker(
    experiment: Experiment, tracking_uri: str, address: str | None, use_ray: bool, store_id: str
) -> Any:
    from mafia_arena.tracking.mlflow_runs import TournamentTracker

    mode = f"ray:{address}" if use_ray and address else "ray:local" if use_ray else "in-process"
    code = code_provenance()
    return TournamentTracker(
        experiment,
        tracking_uri,
        tags={
            "executor": mode,
            "results_dir": str(experiment.results_dir),
        },
        code_tags={
            "mafia_arena.version": str(code["version"]),
            "mafia_arena.git_commit": str(code["commit"] or "unknown"),
            "mafia_arena.source_digest": str(code["digest"]),
        },
        store_id=store_id,
    )


def _stop_if_sigterm_dropped() -> None:
    """Raise `KeyboardInterrupt` if a SIGTERM arrived whose interrupt went nowhere
    (`sigterm_arrived`: Python drops one raised in a `__del__`, a library may catch
    one), so the run stops as SIGTERM says: checked once Ray has started and after
    each stored batch, where stopping leaves the store whole."""
    if sigterm_arrived():
        raise KeyboardInterrupt


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

    code = code_provenance()
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
        _stop_if_sigterm_dropped()  # Ray has started
        for outcome in executor.run(jobs):
            job = outcome.job
            if outcome.games is None:  # the whole task failed (retries spent)
                items = [
                    failure(i, game_seed(job.base_seed, i), outcome.error or "unknown error")
                    for i in job.indices
                ]
            else:
                items = outcome.games
            games, stale = _same_code(items, code)
            failed = [g["failed"] for g in items if "failed" in g] + stale
            store.append(games)
            if failed:
                store.record_failures(job.spec_hash, failed)
            for item in failed:
                summary.failed[int(item["game_index"])] = item["error"]
                last = (item["error"] or "").strip().splitlines()[-1:]
                bar.write(
                    f"game {item['game_index']} (seed {item['seed']}) failed: {''.join(last)}"
                )
            summary.games_played += len(games)
            bar.update(len(games))
            if tracker is not None:
                tracker.progress(already + summary.games_played)
            _stop_if_sigterm_dropped()
    finally:
        bar.close()
