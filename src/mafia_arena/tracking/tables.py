"""Per-game and per-seat tables of a set of records, written as CSV (and Parquet).

One row per game (`game_rows`) or per seat (`seat_rows`), metric columns prefixed
``m.`` and a seat's agent counters ``extra.`` so they never collide with the record's
own fields; one row per aggregate
estimate with its interval (`estimate_rows`). Parquet is written as well
when pyarrow is installed (typed columns load faster in pandas than CSV).

A table of a large tournament is streamed (`TableWriter`): a first pass over its rows
learns the columns (in first-seen order) and each column's type, a second writes them,
the Parquet file in row groups of `ROW_GROUP` rows, so no more than that many rows are
ever held. A table of at most `ROW_GROUP` rows is one row group, as `write_table` of a
list always wrote it.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from mafia_arena.metrics.aggregate import Estimate
from mafia_arena.results_file import stored_metrics

Row = dict[str, Any]
ROW_GROUP = 8192


def estimate_rows(estimates: Mapping[str, Estimate]) -> list[Row]:
    """One row per estimate: its name, value, 95% interval and count, sorted by name."""
    return [
        {"name": name, "value": e.value, "ci_low": e.low, "ci_high": e.high, "n": e.n}
        for name, e in sorted(estimates.items())
    ]


def game_row(r: Row, matchup_of: Callable[[int], str]) -> Row:
    """The row of one game record."""
    row: Row = {
        "game_index": r["game_index"],
        "matchup": matchup_of(r["game_index"]),
        "seed": r["seed"],
        "variant": r["variant"],
        "players": r["players"],
        "winner": r["winner"],
        "length_days": r["length_days"],
        "agents": " ".join(s["agent"] for s in r["seats"]),
        "roles": " ".join(s["role"] for s in r["seats"]),
        "log_path": r["log_path"],
    }
    row.update({f"m.{k}": v for k, v in stored_metrics(r, "game").items()})
    return row


def seat_rows_of(r: Row, matchup_of: Callable[[int], str]) -> Iterator[Row]:
    """The rows of one game record's seats: the seat's fields, its agent's own counters
    (``extra``) one column each as ``extra.<name>`` (a column holds one type; an object
    would be a text in the CSV and a struct of whichever names came first in the
    Parquet file), then its metrics."""
    per_seat = stored_metrics(r, "per_seat")
    matchup = matchup_of(r["game_index"])
    for seat in r["seats"]:
        row: Row = {
            "game_index": r["game_index"],
            "matchup": matchup,
            "variant": r["variant"],
            "players": r["players"],
            **{k: v for k, v in seat.items() if k != "extra"},
        }
        row.update({f"extra.{k}": v for k, v in (seat.get("extra") or {}).items()})
        row.update({f"m.{k}": v for k, v in per_seat.get(str(seat["seat"]), {}).items()})
        yield row


def game_rows(records: Sequence[Row], matchup_of: Callable[[int], str]) -> list[Row]:
    return [game_row(r, matchup_of) for r in records]


def seat_rows(records: Sequence[Row], matchup_of: Callable[[int], str]) -> list[Row]:
    return [row for r in records for row in seat_rows_of(r, matchup_of)]


class TableWriter:
    """`<stem>.csv` (and `<stem>.parquet` with pyarrow) from rows fed twice.

    Feed every row to `learn` (first pass: columns and their types), then every row in
    the same order to `write` (second pass), then `close`. The files equal what
    `write_table` makes of the list of the same rows.
    """

    def __init__(self, folder: Path, stem: str) -> None:
        self.folder = folder
        self.stem = stem
        self.columns: dict[str, None] = {}
        self.samples: dict[str, dict[type, Any]] = {}
        self._csv: IO[str] | None = None
        self._writer: csv.DictWriter[str] | None = None
        self._parquet: Any = None
        self._schema: Any = None
        self._pending: list[Row] = []

    def learn(self, row: Row) -> None:
        for key, value in row.items():
            seen = self.samples.get(key)
            if seen is None:
                self.columns[key] = None
                seen = self.samples[key] = {}
            seen.setdefault(type(value), value)

    def _open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._csv = (self.folder / f"{self.stem}.csv").open("w", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._csv, fieldnames=list(self.columns))
        self._writer.writeheader()
        try:
            import pyarrow as pa
        except ImportError:
            return
        # The type pyarrow infers for a column depends only on which Python types it
        # holds, so one value of each type stands for the whole column.
        samples = {c: list(self.samples[c].values()) for c in self.columns}
        depth = max((len(v) for v in samples.values()), default=0)
        self._schema = pa.Table.from_pylist(
            [{c: v[min(i, len(v) - 1)] for c, v in samples.items()} for i in range(depth)]
        ).schema

    def write(self, row: Row) -> None:
        if self._writer is None:
            self._open()
        assert self._writer is not None
        self._writer.writerow(row)
        if self._schema is not None:
            self._pending.append(row)
            if len(self._pending) >= ROW_GROUP:
                self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = list(self.columns)
        table = pa.Table.from_pylist(
            [{c: row.get(c) for c in columns} for row in self._pending], schema=self._schema
        )
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.folder / f"{self.stem}.parquet", self._schema)
        self._parquet.write_table(table)
        self._pending = []

    def close(self) -> list[Path]:
        """Finish the files (an empty table: the header alone); returns their paths."""
        if self._writer is None:
            self._open()
        assert self._csv is not None
        self._csv.close()
        written = [self.folder / f"{self.stem}.csv"]
        if self._schema is None:
            return written
        if self._pending or self._parquet is None:
            self._flush()
        self._parquet.close()
        return [*written, self.folder / f"{self.stem}.parquet"]


def write_table(rows: Sequence[Row], folder: Path, stem: str) -> list[Path]:
    """`<stem>.csv` always, `<stem>.parquet` when pyarrow is available."""
    writer = TableWriter(folder, stem)
    for row in rows:
        writer.learn(row)
    for row in rows:
        writer.write(row)
    return writer.close()
