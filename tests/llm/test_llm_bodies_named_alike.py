"""Answers the endpoint did send but that are no answer, named alike by both backends.

A body that is not JSON (an empty 204, a proxy's text page) is ``server_error`` with the
openai backend and with the LangChain one, with or without structured output, and its
reason is the same line; a body its ``Content-Encoding`` cannot undo (a broken gzip) is
such a bad answer too, retried as one, and never a lost connection.

All against the scripted endpoint of :mod:`tests.llm.fake_openai` (a real HTTP server).
"""

from __future__ import annotations

import json

import pytest
from tests.llm.fake_openai import Action, FakeOpenAI, broken_gzip, reply, text_body
from tests.llm.test_llm_reasoning_and_breaker import MESSAGES, OPTIONS

from mafia_arena.llm import AgentDefinition, ChatClient
from mafia_arena.llm.breaker import reset_breakers

BACKENDS = ("openai", "langchain")


def answer(choice: str) -> str:
    return json.dumps({"reason": "quiet", "choice": choice})


@pytest.mark.parametrize("structured", [False, True], ids=["plain", "structured output"])
@pytest.mark.parametrize(
    ("broken", "reason"),
    [
        pytest.param(Action(status=204, raw_body=b""), "HTTP 204 body is not JSON: ''", id="204"),
        pytest.param(
            text_body("<html>upstream gone</html>"),
            "HTTP 200 body is not JSON: '<html>upstream gone</html>'",
            id="200 text page",
        ),
        pytest.param(
            Action(status=202, raw_body=b"queued", content_type="text/plain"),
            "HTTP 202 body is not JSON: 'queued'",
            id="202 text",
        ),
    ],
)
async def test_a_body_that_is_not_json_is_a_server_error_with_either_backend(
    fake_openai: FakeOpenAI,
    fake_definition: AgentDefinition,
    broken: Action,
    reason: str,
    structured: bool,
) -> None:
    """The docs name an empty 204 ``HTTP 204 body is not JSON: ''``, a ``server_error``:
    ChatOpenAI's structured-output path reads such a body as a completion and fails on
    the text, which must not make it an ``endpoint_error`` there alone."""
    seen: dict[str, tuple[str | None, str, tuple[tuple[str, int], ...]]] = {}
    for backend in BACKENDS:
        reset_breakers()
        definition = fake_definition.model_copy(
            update={"backend": backend, "structured_output": structured}
        )
        fake_openai.script(broken, broken, broken)
        failed = await ChatClient(definition).choose(MESSAGES, OPTIONS)
        seen[backend] = (failed.error_kind, failed.failure, failed.stats.retry_causes)
    assert seen["openai"] == seen["langchain"] == ("server_error", reason, (("server_error", 2),))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_broken_gzip_body_is_a_bad_answer_retried_as_one(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str
) -> None:
    """The server answered: its body is what is broken, so the cause is the bad-answer
    one (``server_error``, retried like a body that is not JSON), not ``connection``,
    which would send whoever reads the trace to the network."""
    definition = fake_definition.model_copy(update={"backend": backend})
    client = ChatClient(definition)
    fake_openai.script(broken_gzip(), reply(answer("Carol")))
    result = await client.choose(MESSAGES, OPTIONS)
    assert result.choice == "Carol" and not result.fallback
    assert result.stats.retry_causes == (("server_error", 1),)

    fake_openai.script(broken_gzip(), broken_gzip(), broken_gzip())
    failed = await client.choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "server_error" and failed.stats.retry_causes == (
        ("server_error", 2),
    )
    assert failed.failure.startswith("HTTP 200 body cannot be decoded (DecodingError: ")
    assert failed.stats.attribution == "infrastructure"
    assert client.usage.retry_causes == {"server_error": 3}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_broken_gzip_body_names_the_status_it_came_with(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str
) -> None:
    """A 503 whose body cannot be decoded is named a 503, not a 200."""
    definition = fake_definition.model_copy(update={"backend": backend, "max_retries": 0})
    fake_openai.script(broken_gzip(status=503))
    failed = await ChatClient(definition).complete(MESSAGES)
    assert failed.error_kind == "server_error"
    assert failed.failure.startswith("HTTP 503 body cannot be decoded (DecodingError: ")
