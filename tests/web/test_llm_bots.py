"""LLM bots in a web game are recorded as in tournaments: a fallback an LLM player
reports is the engine's default with its reason, the log's meta and the results record
carry the fallback record and the void verdict, the traces are stored beside the log,
and the replay shows them only after the game.

The LLM bots talk to the scripted OpenAI-compatible server of the LLM tests (a real
HTTP server on loopback) that fails some requests (503s: the endpoint's fault) and
answers some choices with garbage (the model's fault)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.llm.fake_openai import Action, FakeOpenAI, error, reply
from tests.llm_agent.support import auto_fake_with_fresh_breakers, enum_of, set_answer
from tests.web.conftest import settings_for
from tests.web.support import LiveServer, autopilot

from mafia_arena.llm.accounting import attribution
from mafia_arena.results_file import read_records
from mafia_arena.runner.log import GameLog, traces_path

pytestmark = pytest.mark.timeout(240)

LLM_SEATS = (1, 2, 3)
MARK = "a reason only the host may read"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    yield from auto_fake_with_fresh_breakers()


def agent_file(folder: Path, base_url: str) -> Path:
    path = folder / "web-llm.toml"
    path.write_text(
        'name = "web-llm"\nbackend = "openai"\n'
        f'base_url = "{base_url}"\nmodel = "fake-model"\n'
        "max_tokens = 32\ntimeout_s = 60.0\nmax_retries = 1\nretry_backoff_s = 0.01\n"
        "retry_backoff_max_s = 0.02\nmax_reasks = 1\nbreaker_failures = 1000\n"
    )
    return path


def test_llm_bots_fallbacks_verdict_and_traces_are_stored_and_replayed_after_the_game(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    agent = str(agent_file(tmp_path, fake.base_url))
    live = LiveServer(settings_for(tmp_path, allowed_agents=(agent, "heuristic")))
    live.manager.host_key = FIXED_HOST_KEY
    game_id = ""
    seen: dict[str, int] = {"requests": 0, "choices": 0}
    during: list[int] = []

    def answer(body: dict[str, Any]) -> Action | None:
        seen["requests"] += 1
        if seen["requests"] == 6:  # mid-game, a decision trace already kept
            during.append(httpx.get(f"{live.url}/api/games/{game_id}/replay").status_code)
        if seen["requests"] % 9 in (1, 2):  # a first try and its retry: the endpoint's
            return error(503, "upstream gone")
        options = enum_of(body)
        if options is None:
            return None
        seen["choices"] += 1
        if seen["choices"] % 5 in (3, 4):  # an answer and its re-ask: the model's
            return reply("no idea, honestly")
        return reply(json.dumps({"reason": MARK, "choice": options[0]}))

    set_answer(fake, answer)
    try:
        seats = [{"kind": "human"}] + [
            {"kind": "bot", "agent": agent if s in LLM_SEATS else "heuristic"} for s in range(1, 7)
        ]
        created = live.create(variant="standard", players=7, seed=5, seats=seats)
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"], "Alice")
        played = asyncio.run(autopilot(live.ws_url, game_id, joined["credential"], 0, 3))
        game = live.wait_over(game_id)
        replay = httpx.get(f"{live.url}/api/games/{game_id}/replay").json()
    finally:
        live.close()

    assert during == [409]  # no replay, so no trace, while the game is live
    assert not any(MARK in raw for raw in played.raw)  # never pushed to a page

    (record,) = read_records(tmp_path / "results" / "games.jsonl")
    log = GameLog.load(record["log"])
    assert [e.to_json() for e in log.events] == [e.to_json() for e in game.events]
    llm_fallbacks = [
        d["fallback"] for d in log.decisions if d["seat"] in LLM_SEATS and d.get("fallback")
    ]
    blames = {attribution(reason) for reason in llm_fallbacks}
    assert blames == {"infrastructure", "model"}, llm_fallbacks
    assert all(reason.startswith("llm:") for reason in llm_fallbacks)

    fallbacks = log.meta["fallbacks"]
    assert fallbacks["by_seat"].keys() == {str(s) for s in range(1, 7)}  # bots only
    for seat in LLM_SEATS:
        mine = [d["fallback"] for d in log.decisions if d["seat"] == seat and d.get("fallback")]
        counted = fallbacks["by_seat"][str(seat)]
        entry = record["seats"][seat]
        for blame in ("infrastructure", "model"):
            expected = sum(attribution(r) == blame for r in mine)
            assert counted[blame] == entry[f"fallbacks_{blame}"] == expected
        assert entry["fallbacks"] == len(mine)
    assert record["fallback_record"] == fallbacks
    assert record["void"] is log.meta["void"]
    assert log.meta["void"] is (log.meta.get("void_reason") is not None)

    # the traces: one per model decision, beside the log, matching its fallbacks
    assert traces_path(Path(record["log"])).is_file()
    traced = sorted(f"llm:{t['fallback']}" for t in log.traces if t["fallback"])
    assert traced == sorted(llm_fallbacks)
    assert {t["seat"] for t in log.traces} <= set(LLM_SEATS)
    assert any(t["reason"] == MARK for t in log.traces)
    seqs = [t["seq"] for t in log.traces]
    assert seqs == sorted(seqs)  # one timeline, the host's

    shown = replay["traces"]
    assert len(shown) == len(log.traces)
    assert any(t["reason"] == MARK and t["agent"] == "web-llm" for t in shown)
    assert {t["decided"].split(":")[0] for t in shown} >= {"fell back"}
