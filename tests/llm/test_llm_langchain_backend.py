"""The LangChain backend behind the same ChatClient interface."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from tests.llm.fake_openai import FakeOpenAI, error, no_choices, reply

from mafia_arena.llm import ChatClient
from mafia_arena.llm.accounting import attribution

OPTIONS = ["Alice", "Bob", "Carol"]
MESSAGES = [{"role": "user", "content": "Vote to eliminate one player."}]


async def test_chat_openai_backend_choose_and_complete(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    definition = fake_definition.model_copy(update={"backend": "langchain"})
    fake_openai.script(
        error(500),
        reply(json.dumps({"choice": "Zed", "reason": "x"})),
        reply(json.dumps({"choice": "Bob", "reason": "x"}), prompt_tokens=50, completion_tokens=8),
        reply("Carol is hiding something."),
    )
    async with ChatClient(definition) as client:
        chosen = await client.choose(MESSAGES, OPTIONS, "vote")
        said = await client.complete(MESSAGES)

    assert chosen.choice == "Bob" and not chosen.fallback
    assert (chosen.stats.retries, chosen.stats.reasks, chosen.stats.requests) == (1, 1, 3)
    assert chosen.stats.prompt_tokens == 11 + 50 and chosen.stats.completion_tokens == 7 + 8
    assert said.text == "Carol is hiding something."
    schema_request = fake_openai.requests[0]
    assert (
        schema_request["response_format"]["json_schema"]["schema"]["properties"]["choice"]["enum"]
        == OPTIONS
    )
    assert client.usage.calls == 2 and client.usage.retries == 1


async def test_chat_openai_backend_llama_dialect_sends_max_tokens(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """llama-cpp-python ignores max_completion_tokens, so max_tokens goes in the body too."""
    definition = fake_definition.model_copy(
        update={"backend": "langchain", "structured_output_format": "json_object"}
    )
    fake_openai.script(reply(json.dumps({"choice": "Alice", "reason": "x"})))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice"
    body = fake_openai.requests[0]
    assert body["max_tokens"] == 32
    assert body["response_format"]["type"] == "json_object"


async def test_langchain_backend_connection_refused_falls_back(fake_definition) -> None:
    from tests.llm.fake_openai import free_port

    definition = fake_definition.model_copy(
        update={"backend": "langchain", "base_url": f"http://127.0.0.1:{free_port()}/v1"}
    )
    result = await ChatClient(definition).complete(MESSAGES)
    assert result.fallback and result.error_kind == "connection" and result.stats.retries == 2


async def test_any_base_chat_model_can_be_plugged_in(fake_definition) -> None:
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content="Hmm, Zed?"), AIMessage(content="OK: carol")])
    )
    client = ChatClient(fake_definition, chat_model=model)
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Carol" and result.stats.reasks == 1 and not result.fallback


async def test_chat_openai_backend_follows_the_reasoning_model_rules(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    definition = fake_definition.model_copy(
        update={
            "backend": "langchain",
            "model": "o4-mini",
            "reasoning_effort": "medium",
            "extra_body": {"service_tier": "flex"},
        }
    )
    fake_openai.script(reply("<think>I am mafia.</think>P2 is lying."))
    async with ChatClient(definition) as client:
        said = await client.complete(MESSAGES)
    assert said.text == "P2 is lying." and said.reasoning == "I am mafia."
    body = fake_openai.requests[0]
    assert "temperature" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 8 * definition.max_tokens
    assert body["reasoning_effort"] == "medium" and body["service_tier"] == "flex"


async def test_chat_openai_backend_empty_choices_is_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """An HTTP 200 whose ``choices`` list is empty is the endpoint's fault with ChatOpenAI
    too (ChatOpenAI itself fails with a bare IndexError): ``endpoint_error``, retried,
    an infrastructure fallback with no tokens estimated, as with the openai transport."""
    definition = fake_definition.model_copy(update={"backend": "langchain"})
    fake_openai.script(no_choices(), no_choices(), no_choices())
    async with ChatClient(definition) as client:
        chosen = await client.choose(MESSAGES, OPTIONS, "vote")  # response_format bound
    assert chosen.fallback and chosen.error_kind == "endpoint_error"
    assert attribution(chosen.error_kind) == "infrastructure"
    assert "choices" in chosen.failure
    assert chosen.stats.requests == 3 and chosen.stats.retries == 2 and chosen.stats.reasks == 0
    assert chosen.stats.usage_estimated == 0 and chosen.stats.total_tokens == 0
    assert client.usage.errors == {"endpoint_error": 1}

    fake_openai.script(no_choices(), reply("P3 is lying."))
    async with ChatClient(definition) as client:
        said = await client.complete(MESSAGES)  # plain text: no response_format
    assert said.text == "P3 is lying." and not said.fallback and said.stats.retries == 1
