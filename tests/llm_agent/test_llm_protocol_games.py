"""One game per discussion protocol and ballot with the bundled model (issue 16 item 6):
random order, bidding for the floor, parallel statements, sequential public ballots and
per-statement vote intentions, each a short 5-player standard game with two LLM seats.
The game ends, every LLM decision was legal or a recorded fallback, the log replays, and
the protocol left its trace in the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.llm_agent.support import TEST_HOST_KEY, assert_replays

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.catalogue import (
    Ballot,
    FloorGranted,
    RandomDraw,
    SpeechMade,
    VoteIntentions,
)
from mafia_arena.llm import load_agent_definition
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.runner.match import play_match

pytestmark = [pytest.mark.llm, pytest.mark.timeout(900)]

AGENT = Path(__file__).resolve().parents[2] / "agents" / "local-smollm2.toml"
LLM_SEATS = (0, 1)


def _floor(log: GameLog) -> bool:
    return any(isinstance(e.fact, FloorGranted) for e in log.events)


def _drawn_order(log: GameLog) -> bool:
    return any(
        isinstance(e.fact, RandomDraw) and "speaking order" in e.fact.purpose for e in log.events
    )


def _parallel(log: GameLog) -> bool:
    """The LLM seats were told everyone speaks at once, and each round's statements are
    published together in seat order."""
    told = [t for t in log.traces if t["kind"] == "speak" and "speaks at once" in t["question"]]
    speeches = [e for e in log.events if isinstance(e.fact, SpeechMade)]
    runs: list[list[int]] = []
    for before, event in zip([None, *speeches], speeches, strict=False):
        if before is None or event.seq != before.seq + 1 or event.day != before.day:
            runs.append([])
        assert isinstance(event.fact, SpeechMade)
        runs[-1].append(event.fact.seat)
    return bool(told) and all(run == sorted(run) for run in runs)


def _ballots(log: GameLog) -> bool:
    return any(isinstance(e.fact, Ballot) for e in log.events)


def _polls(log: GameLog) -> bool:
    polls = [e.fact for e in log.events if isinstance(e.fact, VoteIntentions)]
    return bool(polls) and all(set(LLM_SEATS) & set(p.intents) for p in polls[:1])


PROTOCOLS: dict[str, tuple[dict[str, Any], Any]] = {
    "random order": ({"discussion_order": "random"}, _drawn_order),
    "bidding": ({"discussion_order": "bidding"}, _floor),
    "parallel": ({"discussion_order": "parallel"}, _parallel),
    "sequential ballots": ({"ballot": "sequential"}, _ballots),
    "intentions": ({"vote_intentions": True}, _polls),
}


@pytest.mark.parametrize("name", list(PROTOCOLS))
async def test_a_short_llm_game_per_protocol(name: str, tmp_path: Path) -> None:
    switches, left_its_trace = PROTOCOLS[name]
    overrides = {"discussion_rounds": 1, **switches}
    definition = load_agent_definition(AGENT).model_copy(update={"max_tokens": 40})
    agents: list[Agent] = [
        LLMAgent(definition) if s in LLM_SEATS else make_agent("heuristic") for s in range(5)
    ]
    try:
        result = await play_match(
            load_variant("standard", overrides), agents, 5, overrides, host_key=TEST_HOST_KEY
        )
    finally:
        await aclose_shared_clients()
    log = assert_replays(result.log, tmp_path)
    assert result.winner is not None
    assert left_its_trace(log), name
    mine = [d for d in log.decisions if d["seat"] in LLM_SEATS]
    assert mine and sum(a.stats.decisions for a in agents[:2]) == len(mine)
    assert all(str(d["fallback"]).startswith("llm:") for d in mine if d.get("fallback"))
    kinds = {d["kind"] for d in mine}
    if name == "bidding":
        assert "bid" in kinds
    if name == "intentions":
        assert "vote_intent" in kinds
    assert log.meta["void"] is False
