"""LLM bots in a web game are recorded as in tournaments: a fallback an LLM player
reports is the engine's default with its reason, the log's meta and the results record
carry the fallback record and the void verdict, the traces are stored beside the log,
and the replay shows them only after the game, on the replay page too, with the parts
of replies that were not used marked as such.

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
from playwright.sync_api import expect
from tests.host_key import FIXED_HOST_KEY
from tests.llm.fake_openai import Action, FakeOpenAI, error, reply
from tests.llm_agent.support import auto_fake_with_fresh_breakers, enum_of, set_answer
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot
from tests.web.test_replay_mismatch import stored_game

from mafia_arena.agents.llm_trace import decision_trace
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.llm.accounting import attribution
from mafia_arena.results_file import read_records
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog, traces_path
from mafia_arena.runner.traces import trace_lines

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
            during.append(
                httpx.get(
                    f"{live.url}/api/games/{game_id}/replay", timeout=HTTP_TIMEOUT
                ).status_code
            )
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
        replay = httpx.get(f"{live.url}/api/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
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
    # the log names the model that played its bot seats, as a tournament's log does
    assert log.meta["cards"]["web-llm"]["model"] == "fake-model"
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


UNUSED = "answer 1 content (beside a tool call): I would vote P3, but let me think"


@pytest.mark.browser
def test_the_replay_page_shows_the_parts_of_replies_that_were_not_used(
    browser: Any, server: LiveServer
) -> None:
    """A trace's ``dropped`` lines (what a model wrote that was not used, as content
    beside a tool call) are shown in the host view of the replay page, each under "not
    used" and set apart from the answers, as the terminal replay writes them."""
    log = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 3, host_key=FIXED_HOST_KEY
    ).log
    decided = next(e for e in log.events if isinstance(e.fact, DecisionRecord) and not e.fact.host)
    assert isinstance(decided.fact, DecisionRecord)
    log.traces = [
        decision_trace(
            seat=decided.fact.seat,
            seq=decided.seq - 1,
            day=decided.day,
            kind=decided.fact.kind,
            call="choose",
            template="vote",
            versions={},
            sent=[],
            question="Whom do you vote for?",
            full_prompt=False,
            stats=None,
            fallback=None,
            answers=['{"choice": "P3"}'],
            choice="P3",
            dropped=[UNUSED],
        )
    ]
    assert f"not used: {UNUSED}" in "\n".join(trace_lines(log.traces[0]))  # the terminal's
    log.save(server.manager.settings.logs_dir / "unused.jsonl")  # the traces beside it
    stored_game(server, "unused", log)

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/replay/unused")
        page.locator("#past-seat").select_option("traces")
        trace = page.locator("#past-lines li.trace")
        expect(trace).to_have_count(1)
        unused = trace.locator("dd.dropped")
        expect(unused).to_have_text(UNUSED)
        expect(trace.locator("dt.dropped")).to_have_text("not used")
        # set apart from the answer the bot gave
        expect(trace.locator("dd:not(.dropped)", has_text="P3").first).to_be_visible()
        styles = page.evaluate(
            "[...document.querySelectorAll('#past-lines li.trace dd')]"
            ".map((dd) => getComputedStyle(dd).fontStyle)"
        )
        assert styles.count("italic") == 1
    finally:
        context.close()
