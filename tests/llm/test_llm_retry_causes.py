"""Every request a call sends beyond its first is counted by its cause.

Against the scripted HTTP endpoint (a real server, faults injected): a retry after a
dropped connection, a timeout, a 5xx, a 429 or an error sent as HTTP 200, and a re-ask
of an answer that names no option or says nothing, each lands in ``retry_causes`` or
``reask_causes`` under its own name, the counts summing to ``retries`` and ``reasks``.
"""

from __future__ import annotations

import json

from tests.llm.fake_openai import FakeOpenAI, drop, error, error_body_200, reply, slow

from mafia_arena.llm import AgentDefinition, ChatClient

OPTIONS = ["Alice", "Bob", "Carol"]
MESSAGES = [
    {"role": "system", "content": "You are a villager."},
    {"role": "user", "content": "Vote to eliminate one player."},
]


def answer(choice: str) -> str:
    return json.dumps({"choice": choice, "reason": "suspicious"})


async def test_each_retry_and_re_ask_of_a_choice_is_counted_by_its_cause(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """Three asks (two re-asks) and five retries: eight requests in all."""
    fake_openai.script(
        drop(),  # ask 1: connection lost, retried
        slow(3.0),  # no answer within 1 s, retried
        reply("Dave, surely"),  # names no option: re-asked
        error(500),  # ask 2: server error, retried
        error(429, **{"Retry-After": "0"}),  # rate limited, retried
        reply(""),  # nothing said: re-asked
        error_body_200("overloaded"),  # ask 3: an error sent as HTTP 200, retried
        reply(answer("Bob")),
    )
    definition = fake_definition.model_copy(update={"timeout_s": 1.0})
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")

    assert result.choice == "Bob" and not result.fallback
    stats = result.stats
    assert (stats.requests, stats.retries, stats.reasks) == (8, 5, 2)
    assert stats.retry_causes == (
        ("connection", 1),
        ("endpoint_error", 1),
        ("rate_limit", 1),
        ("server_error", 1),
        ("timeout", 1),
    )
    assert stats.reask_causes == (("empty_answer", 1), ("invalid_answer", 1))
    assert len(fake_openai.requests) == 8


async def test_a_call_that_falls_back_keeps_the_causes_of_its_retries(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The last failure ends the call (its error kind) and is no retry."""
    fake_openai.script(error(502), drop(), error(503))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.fallback and result.error_kind == "server_error"
    assert result.stats.retries == 2
    assert result.stats.retry_causes == (("connection", 1), ("server_error", 1))
    assert result.stats.reask_causes == ()


async def test_empty_speech_re_asks_are_counted_as_empty_answers(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(reply(""), reply("   "), reply("I trust Bob."))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.text == "I trust Bob."
    assert result.stats.reask_causes == (("empty_answer", 2),)
    assert result.stats.retry_causes == ()


async def test_the_switch_to_llama_cpps_dialect_is_its_own_cause(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The request sent again as ``json_object`` after the endpoint refused
    ``json_schema`` is not a server error of the endpoint."""
    rejection = error(500, "validation error: body.response_format.type: 'text' or 'json_object'")
    fake_openai.script(rejection, reply(answer("Carol")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Carol"
    assert result.stats.retry_causes == (("response_format", 1),)
