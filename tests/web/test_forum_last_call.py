"""No last call in a forum window.

Off the night clock, when every other seat of a prompt has answered, the one left gets
a shortened timer and a "last call" (`web.driver._last_call`). In a forum window (the
dictator's days and nights, Palermo's phases) the seats are asked until each says it
is done, and what they do meanwhile is hidden (private messages, night forms): a last
call told the one still at it that everyone else had finished. Real server, real
websockets: two people in a 12-player dictator game, one says at once that it is done
with the opening night, the other reads on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.web.driver import LAST_CALL

pytestmark = pytest.mark.timeout(120)

READING_S = 6.0
"""How long the second person reads while everyone else is done (a last call comes at
once when the others are)."""


async def done_and_reading(ws_url: str, game_id: str, credentials: list[str]) -> list[Any]:
    """The first seat answers every request with its first option ("done for this
    phase"); the second never answers. The second seat's requests, as pushed."""
    asked: list[dict[str, Any]] = []

    async def done(ws: Any) -> None:
        answered = None
        async for raw in ws:
            message = json.loads(raw)
            request = message.get("request") if message["type"] == "state" else None
            if request and request["turn"] != answered:
                answered = request["turn"]
                await ws.send(json.dumps({"type": "act", "turn": answered, "choice": 0}))

    async def reading(ws: Any) -> None:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "state" and message["request"]:
                asked.append(message["request"])

    url = f"{ws_url}/ws/{game_id}"
    async with websockets.connect(url) as first, websockets.connect(url) as second:
        await first.send(json.dumps({"type": "auth", "credential": credentials[0]}))
        await second.send(json.dumps({"type": "auth", "credential": credentials[1]}))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.gather(done(first), reading(second)), READING_S)
    return asked


def test_the_last_seat_of_a_forum_window_gets_no_last_call(tmp_path: Path) -> None:
    live = LiveServer(settings_for(tmp_path, grace=600.0))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        seats = [{"kind": "human"}, {"kind": "human"}]
        created = live.create(variant="dictator", players=12, seed=1, seats=seats)
        game_id = created["game_id"]
        credentials = [
            live.join(game_id, invite["invite"], name)["credential"]
            for invite, name in zip(created["invites"], ("Done", "Reading"), strict=True)
        ]
        asked = asyncio.run(done_and_reading(live.ws_url, game_id, credentials))
        session = live.manager.get(game_id)
        assert session is not None and session.forum_part() == "night"
        assert session.slots[0].active is False  # the first is done: the second is the last
        assert session.slots[1].active
    finally:
        live.close()
    assert asked and asked[0]["kind"] == "forum"
    assert not any(request["last_call"] for request in asked), asked
    assert len({request["turn"] for request in asked}) == 1
    # the whole timer (a forum step's 60 s, `web.settings`), never cut to the last call's
    assert all(request["seconds_left"] > LAST_CALL + READING_S for request in asked), asked
