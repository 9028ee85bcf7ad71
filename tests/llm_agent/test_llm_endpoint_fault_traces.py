"""What an LLM player's traces and the game record say about endpoint failures: an
HTTP 200 that is an error voids the game, the endpoint's reason reaches the trace, the
trace holds the exact messages sent, a decision the game's time limit cut off is
traced and counted, and `play` says so on stderr when an endpoint is down."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.llm.fake_openai import (
    CONTEXT_TOO_LONG,
    Action,
    FakeOpenAI,
    error_body_200,
    free_port,
    reply,
    slow,
)
from tests.llm_agent.support import enum_of, first_view, play, set_answer
from typer.testing import CliRunner

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.cli import app
from mafia_arena.llm import AgentDefinition
from mafia_arena.runner.log import GameLog, traces_path

LLM_SEATS = range(3)
ILLEGAL = '{"reason": "because", "choice": "kill P99"}'


def seats(definition: AgentDefinition, llm: range = LLM_SEATS) -> list[Agent]:
    return [LLMAgent(definition) if s in llm else make_agent("heuristic") for s in range(7)]


def sha256_of(messages: list[dict[str, Any]]) -> str:
    data = json.dumps(messages, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def llm_fallbacks(log: GameLog, llm: range = LLM_SEATS) -> list[str]:
    return [d["fallback"] for d in log.decisions if d["seat"] in llm and d.get("fallback")]


async def test_an_error_body_with_status_200_voids_the_game_with_its_reason(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """A quota error sent as HTTP 200 is the endpoint's failure, never the model's
    empty answer: the game is void and each trace says what the endpoint said."""
    set_answer(fake, lambda body: error_body_200("quota exceeded"))
    result = await play(seats(fake_definition), seed=5)
    kinds = set(llm_fallbacks(result.log))
    assert "llm:endpoint_error" in kinds
    assert kinds <= {"llm:endpoint_error", "llm:circuit_open"}
    assert result.log.meta["void"] is True and result.log.meta["fallbacks"]["model"] == 0
    failed = [t for t in result.log.traces if t["fallback"] == "endpoint_error"]
    assert failed and all("quota exceeded" in t["reason"] for t in failed)
    assert all(t["attribution"] == "infrastructure" for t in failed)
    assert all(t["tokens_in"] == t["usage_estimated"] == 0 for t in failed)


async def test_a_bad_request_keeps_the_endpoints_reason_in_the_trace(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    body = CONTEXT_TOO_LONG
    view = first_view("vote")
    fake.script(Action(status=400, body=body))
    agent = LLMAgent(fake_definition)
    agent.reset(view.seat, 7)
    try:
        await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert agent.take_fallback() == "llm:bad_request"
    (trace,) = agent.traces
    assert trace["reason"].startswith("HTTP 400 context_length_exceeded: This model's maximum")


async def test_a_redirect_to_a_get_is_named_in_the_trace_and_voids_the_game(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """An endpoint that moved (here a 301 for every request): each decision falls back
    at once, charged to the infrastructure, and its trace says where the endpoint
    points instead of blaming the body of the page the redirect led to."""
    set_answer(fake, lambda body: Action(status=301, headers={"Location": "/v2/chat"}))
    agents = seats(fake_definition)
    result = await play(agents, seed=5)
    assert result.winner is not None and result.log.meta["void"] is True
    kinds = set(llm_fallbacks(result.log))
    assert "llm:bad_request" in kinds and kinds <= {"llm:bad_request", "llm:budget_spent"}
    failed = [t for t in result.log.traces if t["fallback"] == "bad_request"]
    assert failed and all(t["attribution"] == "infrastructure" for t in failed)
    assert all(t["requests"] == 1 and t["retries"] == 0 for t in failed)
    assert all(
        t["reason"].startswith(f"HTTP 301 redirect to http://127.0.0.1:{fake.port}/v2/chat")
        for t in failed
    )


async def test_the_trace_holds_and_hashes_the_exact_messages_sent(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """With the answer-format instruction `choose` appends and the re-ask turns."""
    view = first_view("vote")
    fake.script(reply(ILLEGAL))  # one illegal answer, then the automatic legal one
    agent = LLMAgent(fake_definition.model_copy(update={"trace_prompts": "full"}))
    agent.reset(view.seat, 7)
    try:
        await agent.act(view)
    finally:
        await aclose_shared_clients()
    first, second = (request["messages"] for request in fake.requests)
    (trace,) = agent.traces
    assert trace["reasks"] == 1 and trace["fallback"] is None
    assert trace["prompt_hash"] == sha256_of(first)
    assert trace["sent_hashes"] == [sha256_of(first), sha256_of(second)]
    assert trace["messages"] == second  # the last request, every earlier one its start
    assert '"choice"' in first[-1]["content"]  # the answer instruction was sent


async def test_a_decision_cut_off_by_the_games_time_limit_is_traced_and_counted(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    """The runner's `decision_timeout` cancels the seat's first choice while the model
    is still thinking: the decision is traced (reason, seconds spent, the request it
    sent), counted as an infrastructure fallback, and the traces file is written.
    Which other calls the limit cuts off depends on the machine's load, so the test
    reads the first choice cut off, the hung one, and counts whatever was cut."""
    hung: list[int] = []

    def answer(body: dict[str, Any]) -> Action | None:
        if enum_of(body) is not None and not hung:
            hung.append(1)
            return slow(30.0)
        return None

    set_answer(fake, answer)
    agents = seats(fake_definition, range(1))
    result = await play(agents, seed=4, decision_timeout=1.5)
    log = result.log
    assert "timeout" in llm_fallbacks(log, range(1))
    cut = next(t for t in log.traces if t["fallback"] == "timeout" and t["call"] == "choose")
    assert cut["seat"] == 0 and cut["requests"] == 1
    assert "time limit" in cut["reason"] and cut["latency_s"] > 0
    assert cut["attribution"] == "infrastructure" and cut["prompt_hash"] is not None
    traced = sorted(t["fallback"] for t in log.traces if t["fallback"])
    assert traced == sorted(f.removeprefix("llm:") for f in llm_fallbacks(log, range(1)))
    stats = agents[0].stats
    assert stats.extra.get("fallbacks_infrastructure") == stats.fallbacks == len(traced)
    path = log.save(tmp_path / "game.jsonl")
    assert any(
        json.loads(line)["fallback"] == "timeout"
        for line in traces_path(path).read_text(encoding="utf-8").splitlines()
    )


def test_play_against_a_dead_endpoint_warns_on_stderr(tmp_path: Path) -> None:
    """Nothing listens at the agent's endpoint: the game still ends (exit code 0), and
    one stderr line names the agent, its endpoint and the fault kinds with counts."""
    agent_file = tmp_path / "dead-llm.toml"
    agent_file.write_text(
        f'name = "dead-llm"\nbase_url = "http://127.0.0.1:{free_port()}/v1"\n'
        'model = "fake-model"\nmax_tokens = 32\ntimeout_s = 5.0\nmax_retries = 1\n'
        "retry_backoff_s = 0.01\nretry_backoff_max_s = 0.02\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app,
        ["play", "--agents", f"{agent_file},heuristic", "--seed", "3"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.stderr
    (line,) = warnings
    assert "'dead-llm'" in line and "openai:127.0.0.1" in line and "llm:connection x" in line
    assert "warning:" not in result.stdout
