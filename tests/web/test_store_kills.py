"""A server killed while it stores a finished game leaves a results store the
leaderboards can read, with one record per game.

A finished game is written in three steps (`web/storage.store`): its log file, one
line appended to the results store (`results/web/games.jsonl`), then the live store's
row marked over. A kill can land inside the append (a line cut short) or between the
append and the row (the row still says the game is live). Each test leaves the files
exactly as such a kill would, with the server process stopped by SIGKILL, and starts
it again on the same folder.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.web.support import HTTP_TIMEOUT, ServerProcess

from mafia_arena.results_file import read_records

pytestmark = pytest.mark.timeout(180)

BOTS = {
    "variant": "standard",
    "players": 7,
    "seats": [{"kind": "bot", "agent": "random"}],
    "bot_delay": 0,
}


def finish_one(process: ServerProcess) -> str:
    """Create a game of bots (it plays at once) and wait until it is stored; its id."""
    created = httpx.post(process.url + "/api/games", json=BOTS, timeout=HTTP_TIMEOUT)
    assert created.status_code == 200, created.text
    game_id: str = created.json()["game_id"]
    wait_listed(process, game_id)
    return game_id


def wait_listed(process: ServerProcess, game_id: str, timeout: float = 60) -> None:
    """Wait until the finished games list `game_id` (its row says over)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        finished = httpx.get(process.url + "/api/finished", timeout=HTTP_TIMEOUT).json()
        if any(game["id"] == game_id for game in finished):
            return
        time.sleep(0.1)
    raise AssertionError(f"game {game_id} was never listed as finished:\n{process.tail()}")


def records(folder: Path) -> list[dict[str, Any]]:
    """The results store as the leaderboards read it (raises on a damaged line)."""
    return read_records(folder / "results" / "web" / "games.jsonl")


def test_a_game_stored_just_before_a_kill_is_recorded_once(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    try:
        game_id = finish_one(process)
        process.kill()
        # the kill came after the append and before the row was marked over
        with sqlite3.connect(tmp_path / "live.sqlite") as db:
            db.execute("UPDATE games SET over = 0, log = NULL WHERE id = ?", (game_id,))
        process.start()  # the game is resumed, over at once, and stored again
        wait_listed(process, game_id)
        stored = [r for r in records(tmp_path) if r.get("game_id") == game_id]
        assert len(stored) == 1, f"{len(stored)} records of one game"
    finally:
        process.kill()


def test_a_record_cut_by_a_kill_does_not_damage_the_next_one(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    try:
        first = finish_one(process)
        process.kill()
        store = tmp_path / "results" / "web" / "games.jsonl"
        whole = store.read_bytes()
        store.write_bytes(whole[: len(whole) // 2])  # the kill cut the append short
        process.start()
        second = finish_one(process)
        assert [r["game_id"] for r in records(tmp_path)] == [second]
        assert first != second
    finally:
        process.kill()
