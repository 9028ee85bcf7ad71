"""A stand-in's speech and votes are tagged "(stand-in)" on the pages, live and in the
replay (the seat's own and the moderator's), while the person's own lines are not;
and under a variant's own inactivity rule (dictator) an idle person gets the engine's
warnings and no stand-in. Played over real websockets against a live server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer

pytestmark = pytest.mark.timeout(180)

OWN_WORDS = "I am the one speaking here"


async def _speak_once_then_idle(
    ws_url: str, game_id: str, credential: str, *, stop: str | None = None, speak: bool = True
) -> list[dict[str, Any]]:
    """Stay connected; say `OWN_WORDS` at the first speaking turn (with `speak`), then
    never answer.
    Returns every transcript line received, until the game is over (or a line that
    contains `stop`)."""
    received: list[dict[str, Any]] = []
    spoke = False
    async with websockets.connect(
        f"{ws_url}/ws/{game_id}", max_size=2**24, open_timeout=HTTP_TIMEOUT
    ) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        async with asyncio.timeout(150):
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] != "state":
                    continue
                received.extend(msg["lines"])
                if msg["over"] or (stop and any(stop in line["text"] for line in msg["lines"])):
                    break
                request = msg["request"]
                if speak and request and request["free_text"] and not spoke:
                    spoke = True
                    turn = request["turn"]
                    await ws.send(json.dumps({"type": "say", "turn": turn, "text": OWN_WORDS}))
    return received


def _start(server: LiveServer, **spec: Any) -> tuple[str, str]:
    """Create, join P1 as Ada and start; the bots' seat seeds fixed (a fixed host key),
    so the game with its chosen seed takes the same course every run."""
    server.manager.host_key = FIXED_HOST_KEY
    created = server.create(seats=[{"kind": "human"}], **spec)
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")
    started = httpx.post(
        f"{server.url}/api/games/{game_id}/start",
        json={},
        headers={"Authorization": f"Bearer {created['admin']}"},
        timeout=HTTP_TIMEOUT,
    )
    assert started.status_code in (200, 409), started.text  # a full table starts itself
    return game_id, joined["credential"]


def test_a_stand_ins_speech_and_votes_are_tagged_live_and_in_the_replay(tmp_path: Path) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0, idle_turns=1))
    try:
        game_id, credential = _start(
            server, variant="standard", players=7, seed=3, timer_scale=0.05
        )
        live = asyncio.run(_speak_once_then_idle(server.ws_url, game_id, credential))
        server.wait_over(game_id)
        session = server.manager.get(game_id)
        assert session is not None and "stand-in" in session.marks

        own = [line for line in live if line.get("speech") == OWN_WORDS]
        assert len(own) == 1 and "(stand-in)" not in own[0]["text"]
        assert own[0]["speaker"].endswith("P1")
        tagged = [line["text"] for line in live if "P1 (stand-in)" in line["text"]]
        assert tagged, "no line of the stand-in was tagged on the page"
        assert not any("(stand-in)" in t and "P1 (stand-in)" not in t for t in tagged)

        replay = httpx.get(f"{server.url}/api/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
        mine = replay["seats"][0]["lines"]
        assert [line["text"] for line in mine] == [line["text"] for line in live]
        other = [line["text"] for line in replay["seats"][3]["lines"]]
        assert any("P1 (stand-in)" in t for t in other)  # the table sees the tag too
        moderator = [line["text"] for line in replay["moderator"]]
        assert any("P1 (stand-in)" in t for t in moderator)
        assert any(OWN_WORDS in t and "(stand-in)" not in t for t in moderator)
        # only seat 1 had a stand-in: no other seat is ever tagged
        assert all("(stand-in)" not in t or "P1 (stand-in)" in t for t in moderator)
    finally:
        server.close()


def test_an_idle_dictator_player_gets_the_engines_warning_and_no_stand_in(
    tmp_path: Path,
) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0, idle_turns=1))
    try:
        game_id, credential = _start(
            server, variant="dictator", players=12, seed=5, timer_scale=0.02
        )
        live = asyncio.run(
            _speak_once_then_idle(
                server.ws_url, game_id, credential, stop="Inactivity warning", speak=False
            )
        )
        warned = [line["text"] for line in live if "Inactivity warning 1 of 3" in line["text"]]
        assert warned, "the engine's inactivity warning never reached the player"
        session = server.manager.get(game_id)
        assert session is not None
        assert not session.slots[0].was_replaced and session.slots[0].stand_in is None
        assert "stand-in" not in session.marks
        assert session.game is not None
        pairs = zip(session.game.decisions, session.marks, strict=False)  # still running
        mine = [by for d, by in pairs if d["seat"] == 0]
        assert "timeout" in mine
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not session.slots[0].replaced:
            time.sleep(0.1)
        assert not session.slots[0].replaced
    finally:
        server.close()
