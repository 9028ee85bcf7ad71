"""A finished game the server forgets leaves its memory at once.

The manager keeps at most `Settings.max_games` sessions and forgets the
longest-finished to make room (they stay browsable from the store). A person's page
closes when their game ends, and a closed page arms the seat's grace timer, which held
the whole session (engine, views, agents) for the grace period after the manager had
forgotten it: twenty tables playing quick games kept hundreds of finished games in
memory, the server growing by about 0.2 MB a game.
"""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer, autopilot

pytestmark = pytest.mark.timeout(120)

TABLE = {
    "variant": "standard",
    "players": 7,
    "seats": [{"kind": "human"}, {"kind": "bot", "agent": "random"}],
    "seed": 5,
}


def test_a_forgotten_finished_game_is_not_held_by_its_closed_page(tmp_path: Path) -> None:
    live = LiveServer(settings_for(tmp_path, grace=600.0, max_games=1))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        created = live.create(**TABLE)
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"], "Ada")
        asyncio.run(autopilot(live.ws_url, game_id, joined["credential"], 0, 3))
        live.wait_over(game_id)
        session = weakref.ref(live.manager.games[game_id])
        wait_until(lambda: not any(s.connections for s in live.manager.games[game_id].slots))

        live.create(**TABLE)  # the only room: the finished game is forgotten
        assert game_id not in live.manager.games
        wait_until(lambda: (gc.collect(), session() is None)[1])
    finally:
        live.close()


def wait_until(check: object, timeout: float = 10) -> None:
    """Wait until `check()` holds (the server runs on its own thread)."""
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)
