"""The results store: ``games.jsonl`` (one record per game) and ``logs/`` in a folder.

Contract
--------
* A game's decision traces (LLM seats) go to the log's sidecar
  ``logs/game-NNNNNN.traces.jsonl`` (`runner.log.traces_path`), written like the log and
  before it; a game without traces has no sidecar (a stale one of an earlier, void play
  of the same game is removed).
* A void game (``"void": true``, decided by infrastructure failures) is stored like any
  other; the next run plays it again and appends the new record, which the reader takes
  in its place (`results_file`), and rewrites its log.
* ``manifest.json`` says what the games were played with (`experiments.provenance`);
  ``failed.jsonl`` lists games that raised, with their seed and error: appended as they
  fail, then rewritten at the end of each run to list only the games still not stored
  (`keep_failures`), so after a successful retry it no longer names them.
* One writer at a time: `ResultsStore.open` takes an exclusive `flock` on
  ``<folder>/.lock`` (released by the OS if the driver dies), so two drivers can never
  interleave records.
* A batch of games is stored in this order: every log (and trace sidecar) is written
  to a temporary file, the temporaries are fsynced, then renamed to
  ``logs/game-NNNNNN.jsonl``, and the logs folder is fsynced; only then are the
  records appended to ``games.jsonl``, one line each, and the file flushed and
  fsynced. A record therefore never points at a missing log, and a stored game
  survives a crash of the driver or of the machine (a crash before the records leaves
  at most temporaries and logs of games not yet stored, which the next run plays and
  writes again).
* Why in phases: the driver stores every game of a tournament, so its cost per game
  bounds how far more workers help. The files are written with plain system calls from
  one thread, and only the fsyncs go to a small thread pool, where concurrent fsyncs
  share the file system's journal commits (on ext4 several times the throughput of one
  after the other). That costs the driver about a third less CPU per game than writing,
  syncing and renaming each file in its own pool task (`benchmarks/tournament_scaling.py`
  measures it; docs/tournaments.md has the figures).
* Every line is standard JSON (`results_file.record_line`): a record holding a number
  that is not finite (NaN, Infinity) is a `ValueError` naming its field, raised before
  anything of its batch is written; the readers refuse such a token (`json_line`).
* A write that fails (a full disk, a read-only file system) raises an `OSError` naming
  the file or folder it was writing (`output_folders.naming`): the command line prints
  it as one line, and the games stored before it stay stored.
* A crash can leave a truncated last line (a record without its ``\\n``). Readers ignore
  it; `open` cuts it off before appending, so the next record starts on a clean line
  (the game it belonged to is simply played again, identically).
* `read` is `results_file.read_records` (the reader every consumer shares): sorted by
  ``game_index``, one record per ``(spec_hash, game_index)``, a malformed line other
  than the last an error naming file and line.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from mafia_arena.experiments.errors import ResultsConflict
from mafia_arena.output_folders import naming
from mafia_arena.results_file import (
    LOGS_NAME,
    STORE_NAME,
    after_last_newline,
    json_line,
    read_records,
    record_line,
    store_exists,
)
from mafia_arena.runner.log import traces_path
from mafia_arena.sigterm import interrupts_deferred

__all__ = ["LOGS_NAME", "STORE_NAME", "ResultsStore", "read_records"]

LOG_SYNCS = 8
"""Threads that fsync a batch's logs at once (module docstring)."""
FAILED_NAME = "failed.jsonl"


def _temporary(target: Path) -> Path:
    return target.with_name(target.name + ".tmp")


