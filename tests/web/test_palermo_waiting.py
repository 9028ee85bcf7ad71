"""What a Palermo page with nothing to decide is told while the table waits: the night or
the day ("The day is in progress."), not "the night" all day long; never who is asked,
nor the clock's finer phase (when one ends shows when its last mover was done, and a
card's holder may be one of them)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.web.session import GameSession


def _session_waiting_on_p1(server: LiveServer, game_id: str) -> GameSession:
    """The game's session once the table waits on P1, the human who does not answer."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        session = server.manager.get(game_id)
        if session is not None and session.game is not None and 0 in session.game.pending():
            return session
        time.sleep(0.05)
    raise AssertionError("the table never waited on P1")


def test_a_palermo_day_is_not_announced_as_the_night(tmp_path: Path) -> None:
    server = LiveServer(settings_for(tmp_path, allowed_agents=("heuristic", "random")))
    server.manager.host_key = FIXED_HOST_KEY
    try:
        created = server.create(
            variant="palermo", players=12, seed=1, seats=[{"kind": "human"}], bot_delay=0
        )
        game_id = created["game_id"]
        server.join(game_id, created["invites"][0]["invite"])
        session = _session_waiting_on_p1(server, game_id)
        assert session.game is not None and session.game.state.phase == "morning"
        waiting = session.waiting()
    finally:
        server.close()
    assert waiting == {"text": "The day is in progress.", "seconds_left": None}
