"""What a forum game's page with nothing to decide is told while the table waits: the
day or the night in progress, never who is still asked. In a communication window a
seat stays asked until it says it is done, so the names would show who is still writing
private messages or handing in forms, which no seat's own events say."""

from __future__ import annotations

import time
from pathlib import Path

from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.web.session import GameSession


def _session_in_a_day_window(server: LiveServer, game_id: str) -> GameSession:
    """The game's session once a day window asks P1, the human who does not answer."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        session = server.manager.get(game_id)
        game = None if session is None else session.game
        if game is not None and game.state.phase == "day" and 0 in game.pending():
            assert session is not None
            return session
        time.sleep(0.02)
    raise AssertionError("no day window ever asked P1")


def test_a_forum_day_window_does_not_name_the_seats_still_asked(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, allowed_agents=("heuristic", "random"), timer_scale=0.05)
    server = LiveServer(settings)
    server.manager.host_key = FIXED_HOST_KEY
    try:
        created = server.create(
            variant="dictator", players=12, seed=1, seats=[{"kind": "human"}], bot_delay=0
        )
        game_id = created["game_id"]
        server.join(game_id, created["invites"][0]["invite"])
        waiting = _session_in_a_day_window(server, game_id).waiting()
    finally:
        server.close()
    assert waiting == {"text": "The day is in progress.", "seconds_left": None}
