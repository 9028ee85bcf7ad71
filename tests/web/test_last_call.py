"""Timers shorten once every other seat of a prompt has answered (`driver._last_call`).

Two people among instant bots; one answers everything at once. At the first day vote
every other seat has voted, so the other person's 45-second vote timer is cut to the
last call (15 s), its page is told so (``last_call``), and the other person's waiting
line says "Last call." with the new countdown. A person alone with bots
keeps the whole timer: nobody is waiting for them.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.web.driver import LAST_CALL
from mafia_arena.web.settings import timer_for

pytestmark = pytest.mark.timeout(120)


async def until_last_call(url: str, game_id: str, credential: str) -> list[dict[str, Any]]:
    """Answer every request with its first choice except the first vote, which is
    answered only once the page has been told it is the last call; returns the
    states of that vote's turn."""
    vote_turn: int | None = None
    seen: list[dict[str, Any]] = []
    async with websockets.connect(f"{url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT) as ws:
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


async def answer_at_once(
    url: str, game_id: str, credential: str, stop: asyncio.Event, waited: list[dict[str, Any]]
) -> None:
    """Answer every request with its first choice until `stop` is set; keep the
    waiting lines the page was shown."""
    async with websockets.connect(f"{url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        while not stop.is_set():
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
            except TimeoutError:
                continue
            if msg.get("type") == "state" and msg.get("waiting"):
                waited.append(msg["waiting"])
            request = msg.get("request") if msg.get("type") == "state" else None
            if request is not None:
                await ws.send(json.dumps({"type": "act", "turn": request["turn"], "choice": 0}))


async def two_people(
    url: str, game_id: str, credentials: list[str], waited: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    stop = asyncio.Event()
    quick = asyncio.ensure_future(answer_at_once(url, game_id, credentials[1], stop, waited))
    try:
        seen = await until_last_call(url, game_id, credentials[0])
        async with asyncio.timeout(HTTP_TIMEOUT):  # the other page's copy of that push
            while not any(w["text"].endswith("Last call.") for w in waited):
                await asyncio.sleep(0.01)
        return seen
    finally:
        stop.set()
        await quick


def test_the_last_voter_gets_a_short_timer(tmp_path: Path) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0))
    server.manager.host_key = FIXED_HOST_KEY
    try:
        created = server.create(
            variant="standard",
            players=7,
            seed=4,
            seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
            bot_delay=0,
        )
        game_id = created["game_id"]
        joined = [server.join(game_id, i["invite"])["credential"] for i in created["invites"]]
        waited: list[dict[str, Any]] = []
        seen = asyncio.run(two_people(server.ws_url, game_id, joined, waited))
    finally:
        server.close()
    first, last = seen[0], seen[-1]
    assert not first["last_call"] and first["seconds_left"] > LAST_CALL + 5
    assert last["last_call"] and last["seconds_left"] <= LAST_CALL
    hurried = [w for w in waited if w["text"].endswith("Last call.")]
    assert hurried and hurried[-1]["seconds_left"] <= LAST_CALL  # the other page is told
    assert hurried[-1]["text"].startswith("Waiting for guest 1 (P1).")
    assert timer_for("vote") > LAST_CALL + 5  # the cut is real


async def first_vote(url: str, game_id: str, credential: str) -> dict[str, Any]:
    """Answer with first choices until a vote comes; return its request."""
    async with websockets.connect(f"{url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        async with asyncio.timeout(60):
            async for raw in ws:
                msg = json.loads(raw)
                request = msg.get("request") if msg.get("type") == "state" else None
                if request is None:
                    continue
                if request["kind"] == "vote":
                    return request
                await ws.send(json.dumps({"type": "act", "turn": request["turn"], "choice": 0}))
    raise AssertionError("no vote came")


def test_a_person_alone_with_bots_keeps_the_whole_timer(tmp_path: Path) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0))
    server.manager.host_key = FIXED_HOST_KEY
    try:
        created = server.create(
            variant="standard", players=7, seed=4, seats=[{"kind": "human"}], bot_delay=0
        )
        game_id = created["game_id"]
        joined = server.join(game_id, created["invites"][0]["invite"])
        vote = asyncio.run(first_vote(server.ws_url, game_id, joined["credential"]))
        session = server.manager.get(game_id)
        assert session is not None
        while any(slot.active for slot in session.slots[1:]):  # the bots vote at once
            time.sleep(0.01)
        assert session.slots[0].active  # only the person is left to vote ...
        assert not session.slots[0].hurry  # ... and keeps the whole timer
    finally:
        server.close()
    assert not vote["last_call"] and vote["seconds_left"] > LAST_CALL + 5
