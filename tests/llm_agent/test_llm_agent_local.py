"""LLM players backed by the real bundled model (SmolLM2-135M) on a real llama.cpp server.

No test doubles: a mixed 7-player game, the same agent file pointed at a second,
separately started server, and that server killed in the middle of a game. Each test
prints its timings (run with ``-s`` to see them).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from tests.llm_agent.support import assert_replays, first_view, play

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.choices import Speech
from mafia_arena.llm import AgentDefinition, load_agent_definition
from mafia_arena.llm.local_server import (
    SMOLLM2_MODEL_NAME,
    LocalServer,
    find_smollm2_gguf,
    start_local_server,
)
from mafia_arena.runner.log import GameLog

pytestmark = [pytest.mark.llm, pytest.mark.timeout(900)]

AGENT = Path(__file__).resolve().parents[2] / "agents" / "local-smollm2.toml"


def short_turns(definition: AgentDefinition, **changes: Any) -> AgentDefinition:
    """The agent file as is, with short answers (a test, not a tournament)."""
    return definition.model_copy(update={"max_tokens": 48, **changes})


def llm_seats(definition: AgentDefinition) -> list[Agent]:
    return [LLMAgent(definition) if s < 3 else make_agent("heuristic") for s in range(7)]


def check_llm_decisions(log: GameLog, agents: list[Agent]) -> tuple[int, int]:
    """Every LLM decision was legal (the replay re-validates each one) or a recorded
    fallback; the agents' counters agree with the log. Returns (decisions, fallbacks)."""
    mine = [d for d in log.decisions if d["seat"] < 3]
    fallbacks = [d for d in mine if d.get("fallback")]
    assert all(str(d["fallback"]).startswith("llm:") for d in fallbacks)
    assert sum(a.stats.decisions for a in agents[:3]) == len(mine)
    assert sum(a.stats.fallbacks for a in agents[:3]) == len(fallbacks)
    return len(mine), len(fallbacks)


def report(label: str, agents: list[Agent], wall_s: float, decisions: int, fallbacks: int) -> None:
    calls_s = sum(a.stats.latency_s for a in agents[:3])
    tokens = sum(a.stats.tokens_in + a.stats.tokens_out for a in agents[:3])
    print(
        f"\n{label}: wall {wall_s:.1f}s, {decisions} LLM decisions "
        f"({calls_s / max(1, decisions):.2f}s each on average), {fallbacks} fallbacks, "
        f"{tokens} tokens"
    )


async def test_mixed_game_with_the_bundled_model(local_server: LocalServer, tmp_path: Path) -> None:
    definition = short_turns(load_agent_definition(AGENT))
    agents = llm_seats(definition)
    started = time.monotonic()
    result = await play(agents, seed=5)
    wall = time.monotonic() - started
    log = assert_replays(result.log, tmp_path)
    assert log.result is not None
    decisions, fallbacks = check_llm_decisions(log, agents)
    report("mixed game", agents, wall, decisions, fallbacks)
    mine = [d for d in log.decisions if d["seat"] < 3 and not d.get("fallback")]
    assert any("text" in d for d in mine), "the model never spoke"
    assert any("choice" in d for d in mine), "the model never chose"
    assert all(a.stats.tokens_in > 0 for a in agents[:3] if a.stats.decisions)
    assert log.meta["agent_kinds"] == ["llm"] * 3 + ["scripted"] * 4
    # the log names the build that played: the server's and weights' versions, the GGUF
    local = log.meta["cards"][definition.name]["local_model"]
    assert local["gguf_sha256"] == hashlib.sha256(find_smollm2_gguf().read_bytes()).hexdigest()
    assert local["llama-cpp-python"] == importlib.metadata.version("llama-cpp-python")


async def test_second_server_needs_no_code_change_and_its_death_is_survived(
    local_server: LocalServer, tmp_path: Path
) -> None:
    # one thread: this server shares the CPUs with the session's server and the game
    second = await asyncio.to_thread(start_local_server, n_threads=1)
    try:
        assert second.port != local_server.port
        definition = short_turns(
            load_agent_definition(AGENT),
            name="second-server",
            base_url=second.base_url,
            model=SMOLLM2_MODEL_NAME,
            max_retries=1,
            retry_backoff_s=0.01,
        )
        # agent level: the same agent file, another URL
        agent = LLMAgent(definition)
        vote, speak = first_view("vote"), first_view("speak")
        agent.reset(vote.seat, 1)
        chosen = await agent.act(vote)
        assert vote.request is not None and chosen in vote.request.choices
        assert agent.take_fallback() is None
        agent.reset(speak.seat, 1)
        said = await agent.act(speak)
        assert isinstance(said, Speech) or agent.take_fallback() is not None
        await aclose_shared_clients()

        # a game whose LLM seats lose their server when the first day starts
        agents = llm_seats(definition)
        killed: list[int] = []

        def kill_at_dawn(event: Any) -> None:
            if not killed and event.kind == "phase" and event.fact.to_payload()["phase"] == "day":
                assert second.pid is not None
                os.kill(second.pid, signal.SIGKILL)
                killed.append(event.seq)

        started = time.monotonic()
        result = await play(agents, seed=5, on_event=kill_at_dawn)
        wall = time.monotonic() - started
    finally:
        second.stop()
    assert killed and local_server.running
    log = assert_replays(result.log, tmp_path)
    decisions, fallbacks = check_llm_decisions(log, agents)
    report("server killed at dawn", agents, wall, decisions, fallbacks)
    after = [
        e.fact.to_payload()
        for e in log.events
        if e.kind == "decision" and e.seq > killed[0] and e.fact.to_payload()["seat"] < 3
    ]
    asked = [d for d in after if "text" in d or d.get("fallback")]
    # connection errors until the endpoint's breaker opens, then refused at once
    assert asked and asked[0].get("fallback") == "llm:connection"
    assert {d.get("fallback") for d in asked} <= {"llm:connection", "llm:circuit_open"}
