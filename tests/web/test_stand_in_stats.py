"""A stand-in's re-asks and retries count in its seat's reliability rates.

The rates (`metrics.reliability`) divide a seat's re-asks and retries by every decision
the seat made, the stand-in's included; the counts came from the person's agent alone,
so an LLM stand-in's re-asks were missing from them. The stand-in here is an LLM player
talking to the scripted OpenAI-compatible server of the LLM tests (a real HTTP server
on loopback) that answers every fourth choice with words that are not a choice."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.llm.fake_openai import Action, FakeOpenAI, reply
from tests.llm_agent.support import auto_fake_with_fresh_breakers, enum_of, set_answer
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer
from tests.web.test_llm_bots import agent_file

from mafia_arena.metrics import compute_metrics
from mafia_arena.results_file import read_records
from mafia_arena.runner.log import GameLog

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    yield from auto_fake_with_fresh_breakers()


async def connect_once(ws_url: str, game_id: str, credential: str) -> None:
    """Open the seat's page until the game has started, then leave for good."""
    async with websockets.connect(
        f"{ws_url}/ws/{game_id}", max_size=2**24, open_timeout=HTTP_TIMEOUT
    ) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        async with asyncio.timeout(HTTP_TIMEOUT):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "state" and message.get("started", True):
                    return


def test_an_llm_stand_ins_reasks_count_in_its_seats_rate(fake: FakeOpenAI, tmp_path: Path) -> None:
    agent = str(agent_file(tmp_path, fake.base_url))
    asked = {"choices": 0}

    def answer(body: dict[str, Any]) -> Action | None:
        options = enum_of(body)
        if options is None:
            return None
        asked["choices"] += 1
        if asked["choices"] % 4 == 1:  # a re-ask follows
            return reply("no idea, honestly")
        return reply(json.dumps({"reason": "r", "choice": options[0]}))

    set_answer(fake, answer)
    live = LiveServer(settings_for(tmp_path, grace=0.2, allowed_agents=(agent, "random")))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        seats = [{"kind": "human"}] + [{"kind": "bot", "agent": "random"}] * 6
        created = live.create(variant="standard", players=7, seed=3, seats=seats, replacement=agent)
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"], "Away")
        asyncio.run(connect_once(live.ws_url, game_id, joined["credential"]))
        live.wait_over(game_id)
        session = live.manager.get(game_id)
        assert session is not None
        stand_in = session.slots[0].stand_in
        assert stand_in is not None and stand_in.stats.reasks > 0
    finally:
        live.close()

    (record,) = read_records(tmp_path / "results" / "games.jsonl")
    log = GameLog.load(record["log"])
    assert "stand-in" in log.meta["decided_by"]
    assert log.meta["agent_stats"][0]["reasks"] == stand_in.stats.reasks
    decisions = sum(d["seat"] == 0 for d in log.decisions)
    rate = compute_metrics(log)["per_seat"]["0"]["reask_rate"]
    assert rate == pytest.approx(stand_in.stats.reasks / decisions)
