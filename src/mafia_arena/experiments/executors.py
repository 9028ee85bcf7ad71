"""Where batches run: in this process, or as Ray tasks (a local cluster or a given one).

Both executors take the batch jobs and yield `Outcome`s in completion order; the driver
does the same thing with each (store it, tick the progress bar), so the two paths differ
only in where `play_batch` runs.

Ray: every job is submitted first, then results are collected with `ray.wait` as they
finish. Tasks are retried by Ray (``max_retries``) after system failures — a worker
process that crashed or was killed — and after the application errors listed in
`RETRYABLE` only; any other exception of a game is caught in the task and comes back as
that game's failure (`worker.play_batch`), the rest of the batch stored. Because a
batch is idempotent, a retried task plays exactly the games the lost attempt would have.
A task that fails for good (retries spent) fails each of its games.

The local cluster is private: bound to 127.0.0.1 (`local_ray.start_local_ray`).
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from mafia_arena.experiments.worker import RETRYABLE, BatchJob, play_batch
from mafia_arena.local_ray import ensure_ray


@dataclass
class Outcome:
    """A finished batch: its games, or the error that made it fail for good."""

    job: BatchJob
    games: list[dict[str, Any]] | None = None
    error: str | None = None


class InProcessExecutor:
    """Runs the batches one after the other in the calling process."""

    def run(self, jobs: Sequence[BatchJob]) -> Iterator[Outcome]:
        for job in jobs:
            try:
                games = play_batch(job)
            except Exception:
                yield Outcome(job, error=traceback.format_exc(limit=8))
            else:
                yield Outcome(job, games)

    def close(self) -> None:
        """Nothing to release."""


class RayExecutor:
    """Runs the batches as Ray tasks; starts a local cluster unless one is connected.

    `address` joins an existing cluster (``"auto"`` or ``"ray://host:10001"``); without
    it a private local cluster of `num_cpus` CPUs is started (`start_local_ray`: bound
    to 127.0.0.1, dashboard off). If Ray is already initialised in this process (a test
    session, a notebook) it is reused and left running.

    Stopped once Ray has started and before the executor is made (Ctrl-C, or SIGTERM as
    `mafia_arena.sigterm` makes it, while the task is declared), what this call started
    of Ray is shut down before the interrupt goes on, as `ensure_ray` does for one while
    Ray starts. Why: the driver closes only an executor it holds, so Ray was otherwise
    left running into the interpreter's exit, shut down by Ray's own exit hook only, its
    threads still alive while the interpreter ends.
    """

    def __init__(self, *, address: str | None, num_cpus: int, max_retries: int) -> None:
        import ray

        self.ray = ray
        self.started = ensure_ray(address, num_cpus)
        try:
            self.remote = ray.remote(play_batch).options(
                num_cpus=1, max_retries=max_retries, retry_exceptions=list(RETRYABLE)
            )
        except BaseException:
            if self.started:
                with contextlib.suppress(Exception):
                    ray.shutdown()
            raise
        self._pending: dict[Any, BatchJob] = {}

    def run(self, jobs: Sequence[BatchJob]) -> Iterator[Outcome]:
        ray = self.ray
        self._pending = {self.remote.remote(job): job for job in jobs}
        while self._pending:
            ready, _ = ray.wait(list(self._pending), num_returns=1, timeout=1.0)
            for ref in ready:
                job = self._pending.pop(ref)
                try:
                    games = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    yield Outcome(job, error=f"{type(exc).__name__}: {exc}")
                else:
                    yield Outcome(job, games)

    def cancel(self) -> None:
        """Cancel the tasks not yet collected (Ctrl-C); their games stay unplayed."""
        for ref in list(self._pending):
            # a task that already finished or is gone has nothing to cancel
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self._pending.clear()

    def close(self) -> None:
        self.cancel()
        if self.started:
            self.ray.shutdown()
