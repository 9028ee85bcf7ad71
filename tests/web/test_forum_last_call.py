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
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.web.driver import LAST_CALL

pytestmark = pytest.mark.timeout(120)

READING_S = 6.0
"""How long the second person reads on once everyone else is done (a last call comes at
once when the others are)."""


async def done_and_reading(
    ws_url: str, game_id: str, credentials: list[str], first_done: Callable[[], bool]
) -> list[Any]:
    """The first seat answers every request with its first option ("done for this
    phase"); the second never answers. The second seat's requests, as pushed, until
    `READING_S` after the server holds the first seat done (`first_done`, asked once
    the first has answered).

    Why counted from the first seat's being done, not from the start: on a loaded
    machine the first seat's answers can take seconds to reach the table, and a
    window counted from the start could close before the second was the last one."""
    asked: list[dict[str, Any]] = []
    answers: list[int] = []

    async def done(ws: Any) -> None:
        answered = None
        async for raw in ws:
            message = json.loads(raw)
            request = message.get("request") if message["type"] == "state" else None
            if request and request["turn"] != answered:
                answered = request["turn"]
                await ws.send(json.dumps({"type": "act", "turn": answered, "choice": 0}))
                answers.append(answered)

    async def reading(ws: Any) -> None:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "state" and message["request"]:
                asked.append(message["request"])

    url = f"{ws_url}/ws/{game_id}"
    async with (
        websockets.connect(url, open_timeout=HTTP_TIMEOUT) as first,
        websockets.connect(url, open_timeout=HTTP_TIMEOUT) as second,
    ):
        await first.send(json.dumps({"type": "auth", "credential": credentials[0]}))
        await second.send(json.dumps({"type": "auth", "credential": credentials[1]}))
        pages = asyncio.gather(done(first), reading(second))
        try:
            async with asyncio.timeout(HTTP_TIMEOUT):  # a hang guard
                while not (answers and first_done()) and not pages.done():
                    await asyncio.sleep(0.05)
            await asyncio.wait({pages}, timeout=READING_S)  # a last call would come now
            if pages.done():
                pages.result()  # a page's error, raised here
                raise AssertionError("a page's socket closed while the second read")
        finally:
            pages.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pages
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
        session = live.manager.get(game_id)
        assert session is not None
        first_seat = session.slots[0]
        asked = asyncio.run(
            done_and_reading(live.ws_url, game_id, credentials, lambda: not first_seat.active)
        )
        assert session.forum_part() == "night"
        assert session.slots[0].active is False  # the first is done: the second is the last
        assert session.slots[1].active
    finally:
        live.close()
    assert asked and asked[0]["kind"] == "forum"
    assert not any(request["last_call"] for request in asked), asked
    assert len({request["turn"] for request in asked}) == 1
    # the whole timer (a forum step's 60 s, `web.settings`), never cut to the last call's
    assert all(request["seconds_left"] > LAST_CALL + READING_S for request in asked), asked
