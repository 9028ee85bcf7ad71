"""Re-root the artifact locations of a local MLflow store after its folder moved.

MLflow records absolute artifact locations: an experiment's ``artifact_location`` and
each run's ``artifact_uri`` (``<location>/<run id>/artifacts``). It has no relative
form: the SQL store resolves a relative location against the working folder when the
experiment is created. After a working folder with its ``mlflow.db`` is copied or moved,
the copy's database still names the original folder; with the original gone, the
copy's MLflow client (and ``mlflow ui``) lists no artifacts, and with it still there,
the copy reads the original's.

The tracker keeps a local store's artifacts in ``<db folder>/mlruns``
(`tracking.uri.artifact_location`), so an experiment whose location is exactly
``<P>/mlruns`` was created when the database lay in folder ``P``. `reroot_local_store`
finds every such ``P`` that is not the database's folder now and rewrites, in one
transaction, every experiment location and run artifact URI under ``<P>/mlruns`` to the
same place under ``<db folder>/mlruns`` (MLflow's default experiment, made in
``<P>/mlruns/0``, too). Locations elsewhere (a custom artifact root, a server's) are left
alone. The files themselves are not touched: a copy already holds them in its own
``mlruns``. Running it again changes nothing.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

FOLDER = "mlruns"
_FILE = "file://"


def _path(location: str) -> str:
    return location[len(_FILE) :] if location.startswith(_FILE) else location


def reroot_local_store(db: Path) -> int:
    """Rewrite the artifact locations of the SQLite store `db` that name a folder it was
    moved from (module docstring); return how many rows changed (0 for a new or empty
    database, or one that never moved)."""
    if not db.is_file() or db.stat().st_size == 0:
        return 0
    new_root = str(db.resolve().parent / FOLDER)
    changed = 0
    with closing(sqlite3.connect(db, timeout=30)) as con, con:
        try:
            locations = [str(row[0] or "") for row in con.execute(_EXPERIMENTS)]
        except sqlite3.DatabaseError:  # not (yet) an MLflow database: MLflow says so
            return 0
        old_roots = {
            _path(loc).rstrip("/")
            for loc in locations
            if Path(_path(loc)).name == FOLDER and _path(loc).rstrip("/") != new_root
        }
        for old in sorted(old_roots):
            for prefix in (old, _FILE + old):
                replacement = new_root if prefix == old else _FILE + new_root
                for table, column in _COLUMNS:
                    changed += con.execute(
                        f"UPDATE {table} SET {column} = ? || substr({column}, ?) "
                        f"WHERE {column} = ? OR substr({column}, 1, ?) = ?",
                        (replacement, len(prefix) + 1, prefix, len(prefix) + 1, prefix + "/"),
                    ).rowcount
    return changed


_COLUMNS = (("experiments", "artifact_location"), ("runs", "artifact_uri"))
_EXPERIMENTS = "SELECT artifact_location FROM experiments"
