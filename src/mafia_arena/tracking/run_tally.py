"""`RunTally`: everything one MLflow run logs of its records, built in two passes.

A run (a matchup's child run, or the tournament's parent) logs aggregate estimates, the
per-game and per-seat tables, the plots and, for a matchup, its games' logs. The tracker
streams the results store twice through one tally per run (`add` each record, then
`add_second` each again in the same order): the first pass counts and sums and learns
the tables' columns, the second takes the squared deviations of the means and writes the
table rows and the log archive. Only the tallies and the files under construction are
held, never the records, so a tournament of any size is tracked in bounded memory, with
the numbers and files a list of its records gives.

Void games (decided by infrastructure failures) are counted and kept in the tables,
plots and archive, but left out of every aggregate.
"""

from __future__ import annotations

import gzip
import tarfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from mafia_arena.tracking.plots import PlotTally
from mafia_arena.tracking.summaries import Estimates, GameTally, SeatTally
from mafia_arena.tracking.tables import TableWriter, game_row, seat_rows_of


def _as_stored(entry: tarfile.TarInfo) -> tarfile.TarInfo:
    """A log's archive entry without the moment and the account that wrote the file.

    Why: the store writes a log when its batch comes back, so its file time depends on
    how the tournament ran (in-process or on Ray, the batch sizes, a resume), and the
    owner on the machine; the archive holds the game logs, which do not, and so comes
    out byte for byte the same for the same records."""
    entry.mtime = 0
    entry.uid = entry.gid = 0
    entry.uname = entry.gname = ""
    entry.mode = 0o644
    return entry


def _open_log_archive(path: Path, files: ExitStack) -> tarfile.TarFile:
    """``path`` opened as a gzipped tar archive whose bytes depend on its entries alone
    (the gzip header's time is 0; entries go through `_as_stored`); `files` closes it."""
    raw = files.enter_context(path.open("wb"))
    zipped = files.enter_context(
        gzip.GzipFile("logs.tar", "wb", compresslevel=1, fileobj=raw, mtime=0)
    )
    return files.enter_context(tarfile.open(fileobj=zipped, mode="w"))


class RunTally:
    """The aggregates and artifact files of one run, written under `folder`.

    `games` adds the per-game aggregates (matchup runs); `logs_from` (a results folder)
    archives each record's log into ``logs.tar.gz`` (matchup runs).
    """

    def __init__(
        self,
        folder: Path,
        matchup_of: Callable[[int], str],
        *,
        games: bool,
        logs_from: Path | None = None,
    ) -> None:
        self.folder = folder
        self.matchup_of = matchup_of
        self.records = 0
        self.void = 0
        self.game = GameTally() if games else None
        self.seats = SeatTally()
        self.plots = PlotTally()
        self.game_table = TableWriter(folder / "tables", "games")
        self.seat_table = TableWriter(folder / "tables", "seats")
        self.logs_from = logs_from
        self._archive: tarfile.TarFile | None = None
        self._archive_files = ExitStack()

    def add(self, record: dict[str, Any]) -> None:
        """Pass one."""
        self.records += 1
        if record.get("void"):
            self.void += 1
        else:
            if self.game is not None:
                self.game.add(record)
            self.seats.add(record)
        self.plots.add(record)
        self.game_table.learn(game_row(record, self.matchup_of))
        for row in seat_rows_of(record, self.matchup_of):
            self.seat_table.learn(row)

    def add_second(self, record: dict[str, Any]) -> None:
        """Pass two, over the same records in the same order."""
        if not record.get("void"):
            if self.game is not None:
                self.game.add_second(record)
            self.seats.add_second(record)
        self.game_table.write(game_row(record, self.matchup_of))
        for row in seat_rows_of(record, self.matchup_of):
            self.seat_table.write(row)
        if self.logs_from is not None:
            path = self.logs_from / record["log_path"]
            if self._archive is None:
                # closed by `finish`: the archive grows over the whole second pass
                self._archive = _open_log_archive(self.folder / "logs.tar.gz", self._archive_files)
            if path.exists():
                self._archive.add(path, arcname=record["log_path"], filter=_as_stored)

    @property
    def played(self) -> int:
        return self.records - self.void

    def estimates(self) -> Estimates:
        """Game (where kept), agent and role aggregates over the played games."""
        games = self.game.estimates() if self.game is not None else {}
        return {**games, **self.seats.agent_estimates(), **self.seats.role_estimates()}

    def finish(self, title: str) -> None:
        """Close the tables and the archive and draw the plots."""
        self.game_table.close()
        self.seat_table.close()
        self._archive_files.close()
        self.plots.draw(self.folder / "plots", title)
