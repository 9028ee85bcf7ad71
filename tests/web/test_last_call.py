"""Timers shorten once every other seat of a prompt has answered (`driver._last_call`).

One person among instant bots: at the first day vote every bot has voted at once, so
the person's 45-second vote timer is cut to the last call (15 s), and the page is told
so (``last_call``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.web.driver import LAST_CALL
from mafia_arena.web.settings import timer_for

pytestmark = pytest.mark.timeout(120)


async def until_last_call(url: str, game_id: str, credential: str) -> list[dict[str, Any]]:
    """Answer every request with its first choice except the first vote, which is
    answered only once the page has been told it is the last call; returns the
    states of that vote's turn."""
    vote_turn: int | None = None
    seen: list[dict[str, Any]] = []
    async with websockets.connect(f"{url}/ws/{game_id}") as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        async with asyncio.timeout(60):
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") != "state":
                    continue
                assert not msg["over"], "the game ended before a vote reached the seat"
                request = msg["request"]
                if request is None:
                    continue
                if request["kind"] == "vote" and vote_turn in (None, request["turn"]):
                    vote_turn = request["turn"]
                    seen.append(request)
                    if not request["last_call"]:
                        continue
                    await ws.send(json.dumps({"type": "act", "turn": vote_turn, "choice": 0}))
                    return seen
                await ws.send(json.dumps({"type": "act", "turn": request["turn"], "choice": 0}))
    raise AssertionError("no last call came")


def test_the_last_voter_gets_a_short_timer(tmp_path: Path) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0))
    server.manager.host_key = bytes(range(32))
    try:
        created = server.create(
            variant="standard", players=7, seed=4, seats=[{"kind": "human"}], bot_delay=0
        )
        joined = server.join(created["game_id"], created["invites"][0]["invite"])
        seen = asyncio.run(until_last_call(server.ws_url, created["game_id"], joined["credential"]))
    finally:
        server.close()
    first, last = seen[0], seen[-1]
    assert not first["last_call"] and first["seconds_left"] > LAST_CALL + 5
    assert last["last_call"] and last["seconds_left"] <= LAST_CALL
    assert timer_for("vote") > LAST_CALL + 5  # the cut is real
