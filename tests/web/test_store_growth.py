"""The list of finished games costs the same however many games the store holds.

The server answers `GET /api/finished` on its one event loop, so a list that read the
whole `games` table (each row with its game's log) stalled every live table's sockets
for as long: half a second with ten thousand stored games. The list is read through an
index on (over, finished, id), a fixed number of rows, and so is each older page.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tests.web.support import HTTP_TIMEOUT, ServerProcess

from mafia_arena.web.db import LiveStore

pytestmark = pytest.mark.timeout(120)


def list_plan(store: LiveStore, before: str | None = None) -> list[str]:
    """How SQLite runs the list's statement `LiveStore.finished` executes (its plan's
    details): the first page, or with `before` the page after that game."""
    executed: list[str] = []
    store.db.set_trace_callback(executed.append)
    store.finished(before=before)
    store.db.set_trace_callback(None)
    query = [sql for sql in executed if sql.lstrip().upper().startswith("SELECT")][-1]
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


def test_a_later_page_of_the_list_reads_the_index_from_where_the_last_ended(
    tmp_path: Path,
) -> None:
    store = LiveStore(tmp_path / "live.sqlite")
    fill(store, 200)
    plan = list_plan(store, before="g120")
    assert any("USING INDEX games_finished_order" in step for step in plan), plan
    assert any("(finished,id)<(?,?)" in step for step in plan), plan  # a range, not a scan
    assert not any("TEMP B-TREE" in step for step in plan), plan
    assert [game["id"] for game in store.finished(3, "g120")] == ["g119", "g118", "g117"]
    store.close()


def test_a_server_lists_the_newest_of_many_stored_games(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "live.sqlite")
    fill(store, 2000)
    store.close()
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    try:
        # what the list costs is checked on its plan (the tests above), not on the
        # clock, which a loaded machine slows whatever the plan
        listed = httpx.get(process.url + "/api/finished", timeout=HTTP_TIMEOUT).json()
        assert [game["id"] for game in listed] == [f"g{i}" for i in range(1999, 1949, -1)]
    finally:
        process.kill()


def test_a_store_from_before_the_paged_list_is_given_its_index(tmp_path: Path) -> None:
    """A store written by an older server, with the index on (over, finished) alone,
    is read through the new index once opened (the old one is dropped)."""
    store = LiveStore(tmp_path / "live.sqlite")
    store.db.executescript(
        "DROP INDEX games_finished_order; CREATE INDEX games_finished ON games (over, finished);"
    )
    fill(store, 50)
    store.close()
    store = LiveStore(tmp_path / "live.sqlite")
    indexes = {name for (name,) in store.db.execute("SELECT name FROM sqlite_master")}
    assert "games_finished_order" in indexes and "games_finished" not in indexes
    assert not any("TEMP B-TREE" in step for step in list_plan(store, before="g20"))
    store.close()