def _write_all(fd: int, data: bytes) -> None:
    """`os.write` until every byte is written (a write may take only part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ResultsStore:
    """Writer of one results folder. Use as a context manager (it holds the lock)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / STORE_NAME
        self.logs = self.folder / LOGS_NAME
        self._lock: IO[bytes] | None = None
        self._out: IO[bytes] | None = None
        self._writers: ThreadPoolExecutor | None = None

    def __enter__(self) -> ResultsStore:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Lock the folder and make the store appendable (cut a truncated tail)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        lock = (self.folder / ".lock").open("ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise ResultsConflict(
                f"{self.folder}: another tournament is writing to this results folder"
            ) from None
        self._lock = lock
        self._repair_tail()
        self._out = self.path.open("ab")
        self._writers = ThreadPoolExecutor(LOG_SYNCS, thread_name_prefix="log-sync")

    def _repair_tail(self) -> None:
        """Cut a truncated last line off the store, reading only its tail.

        Why only the tail: the store of a long tournament is hundreds of megabytes, and
        reading it whole at every start would make the driver's memory grow with the
        number of stored games, which nothing else in it does."""
        if not store_exists(self.path):  # a pipe or a device is refused, not read
            return
        with self.path.open("rb+") as handle:
            end = handle.seek(0, os.SEEK_END)
            keep = after_last_newline(handle, end)
            if keep != end:
                handle.truncate(keep)
                handle.flush()
                os.fsync(handle.fileno())

    def read(self) -> list[dict[str, Any]]:
        return read_records(self.path)

    def append(self, games: list[dict[str, Any]]) -> None:
        """Store finished games (``{"record", "log", "traces"}`` items; ``traces``
        optional), durably, logs first (module docstring)."""
        assert self._out is not None and self._writers is not None, "open the store first"
        lines = [
            record_line(game["record"], separators=(",", ":"), ensure_ascii=False) for game in games
        ]  # first: a record that is not standard JSON stores nothing of the batch
        if games:
            try:
                self._write_logs(games)
            except OSError as exc:
                raise naming(exc, self.logs) from exc
        try:
            for line in lines:
                self._out.write(line.encode("utf-8") + b"\n")
            self._out.flush()
            os.fsync(self._out.fileno())
        except OSError as exc:
            raise naming(exc, self.path) from exc

    def record_failures(self, spec_hash: str, failures: list[dict[str, Any]]) -> None:
        """Append games that raised (``{"game_index", "seed", "error"}``) to
        ``failed.jsonl``, never read as games (a re-run plays every game not in
        ``games.jsonl``, so a fixed game is simply stored then); `keep_failures` trims it
        at the end of the run."""
        try:
            with self.failures_path().open("ab") as out:
                for item in failures:
                    line = record_line({"spec_hash": spec_hash, **item}, ensure_ascii=False)
                    out.write(line.encode("utf-8") + b"\n")
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            raise naming(exc, self.failures_path()) from exc

    def failures_path(self) -> Path:
        return self.folder / FAILED_NAME

    def keep_failures(self, spec_hash: str, stored: Collection[int]) -> int:
        """Rewrite ``failed.jsonl`` to list only games of `spec_hash` still not in the
        store (not in `stored`), the latest entry of each; return how many it lists.

        Called at the end of a run: a game that failed once and was stored by a retry
        leaves the list, so the file agrees with the summary's "N failed". Written
        atomically (temporary file, fsync, rename); removed when nothing is left.
        """
        path = self.failures_path()
        if not path.exists():
            return 0
        latest: dict[int, dict[str, Any]] = {}
        for line in path.read_text(encoding="utf-8").split("\n"):  # not at U+2028
            try:
                item = json_line(line)
                index = int(item["game_index"])
            except (ValueError, KeyError, TypeError):
                continue  # a torn or foreign line: history only
            if item.get("spec_hash") == spec_hash and index not in stored:
                latest[index] = item
        if not latest:
            path.unlink()
            _fsync_dir(self.folder)
            return 0
        lines = [record_line(latest[i], ensure_ascii=False) for i in sorted(latest)]
        try:
            self._write_files([(path, "\n".join(lines) + "\n")])
        except OSError as exc:
            raise naming(exc, path) from exc
        return len(latest)

    def _write_logs(self, games: list[dict[str, Any]]) -> None:
        """Every game's trace sidecar (or no stale one) and log, durably, in phases:
        write the temporaries, fsync them together, rename each into place (a sidecar
        before its log), fsync the folder."""
        files: list[tuple[Path, str]] = []
        for game in games:
            target = self.folder / game["record"]["log_path"]
            sidecar = traces_path(target)
            if game.get("traces"):
                files.append((sidecar, game["traces"]))
            elif sidecar.exists():
                sidecar.unlink()
            files.append((target, game["log"]))
        self._write_files(files)
        _fsync_dir(self.logs)

    def _write_files(self, files: list[tuple[Path, str]]) -> None:
        """Each `(target, text)` durably: every temporary written, all fsynced (by the
        pool when the store is open), then each renamed onto its target, in order.

        A write that fails or an interrupt (Ctrl-C, SIGTERM) removes the temporaries
        not yet renamed: their games are not stored (the next run plays and writes them
        again), and left behind they would lie in the logs folder beside the logs until
        then, or for good if the tournament is never resumed."""
        opened: list[int] = []
        try:
            try:
                for target, text in files:
                    fd = os.open(_temporary(target), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    opened.append(fd)
                    _write_all(fd, text.encode("utf-8"))
                pool = self._writers
                list(pool.map(os.fsync, opened) if pool is not None else map(os.fsync, opened))
            finally:
                for fd in opened:
                    os.close(fd)
            for target, _text in files:
                os.replace(_temporary(target), target)
        except BaseException:  # only then: a clean batch costs no extra system call
            for target, _text in files:
                with contextlib.suppress(OSError):
                    _temporary(target).unlink(missing_ok=True)
            raise

    def archive(self) -> Path | None:
        """Move the store and logs aside (``*.old``) to start over; returns the new name.

        Ctrl-C or SIGTERM arriving meanwhile waits until the store and its logs have
        both moved and a new store file is open (`sigterm.interrupts_deferred`): stopped
        between them, the archived store's logs stayed behind, to be overwritten by the
        new games' logs, and closing the store then failed with a traceback on the file
        it had closed."""
        if not self.path.exists() and not any(self.logs.glob("*.jsonl")):
            return None
        stamp = self._free_stamp()
        moved = self.folder / f"{STORE_NAME}.{stamp}.old"
        with interrupts_deferred():
            out, self._out = self._out, None
            if out is not None:
                out.close()
            if self.path.exists():
                os.replace(self.path, moved)
            if self.logs.exists():
                os.replace(self.logs, self.folder / f"{LOGS_NAME}.{stamp}.old")
            self.logs.mkdir(exist_ok=True)
            self._out = self.path.open("ab")
        return moved

    def _free_stamp(self) -> str:
        """The time to the second, with ``-2``, ``-3`` … added when an archive of that
        second exists already: a second start-over within the same second must not
        replace the first one's store (its games would be lost) or fail half-way on the
        logs folder after the store was moved."""
        base = time.strftime("%Y%m%d-%H%M%S")
        stamp, count = base, 1
        while any(
            (self.folder / f"{name}.{stamp}.old").exists() for name in (STORE_NAME, LOGS_NAME)
        ):
            count += 1
            stamp = f"{base}-{count}"
        return stamp

    def close(self) -> None:
        """Release the folder (a second call does nothing). Lines that an interrupted
        `append` left in the file's buffer are written and fsynced first: their logs are
        already in place, so they are stored games like the ones before them. The lock
        is released even if that write fails."""
        try:
            if self._writers is not None:
                self._writers.shutdown()
                self._writers = None
            if self._out is not None:
                out, self._out = self._out, None
                try:
                    out.flush()
                    os.fsync(out.fileno())
                except OSError as exc:
                    with contextlib.suppress(OSError):  # it failed to write them once
                        out.close()
                    raise naming(exc, self.path) from exc
                out.close()
        finally:
            if self._lock is not None:
                fcntl.flock(self._lock, fcntl.LOCK_UN)
                self._lock.close()
                self._lock = None
