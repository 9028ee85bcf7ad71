"""Whole games against the scripted HTTP endpoint with one fault each: the game ends,
every fallback carries its kind and who is to blame, tokens match what the server
reported, decision traces match the log, and an outage game is marked void."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.llm.fake_openai import (
    Action,
    FakeOpenAI,
    drop,
    error,
    garbage_body,
    no_usage,
    reply,
    slow,
    thinking,
)
from tests.llm_agent.support import assert_replays, enum_of, play, set_answer

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.llm import AgentDefinition
from mafia_arena.llm.accounting import attribution
from mafia_arena.runner.log import GameLog

LLM_SEATS = range(3)
ILLEGAL = '{"reason": "because", "choice": "kill P99"}'
DEEP = '{"choice": ' + "[" * 3000 + "]" * 3000 + "}"


def seats(definition: AgentDefinition) -> list[Agent]:
    return [LLMAgent(definition) if s in LLM_SEATS else make_agent("heuristic") for s in range(7)]


def every_other_pair(fault: Callable[[], Action]) -> Callable[[dict[str, Any]], Action | None]:
    """The fault on requests 1, 2 of every 5: a first try and its retry can both fail
    (a fallback), and the breaker never sees five failures in a row."""
    count = [0]

    def answer(body: dict[str, Any]) -> Action | None:
        count[0] += 1
        return fault() if count[0] % 5 in (1, 2) else None

    return answer


def on_choices(fault: Callable[[], Action]) -> Callable[[dict[str, Any]], Action | None]:
    return lambda body: fault() if enum_of(body) is not None else None


def llm_fallbacks(log: GameLog) -> list[str]:
    return [d["fallback"] for d in log.decisions if d["seat"] in LLM_SEATS and d.get("fallback")]


TRANSPORT_FAULTS = {
    "connection loss": (drop, {"llm:connection"}),
    "hang": (lambda: slow(3.0), {"llm:timeout"}),
    "HTTP 500": (lambda: error(500), {"llm:server_error"}),
    "HTTP 429 with Retry-After": (lambda: error(429, **{"Retry-After": "0"}), {"llm:rate_limit"}),
    "body not JSON": (garbage_body, {"llm:server_error"}),
}
MODEL_FAULTS = {
    "garbage text": lambda: reply("%%% ??? ### no idea"),
    "illegal target": lambda: reply(ILLEGAL),
    "deeply nested JSON": lambda: reply(DEEP),
}


@pytest.mark.parametrize("name", list(TRANSPORT_FAULTS))
async def test_transport_faults_are_infrastructure_fallbacks(
    name: str, fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    fault, kinds = TRANSPORT_FAULTS[name]
    # a short timeout only where the fault is a hang: elsewhere a slow answer from a busy
    # machine would add timeouts that the fault did not cause
    timeout = 0.3 if name == "hang" else 30.0
    definition = fake_definition.model_copy(update={"timeout_s": timeout})
    set_answer(fake, every_other_pair(fault))
    agents = seats(definition)
    result = await play(agents, seed=3)
    assert result.winner is not None
    log = assert_replays(result.log, tmp_path)
    reasons = llm_fallbacks(log)
    assert reasons, f"{name}: no decision fell back; the fault script missed"
    if kinds is not None:
        assert set(reasons) == kinds
    assert all(attribution(r) == "infrastructure" for r in reasons)
    record = log.meta["fallbacks"]
    assert record["infrastructure"] == len(reasons) and record["model"] == 0
    assert sum(a.stats.retries for a in agents[:3]) > 0
    _assert_accounting(agents, fake, log)


@pytest.mark.parametrize("name", list(MODEL_FAULTS))
async def test_bad_answers_are_model_fallbacks(
    name: str, fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    set_answer(fake, on_choices(MODEL_FAULTS[name]))
    agents = seats(fake_definition)
    result = await play(agents, seed=3)
    log = assert_replays(result.log, tmp_path)
    reasons = llm_fallbacks(log)
    assert reasons and set(reasons) == {"llm:invalid_answer"}
    record = log.meta["fallbacks"]
    assert record["model"] == len(reasons) and record["infrastructure"] == 0
    assert log.meta["void"] is False  # the model's own failures are play, not an outage
    assert sum(a.stats.reasks for a in agents[:3]) == 2 * len(reasons)
    _assert_accounting(agents, fake, log)


#: Speech with its thinking inside the text, in each format a server may leave there.
THINKING_SPEECH = {
    "think tags": "<think>{thought}</think>{speech}",
    "harmony": "<|channel|>analysis<|message|>{thought}<|end|>"
    "<|start|>assistant<|channel|>final<|message|>{speech}<|return|>",
    "magistral": "[THINK]{thought}[/THINK]{speech}",
    "seed": "<seed:think>{thought}</seed:think>{speech}",
}


@pytest.mark.parametrize("form", list(THINKING_SPEECH))
async def test_reasoning_never_reaches_the_table(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path, form: str
) -> None:
    spoken = THINKING_SPEECH[form].format(
        thought="I am the mafioso, I must hide it.", speech="I suspect P5, too quiet."
    )

    def answer(body: dict[str, Any]) -> Action:
        options = enum_of(body)
        if options is not None:
            return thinking(
                "I am the mafioso; blame someone.", f'{{"reason": "r", "choice": "{options[0]}"}}'
            )
        return reply(spoken)

    set_answer(fake, answer)
    agents = seats(fake_definition)
    result = await play(agents, seed=3)
    log = assert_replays(result.log, tmp_path)
    assert not llm_fallbacks(log)
    speeches = [e.fact.to_payload()["text"] for e in log.events if e.kind == "speech"]
    mine = [
        e.fact.to_payload()["text"]
        for e in log.events
        if e.kind == "speech" and e.fact.to_payload()["seat"] < 3
    ]
    assert mine and set(mine) == {"I suspect P5, too quiet."}
    assert not any("mafioso" in s or "think>" in s for s in speeches)
    traces = [t for t in log.traces if t["seat"] in LLM_SEATS]
    assert traces and all("I am the mafioso" in t["reasoning"] for t in traces)
    for request in fake.requests:  # nor does anyone's prompt hold it
        assert "I must hide it" not in str(request["messages"])
    _assert_accounting(agents, fake, log)


async def test_replies_without_usage_are_counted_by_estimate(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    def answer(body: dict[str, Any]) -> Action:
        options = enum_of(body)
        text = f'{{"reason": "r", "choice": "{options[0]}"}}' if options else "I trust P2."
        return no_usage(text)

    set_answer(fake, answer)
    agents = seats(fake_definition)
    result = await play(agents, seed=3)
    log = assert_replays(result.log, tmp_path)
    assert fake.served == []  # the server reported no usage at all
    for agent in agents[:3]:
        assert isinstance(agent, LLMAgent)
        assert agent.stats.tokens_in > 0 and agent.stats.tokens_out > 0 and agent.stats.cost > 0
        assert agent.stats.extra["usage_estimated"] == len(
            [t for t in log.traces if t["seat"] == agent.seat and t["requests"]]
        )
    assert all(t["usage_estimated"] >= 1 for t in log.traces if t["requests"])


async def test_an_outage_game_is_void(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    count = [0]

    def answer(body: dict[str, Any]) -> Action | None:
        count[0] += 1
        return drop() if count[0] > 6 else None  # the endpoint dies early in the game

    set_answer(fake, answer)
    definition = fake_definition.model_copy(update={"breaker_cooldown_s": 3600.0})
    agents = seats(definition)
    result = await play(agents, seed=3)
    log = assert_replays(result.log, tmp_path)
    assert result.winner is not None
    meta = log.meta
    assert meta["void"] is True and "infrastructure" in meta["void_reason"]
    assert meta["fallbacks"]["model"] == 0 and meta["fallbacks"]["infrastructure"] > 0
    assert meta["fallbacks"]["by_kind"]["llm:circuit_open"] > 0
    # once the breaker is open no request is sent (only calls already retrying when it
    # opened had sent some): the outage costs no more timeouts
    refused = [t for t in log.traces if t["fallback"] == "circuit_open"]
    assert refused and any(t["requests"] == 0 for t in refused)
    assert len(fake.requests) < 6 + 2 * definition.breaker_failures


async def test_the_game_failure_budget_stops_calls_to_a_hanging_endpoint(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    set_answer(fake, lambda body: slow(3.0))
    definition = fake_definition.model_copy(
        update={
            "timeout_s": 0.2,
            "max_retries": 0,
            "breaker_failures": 1000,
            "game_failure_budget_s": 0.3,
        }
    )
    agents = seats(definition)
    result = await play(agents, seed=3)
    log = assert_replays(result.log, tmp_path)
    reasons = llm_fallbacks(log)
    assert "llm:budget_spent" in reasons and set(reasons) == {"llm:timeout", "llm:budget_spent"}
    # each seat waits for at most two timeouts; every later decision falls back at once
    assert len(fake.requests) <= 2 * len(LLM_SEATS)
    assert log.meta["void"] is True


def _assert_accounting(agents: list[Agent], fake: FakeOpenAI, log: GameLog) -> None:
    """Tokens match the server's reported usage; one trace per model-asked decision,
    whose fallbacks are exactly the log's."""
    llm = agents[: len(LLM_SEATS)]
    if fake.served:
        assert sum(a.stats.tokens_in for a in llm) == sum(p for p, _ in fake.served)
        assert sum(a.stats.tokens_out for a in llm) == sum(c for _, c in fake.served)
    traced = sorted(f"llm:{t['fallback']}" for t in log.traces if t["fallback"])
    assert traced == sorted(llm_fallbacks(log))
    for trace in log.traces:
        assert trace["attribution"] == (
            attribution(trace["fallback"]) if trace["fallback"] else None
        )
        assert trace["prompt_hash"] is None or len(trace["prompt_hash"]) == 64
