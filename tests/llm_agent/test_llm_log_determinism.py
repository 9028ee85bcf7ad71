"""The same LLM game played twice logs the same bytes, however fast the endpoint answers.

A game log is a function of the variant, seed, host key, seating and decisions; the
measured wall time of the model calls belongs to the decision traces (the sidecar),
never to the log itself, or two plays of one game (a published result played again)
could not be compared byte for byte.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.llm.fake_openai import Action, FakeOpenAI
from tests.llm_agent.support import auto_answer, play, set_answer
from tests.llm_agent.test_llm_agent_fake import seats

from mafia_arena.llm import AgentDefinition

SLOWER_S = 0.005
"""Extra time the endpoint takes per answer in the second play (the answers are the same)."""


def _slower(body: dict[str, Any]) -> Action:
    return dataclasses.replace(auto_answer(body), delay_s=SLOWER_S)


async def test_a_slower_endpoint_gives_the_same_log_bytes(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    first = await play(seats(fake_definition), seed=3)
    set_answer(fake, _slower)
    second = await play(seats(fake_definition), seed=3)

    assert first.log.decisions == second.log.decisions  # the same game, decision for decision
    assert first.log.to_jsonl() == second.log.to_jsonl()
    for stats in first.log.meta["agent_stats"]:
        assert "latency_s" not in stats
    # the measured time is kept where it belongs: each model decision's trace
    called = [t for t in second.log.traces if t["requests"]]
    assert called
    assert all(t["latency_s"] >= SLOWER_S for t in called)
