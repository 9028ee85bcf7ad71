"""A page's ``back`` (take the seat back from its stand-in) is always answered, against
a live server: with no stand-in playing the seat, or once the game is over, an error
says why and nothing changes. Before, such a ``back`` got no reply at all, unlike every
other frame that does nothing (`web/ws.py`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tests.web.support import LiveServer, autopilot, open_seat, recv_until, two_humans

pytestmark = pytest.mark.timeout(120)


async def answers_to_back(
    server: LiveServer, game_id: str, credential: str
) -> list[dict[str, Any]]:
    """The replies (``error``, ``info``) the seat's page receives after its state when
    it sends ``back`` and then a ``ping``, up to the ``pong`` (frames are read in order,
    so the ``back``'s answer, if any, comes before it)."""
    ws = await open_seat(server, game_id, credential)
    await recv_until(ws, lambda m: m["type"] == "state")
    await ws.send(json.dumps({"type": "back"}))
    await ws.send(json.dumps({"type": "ping"}))
    got: list[dict[str, Any]] = []
    async with asyncio.timeout(30):  # a hang guard
        while not got or got[-1]["type"] != "pong":
            got.append(json.loads(await ws.recv()))
    await ws.close()
    return [m for m in got if m["type"] in ("error", "info")]  # replies, not pushes


def test_back_with_no_stand_in_is_refused_with_the_reason(server: LiveServer) -> None:
    game_id, (mine, _theirs) = two_humans(server)
    session = server.manager.get(game_id)
    assert session is not None
    seats = [(s.replaced, s.was_replaced, s.missed) for s in session.slots]
    notices = list(session.notices)

    got = asyncio.run(answers_to_back(server, game_id, mine["credential"]))

    assert got == [{"type": "error", "reason": "no stand-in is playing for you"}]
    assert [(s.replaced, s.was_replaced, s.missed) for s in session.slots] == seats
    assert session.notices == notices  # no "is back" for the table


def test_back_once_the_game_is_over_is_refused_with_the_reason(server: LiveServer) -> None:
    created = server.create(variant="standard", players=7, seed=5, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    mine = server.join(game_id, created["invites"][0]["invite"], "Ada")
    asyncio.run(autopilot(server.ws_url, game_id, mine["credential"], mine["seat"], 5))
    server.wait_over(game_id)
    session = server.manager.get(game_id)
    assert session is not None
    notices = list(session.notices)

    got = asyncio.run(answers_to_back(server, game_id, mine["credential"]))

    assert got == [{"type": "error", "reason": "the game is over"}]
    assert session.notices == notices
    assert not session.slots[mine["seat"]].replaced
