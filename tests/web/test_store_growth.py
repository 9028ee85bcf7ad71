"""The list of finished games costs the same however many games the store holds.

The server answers `GET /api/finished` on its one event loop, so a list that read the
whole `games` table (each row with its game's log) stalled every live table's sockets
for as long: half a second with ten thousand stored games. The list is read through an
index on (over, finished), a fixed number of rows.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from tests.web.support import ServerProcess

from mafia_arena.web.db import LiveStore

pytestmark = pytest.mark.timeout(120)


def list_plan(store: LiveStore) -> list[str]:
    """How SQLite runs the statement `LiveStore.finished` executes (its plan's details)."""
    executed: list[str] = []
    store.db.set_trace_callback(executed.append)
    store.finished()
    store.db.set_trace_callback(None)
    (query,) = [sql for sql in executed if sql.lstrip().upper().startswith("SELECT")]
    return [row[3] for row in store.db.execute("EXPLAIN QUERY PLAN " + query)]


def fill(store: LiveStore, games: int) -> None:
    """`games` finished games, each with a log of some size, as a busy server keeps."""
    spec = '{"variant": "standard", "players": 7}'
    log = "x" * 4000
    store.db.executemany(
        "INSERT INTO games (id, spec, seed, created, over, log, finished, winner) "
        "VALUES (?, ?, 0, ?, 1, ?, ?, 'town')",
        [(f"g{i}", spec, float(i), log, float(i)) for i in range(games)],
    )
    store.db.commit()


def test_the_finished_list_reads_an_index_not_the_whole_table(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "live.sqlite")
    fill(store, 200)
    plan = list_plan(store)
    assert any("USING INDEX games_finished" in step for step in plan), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan  # no sort of every row
    store.close()


def test_a_server_lists_the_newest_of_many_stored_games(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "live.sqlite")
    fill(store, 2000)
    store.close()
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    try:
        started = time.monotonic()
        listed = httpx.get(process.url + "/api/finished", timeout=30).json()
        took = time.monotonic() - started
        assert [game["id"] for game in listed] == [f"g{i}" for i in range(1999, 1949, -1)]
        assert took < 5, f"the list took {took:.1f} s"
    finally:
        process.kill()
