"""Endpoint failures the client must name for what they are: an HTTP 200 that carries
an error or no choices, a body that is not JSON, an HTTP error with the endpoint's
reason, a timeout that the breaker opened on; and the exact messages every request sent.

All against the scripted endpoint of :mod:`tests.llm.fake_openai` (a real HTTP server).
"""

from __future__ import annotations

import hashlib
import json

import pytest
from tests.llm.fake_openai import (
    CONTEXT_TOO_LONG,
    Action,
    FakeOpenAI,
    error_body_200,
    fake_agent_definition,
    free_port,
    no_choices,
    reply,
    slow,
    text_body,
)
from tests.llm.test_llm_reasoning_and_breaker import MESSAGES, OPTIONS

from mafia_arena.llm import AgentDefinition, ChatClient
from mafia_arena.llm.accounting import attribution
from mafia_arena.llm.breaker import endpoint_breaker

SECRET = "sk-test-0123456789abcdefSECRET"


def answer(choice: str) -> str:
    return json.dumps({"reason": "quiet", "choice": choice})


def canonical_sha256(messages: object) -> str:
    """The trace's prompt hash, computed here from what the server received."""
    return hashlib.sha256(
        json.dumps(messages, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()


# ---------------------------------------------------------------------- HTTP 200, no answer


async def test_error_body_with_status_200_is_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """A proxy's quota error sent as a 200 is not the model's empty answer: no model
    answered, so it is the endpoint's fault and no tokens are estimated as billed."""
    fake_openai.script(*(error_body_200("quota exceeded") for _ in range(3)))
    client = ChatClient(fake_definition)
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.fallback and result.error_kind == "endpoint_error"
    assert attribution(result.error_kind) == "infrastructure"
    assert "quota exceeded" in result.failure and "insufficient_quota" in result.failure
    assert result.stats.requests == 3 and result.stats.reasks == 0  # retried, not re-asked
    assert result.stats.usage_estimated == 0 and result.stats.total_tokens == 0
    assert client.usage.errors == {"endpoint_error": 1}


async def test_empty_choices_with_status_200_is_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(no_choices(), no_choices(), no_choices())
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.fallback and result.error_kind == "endpoint_error"
    assert "choices" in result.failure
    assert result.stats.usage_estimated == 0 and result.stats.total_tokens == 0


async def test_endpoint_error_then_answer_is_retried(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(error_body_200("overloaded"), reply(answer("Bob")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Bob" and not result.fallback and result.failure == ""
    assert result.stats.retries == 1


async def test_plain_text_body_is_an_endpoint_fault_and_retried(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """A text/plain page in a 200 is neither an answer nor a bug of ours."""
    fake_openai.script(text_body(), reply(answer("Carol")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Carol" and result.stats.retries == 1

    fake_openai.script(text_body(), text_body(), text_body())
    failed = await ChatClient(fake_definition).complete(MESSAGES)
    assert failed.fallback and failed.error_kind == "server_error"
    assert "not JSON" in failed.failure and "GARBAGE" in failed.failure


async def test_a_202_or_204_without_an_answer_is_named_by_its_own_status(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """A success status other than 200 (a queued job's 202, an empty 204) is reported as
    itself: the trace must not claim the endpoint sent a 200."""
    queued = json.dumps({"id": "job-1", "status": "queued"}).encode()
    cases = [
        (Action(status=202, raw_body=queued), "endpoint_error", "HTTP 202 body without choices"),
        (Action(status=202, raw_body=b"queued"), "server_error", "HTTP 202 body is not JSON"),
        (Action(status=204, raw_body=b""), "server_error", "HTTP 204 body is not JSON"),
    ]
    for action, kind, reason in cases:
        fake_openai.script(action)
        result = await ChatClient(fake_definition.model_copy(update={"max_retries": 0})).choose(
            MESSAGES, OPTIONS, "vote"
        )
        assert result.fallback and result.error_kind == kind
        assert result.failure.startswith(reason) and "HTTP 200" not in result.failure


# ---------------------------------------------------------------------- the reason kept


async def test_bad_request_keeps_the_endpoints_code_and_message(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    body = CONTEXT_TOO_LONG
    fake_openai.script(Action(status=400, body=body))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.error_kind == "bad_request"
    assert result.failure.startswith("HTTP 400 context_length_exceeded: ")
    assert "maximum context length is 10 tokens" in result.failure


async def test_a_path_the_server_does_not_serve_names_the_url_asked(
    fake_openai: FakeOpenAI,
) -> None:
    """A ``base_url`` without its ``/v1`` reaches a server that does not serve the path:
    vLLM and llama-cpp-python answer FastAPI's ``{"detail": "Not Found"}``. The reason
    says so and names the URL asked, without the user name and password the base URL
    carried; it used to read ``HTTP 404 Error code: 404``, which says neither."""
    root = f"http://127.0.0.1:{fake_openai.port}"
    definition = fake_agent_definition(f"http://me:hunter2@127.0.0.1:{fake_openai.port}")
    fake_openai.script(Action(status=404, body={"detail": "Not Found"}))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.fallback and result.error_kind == "bad_request"
    assert result.failure == f"HTTP 404 Not Found (at {root}/chat/completions)"
    assert "hunter2" not in result.failure and result.stats.requests == 1


async def test_a_model_the_server_does_not_know_is_said_with_the_url(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """vLLM's answer to a model name it does not serve: its message is kept, and the URL
    (with ``/v1``) tells it apart from a wrong path."""
    body = {"error": {"message": "The model `gpt-x` does not exist.", "code": 404}}
    fake_openai.script(Action(status=404, body=body))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.error_kind == "bad_request"
    assert result.failure == (
        f"HTTP 404 The model `gpt-x` does not exist. (at {fake_openai.base_url}/chat/completions)"
    )


async def test_a_connection_failure_says_its_cause() -> None:
    """Nothing listens on the port: the reason keeps the cause the openai package wraps
    in its bare ``Connection error.`` (a refused port, a host name that does not resolve
    and a TLS failure each have their own fix)."""
    definition = fake_agent_definition(f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    result = await ChatClient(definition).complete(MESSAGES)
    assert result.error_kind == "connection"
    assert result.failure.startswith("APIConnectionError: Connection error. (ConnectError: ")
    assert result.failure.endswith(")") and len(result.failure) > 60


@pytest.mark.parametrize("backend", ["openai", "langchain"])
async def test_a_body_cut_mid_way_says_its_cause_with_either_backend(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str
) -> None:
    """ChatOpenAI wraps the openai package's ``Connection error.`` in one of its own;
    the reason still reaches the cause the two wrap (the server closed the connection
    before the whole body came), as it does with the openai backend."""
    definition = fake_definition.model_copy(update={"backend": backend, "max_retries": 0})
    fake_openai.script(Action(text=answer("Bob"), cut_after=20))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "connection"
    assert "(RemoteProtocolError: peer closed connection" in result.failure


async def test_reason_is_short_and_masks_the_key(
    fake_openai: FakeOpenAI, fake_definition, monkeypatch
) -> None:
    """An endpoint that echoes the key and writes a novel leaves neither in the reason."""
    monkeypatch.setenv("FAKE_ENDPOINT_KEY", SECRET)
    definition = fake_definition.model_copy(update={"api_key_env": "FAKE_ENDPOINT_KEY"})
    message = f"Incorrect API key provided: {SECRET}. Authorization: Bearer {SECRET} " + "x" * 500
    fake_openai.script(Action(status=401, body={"error": {"message": message, "type": "auth"}}))
    result = await ChatClient(definition).complete(MESSAGES)
    assert result.error_kind == "auth" and result.failure.startswith("HTTP 401 auth: ")
    assert SECRET not in result.failure and "0123456789" not in result.failure
    assert len(result.failure) <= 200


async def test_exhausted_reasks_say_what_was_wrong(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(*(reply(answer("Mallory")) for _ in range(3)))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.error_kind == "invalid_answer" and "Mallory" in result.failure


# ---------------------------------------------------------------------- breaker


async def test_timeout_stays_a_timeout_when_it_opens_the_breaker(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """The call's one request timed out, and that failure opened the breaker: the
    call ended in a timeout, not in a refusal it never met."""
    definition = fake_definition.model_copy(update={"timeout_s": 0.5, "breaker_failures": 1})
    fake_openai.script(slow(5.0))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.error_kind == "timeout"
    assert result.stats.requests == 1 and result.stats.retries == 0  # no retry was sent
    breaker = endpoint_breaker(definition.base_url, 1, definition.breaker_cooldown_s)
    assert breaker.is_open

    refused = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert refused.error_kind == "circuit_open" and refused.stats.requests == 0
    assert refused.sent == () and "breaker" in refused.failure


# ---------------------------------------------------------------------- what was sent


async def test_sent_holds_the_exact_messages_of_every_ask(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """The instruction `choose` appends and the re-ask turns are part of what was sent."""
    fake_openai.script(reply(answer("Mallory")), error_body_200("blip"), reply(answer("Alice")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice" and result.stats.reasks == 1 and result.stats.retries == 1
    received = [request["messages"] for request in fake_openai.requests]
    assert received[1] == received[2]  # a retry resends the same messages
    assert [list(messages) for messages in result.sent] == [received[0], received[2]]
    assert received[0][-1]["content"] != MESSAGES[-1]["content"]  # the instruction
    assert received[2][: len(received[0])] == received[0]  # a re-ask extends the prompt
    assert canonical_sha256(received[0]) == canonical_sha256([dict(m) for m in result.sent[0]])
