"""Per-game and per-seat tables of a set of records, written as CSV (and Parquet).

One row per game (`game_rows`) or per seat (`seat_rows`), metric columns prefixed
``m.`` so they never collide with the record's own fields; one row per aggregate
estimate with its interval (`estimate_rows`). Parquet is written as well
when pyarrow is installed (typed columns load faster in pandas than CSV).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mafia_arena.metrics.aggregate import Estimate

Row = dict[str, Any]


def estimate_rows(estimates: Mapping[str, Estimate]) -> list[Row]:
    """One row per estimate: its name, value, 95% interval and count, sorted by name."""
    return [
        {"name": name, "value": e.value, "ci_low": e.low, "ci_high": e.high, "n": e.n}
        for name, e in sorted(estimates.items())
    ]


def game_rows(records: Sequence[Row], matchup_of: Callable[[int], str]) -> list[Row]:
    rows = []
    for r in records:
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
        row.update({f"m.{k}": v for k, v in r["metrics"]["game"].items()})
        rows.append(row)
    return rows


def seat_rows(records: Sequence[Row], matchup_of: Callable[[int], str]) -> list[Row]:
    rows = []
    for r in records:
        per_seat = r["metrics"]["per_seat"]
        for seat in r["seats"]:
            row: Row = {
                "game_index": r["game_index"],
                "matchup": matchup_of(r["game_index"]),
                "variant": r["variant"],
                "players": r["players"],
                **seat,
            }
            row.update({f"m.{k}": v for k, v in per_seat.get(str(seat["seat"]), {}).items()})
            rows.append(row)
    return rows


def write_table(rows: Sequence[Row], folder: Path, stem: str) -> list[Path]:
    """`<stem>.csv` always, `<stem>.parquet` when pyarrow is available."""
    folder.mkdir(parents=True, exist_ok=True)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    csv_path = folder / f"{stem}.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    written = [csv_path]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return written
    table = pa.Table.from_pylist([{c: row.get(c) for c in columns} for row in rows])
    pq.write_table(table, folder / f"{stem}.parquet")
    written.append(folder / f"{stem}.parquet")
    return written
