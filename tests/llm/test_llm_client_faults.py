"""Fault tests of ChatClient against a scripted OpenAI-compatible HTTP endpoint.

Each fault ends as the client contract says (success after a re-ask or retry, or a
counted fallback with an error kind) and shows up in the per-call stats and the
per-agent UsageCounter.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from tests.llm.fake_openai import FakeOpenAI, drop, error, free_port, reply, slow

from mafia_arena.llm import AgentDefinition, ChatClient, UsageCounter
from mafia_arena.llm.client import sends_key_in_clear

OPTIONS = ["Alice", "Bob", "Carol"]
MESSAGES = [
    {"role": "system", "content": "You are a villager."},
    {"role": "user", "content": "Vote to eliminate one player."},
]


def answer(choice: object, reason: str = "suspicious") -> str:
    return json.dumps({"choice": choice, "reason": reason})


# ---------------------------------------------------------------------- happy path


async def test_choose_valid_answer_is_counted(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply(answer("Bob"), prompt_tokens=40, completion_tokens=9))
    client = ChatClient(fake_definition)

    result = await client.choose(MESSAGES, OPTIONS, "vote")

    assert (result.choice, result.index, result.reason) == ("Bob", 1, "suspicious")
    assert not result.fallback and result.error_kind is None
    stats = result.stats
    assert (stats.prompt_tokens, stats.completion_tokens, stats.requests) == (40, 9, 1)
    assert stats.reasks == stats.retries == 0
    assert stats.cost == pytest.approx(40 * 0.001 + 9 * 0.002)
    assert stats.latency_s > 0
    assert client.usage.as_dict() | {"latency_s": 0} == {
        "calls": 1,
        "prompt_tokens": 40,
        "completion_tokens": 9,
        "total_tokens": 49,
        "latency_s": 0,
        "cost": pytest.approx(0.058),
        "requests": 1,
        "reasks": 0,
        "retries": 0,
        "fallbacks": 0,
        "usage_estimated": 0,
        "errors": {},
        "retry_causes": {},
        "reask_causes": {},
    }


async def test_choose_sends_schema_with_exactly_the_options(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(reply(answer("Carol")))
    await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "night_kill")

    body = fake_openai.requests[0]
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "night_kill"
    schema = fmt["json_schema"]["schema"]
    assert schema["properties"]["choice"]["enum"] == OPTIONS
    assert schema["required"] == ["reason", "choice"]
    assert body["max_tokens"] == 32 and body["model"] == "fake-model"
    # the answer-format instruction is appended to the last user turn
    assert body["messages"][-1]["role"] == "user"
    assert '"Alice", "Bob", "Carol"' in body["messages"][-1]["content"]


async def test_llama_cpp_dialect_for_json_object_format(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    definition = fake_definition.model_copy(update={"structured_output_format": "json_object"})
    fake_openai.script(reply(answer("Alice")))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice"
    fmt = fake_openai.requests[0]["response_format"]
    assert fmt == {"type": "json_object", "schema": fmt["schema"]}
    assert fmt["schema"]["properties"]["choice"]["enum"] == OPTIONS


async def test_endpoint_rejecting_json_schema_switches_dialect(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """A llama-cpp-python server answers json_schema with a 500 naming response_format."""
    rejection = error(500, "validation error: body.response_format.type: 'text' or 'json_object'")
    fake_openai.script(rejection, reply(answer("Bob")), reply(answer("Carol")))
    client = ChatClient(fake_definition)

    first = await client.choose(MESSAGES, OPTIONS, "vote")
    second = await client.choose(MESSAGES, OPTIONS, "vote")

    assert (first.choice, second.choice) == ("Bob", "Carol")
    assert first.stats.requests == 2 and first.stats.retries == 1
    assert second.stats.requests == 1
    kinds = [r["response_format"]["type"] for r in fake_openai.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]


async def test_no_response_format_without_structured_output(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    definition = fake_definition.model_copy(update={"structured_output": False})
    fake_openai.script(reply("I vote for carol, she was quiet."))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Carol" and not result.fallback
    assert "response_format" not in fake_openai.requests[0]


async def test_complete_returns_text(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply("  I think Bob is lying.  ", prompt_tokens=30, completion_tokens=6))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.text == "I think Bob is lying."
    assert not result.fallback
    assert (result.stats.prompt_tokens, result.stats.completion_tokens) == (30, 6)
    assert "response_format" not in fake_openai.requests[0]


# ---------------------------------------------------------------------- bad content


async def test_illegal_choice_then_reask_succeeds(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply(answer("Zed")), reply(answer("Carol")))
    client = ChatClient(fake_definition)

    result = await client.choose(MESSAGES, OPTIONS, "vote")

    assert result.choice == "Carol" and not result.fallback
    assert (result.stats.requests, result.stats.reasks, result.stats.retries) == (2, 1, 0)
    assert (result.stats.prompt_tokens, result.stats.completion_tokens) == (22, 14)
    # the re-ask shows the model its bad answer and says what is wrong
    second = fake_openai.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": answer("Zed")}
    assert second[-1]["role"] == "user"
    assert '"Zed" is not one of the options' in second[-1]["content"]
    assert client.usage.reasks == 1 and client.usage.fallbacks == 0


async def test_illegal_choice_reasks_exhausted_falls_back(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(*[reply(answer("Zed")) for _ in range(3)])
    client = ChatClient(fake_definition)

    result = await client.choose(MESSAGES, OPTIONS, "vote")

    assert result.fallback and result.choice is None and result.index is None
    assert result.error_kind == "invalid_answer"
    assert result.raw == answer("Zed")
    assert (result.stats.requests, result.stats.reasks) == (3, 2)
    assert client.usage.fallbacks == 1
    assert client.usage.errors == {"invalid_answer": 1}
    assert client.usage.prompt_tokens == 33


async def test_a_choice_key_written_twice_with_two_options_is_reasked_as_ambiguous(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """``{"choice": "Bob", "choice": "Carol"}`` names two options, as two JSON answers
    do: the model is told so and asked again, and the re-ask is counted as an invalid
    answer, never read as the last key's option."""
    twice = '{"reason": "both lied", "choice": "Bob", "choice": "Carol"}'
    fake_openai.script(reply(twice), reply(answer("Carol")))
    client = ChatClient(fake_definition)

    result = await client.choose(MESSAGES, OPTIONS, "vote")

    assert result.choice == "Carol" and result.answers == (twice, answer("Carol"))
    assert result.stats.reask_causes == (("invalid_answer", 1),)
    second = fake_openai.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": twice}
    assert second[-1]["content"].startswith("That answer is not valid: it names more than one")

    fake_openai.script(*[reply(twice) for _ in range(3)])
    failed = await client.choose(MESSAGES, OPTIONS, "vote")
    assert failed.fallback and failed.error_kind == "invalid_answer"
    assert failed.failure == "no legal choice in 3 answer(s): it names more than one option"
    assert client.usage.reask_causes == {"invalid_answer": 3}


async def test_malformed_json_is_reasked(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply('{"choice": "Ca'), reply("{{{ not json at all"), reply(answer("Bob")))
    # the first is truncated JSON naming no complete option: re-ask; so is the second
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Bob"
    assert result.stats.reasks == 2 and not result.fallback


async def test_malformed_json_naming_one_option_is_parsed_leniently(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(reply('```json\n{"choice": "alice", "reason": "quiet",,}\n```'))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice" and result.stats.reasks == 0


async def test_empty_answer_then_reask_succeeds(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply(""), reply(answer("Alice")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice" and result.stats.reasks == 1
    second = fake_openai.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "(no answer)"}
    assert "empty" in second[-1]["content"]


async def test_empty_answers_exhausted_fall_back(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply(""), reply("   "), reply(""))
    client = ChatClient(fake_definition)
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.fallback and result.error_kind == "empty_answer"
    assert client.usage.errors == {"empty_answer": 1}


async def test_complete_empty_answer_reasked_then_falls_back(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(reply(""), reply("Fine, I suspect Bob."), reply(""), reply(""), reply(""))
    client = ChatClient(fake_definition)

    ok = await client.complete(MESSAGES)
    failed = await client.complete(MESSAGES)

    assert ok.text == "Fine, I suspect Bob." and ok.stats.reasks == 1 and not ok.fallback
    assert failed.text == "" and failed.fallback and failed.error_kind == "empty_answer"
    assert failed.stats.reasks == 2 and failed.stats.requests == 3
    assert client.usage.calls == 2 and client.usage.reasks == 3 and client.usage.fallbacks == 1


# ---------------------------------------------------------------------- transport faults


async def test_timeout_then_success_is_retried(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(slow(3.0), reply(answer("Bob")))
    definition = fake_definition.model_copy(update={"timeout_s": 1.0})
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Bob"
    assert result.stats.retries == 1 and result.stats.requests == 2
    assert result.stats.latency_s >= 1.0  # waited out one timeout


async def test_timeouts_exhausted_fall_back(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(slow(3.0), slow(3.0), slow(3.0))
    client = ChatClient(fake_definition.model_copy(update={"timeout_s": 1.0}))
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.fallback and result.error_kind == "timeout"
    assert result.stats.retries == 2 and result.stats.requests == 3
    assert result.stats.latency_s < 6.0  # 3 x 1 s timeouts plus small backoffs
    assert client.usage.errors == {"timeout": 1}


async def test_server_error_then_success(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(error(500), error(503), reply(answer("Carol")))
    client = ChatClient(fake_definition)
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Carol" and not result.fallback
    assert result.stats.retries == 2 and result.stats.requests == 3
    assert client.usage.retries == 2


async def test_server_errors_exhausted_fall_back(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(error(500), error(502), error(500))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.fallback and result.error_kind == "server_error" and result.text == ""
    assert result.stats.retries == 2


async def test_rate_limit_is_retried_no_sooner_than_retry_after(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    """The server's Retry-After (0.5 s) outlasts the client's own backoff (at most
    0.01 s here), so only honouring the header makes the retry wait that long."""
    definition = fake_definition.model_copy(
        update={"retry_backoff_s": 0.01, "retry_backoff_max_s": 5.0}
    )
    fake_openai.script(error(429, "slow down", **{"Retry-After": "0.5"}), reply("ok then"))
    result = await ChatClient(definition).complete(MESSAGES)
    assert result.text == "ok then" and result.stats.retries == 1
    first, second = fake_openai.arrivals
    assert second - first >= 0.5


async def test_client_error_is_not_retried(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(error(400, "context length exceeded"), reply("never sent"))
    client = ChatClient(fake_definition)
    result = await client.choose(MESSAGES, OPTIONS, "vote")
    assert result.fallback and result.error_kind == "bad_request"
    assert result.stats.requests == 1 and result.stats.retries == 0
    assert client.usage.errors == {"bad_request": 1}


async def test_auth_error_is_not_retried(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(error(401, "bad key"))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.fallback and result.error_kind == "auth" and result.stats.requests == 1


async def test_dropped_connection_then_success(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(drop(), reply(answer("Alice")))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS, "vote")
    assert result.choice == "Alice" and result.stats.retries == 1


async def test_server_gone_for_good_falls_back(fake_definition) -> None:
    definition = fake_definition.model_copy(
        update={"base_url": f"http://127.0.0.1:{free_port()}/v1", "breaker_failures": 100}
    )
    usage = UsageCounter()
    client = ChatClient(definition, usage=usage)

    choice = await client.choose(MESSAGES, OPTIONS, "vote")
    text = await client.complete(MESSAGES)

    for result in (choice, text):
        assert result.fallback and result.error_kind == "connection"
        assert result.stats.retries == 2 and result.stats.requests == 3
        assert result.stats.prompt_tokens == 0 and result.stats.cost == 0
    assert usage is client.usage
    assert usage.calls == 2 and usage.fallbacks == 2 and usage.retries == 4
    assert usage.errors == {"connection": 2}


# ---------------------------------------------------------------------- concurrency, loops


async def test_requests_in_flight_limited_per_endpoint(
    fake_openai: FakeOpenAI, fake_definition
) -> None:
    fake_openai.script(*[slow(0.15, answer("Bob")) for _ in range(8)])
    definition = fake_definition.model_copy(update={"max_concurrency": 2, "timeout_s": 5.0})
    # two clients (two agents) on the same endpoint share one limit
    first = ChatClient(definition)
    second = ChatClient(definition.model_copy(update={"name": "other-agent"}))

    results = await asyncio.gather(
        *[(first if i % 2 else second).choose(MESSAGES, OPTIONS, "vote") for i in range(8)]
    )

    assert [r.choice for r in results] == ["Bob"] * 8
    assert fake_openai.max_in_flight == 2
    await first.aclose()
    await second.aclose()


def test_client_survives_several_event_loops(fake_openai: FakeOpenAI, fake_definition) -> None:
    fake_openai.script(reply(answer("Bob")), reply(answer("Carol")))
    client = ChatClient(fake_definition)
    first = asyncio.run(client.choose(MESSAGES, OPTIONS, "vote"))
    second = asyncio.run(client.choose(MESSAGES, OPTIONS, "vote"))
    assert (first.choice, second.choice) == ("Bob", "Carol")
    assert client.usage.calls == 2


async def test_caller_bugs_raise(fake_definition) -> None:
    client = ChatClient(fake_definition)
    with pytest.raises(ValueError, match="empty"):
        await client.choose(MESSAGES, [], "vote")
    with pytest.raises(ValueError, match="distinct"):
        await client.choose(MESSAGES, ["a", "a"], "vote")
    with pytest.raises(ValueError, match="messages"):
        await client.complete([{"role": "wizard", "content": "x"}])


# ---------------------------------------------------------------------- secrets

SECRET = "sk-test-SECRET-0123456789abcdef"


def _through_proxy(monkeypatch: pytest.MonkeyPatch, fake: FakeOpenAI) -> None:
    """Route plain-HTTP requests for any host to ``fake`` (an HTTP proxy is handed the
    full URL and answers it), so an endpoint on a "remote" host is a real server here."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{fake.port}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{fake.port}")


def _clear_key_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "plain http://" in r.getMessage()
    ]


async def test_a_key_over_plain_http_to_another_host_is_sent_with_one_warning(
    fake_openai: FakeOpenAI,
    fake_definition: AgentDefinition,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A model on the local network served over http:// is allowed, but the key goes
    out readable: one warning per endpoint says so, naming neither more nor the key."""
    _through_proxy(monkeypatch, fake_openai)
    monkeypatch.setenv("MAFIA_TEST_KEY", SECRET)
    remote = "http://models.lan.example:8000/v1"
    definition = fake_definition.model_copy(
        update={"api_key_env": "MAFIA_TEST_KEY", "base_url": remote}
    )
    fake_openai.script(*[reply(answer("Bob"))] * 3)
    caplog.set_level(logging.WARNING)

    for client in (ChatClient(definition), ChatClient(definition)):
        assert (await client.choose(MESSAGES, OPTIONS, "vote")).choice == "Bob"
    await ChatClient(definition.model_copy(update={"name": "other"})).complete(MESSAGES)

    assert [h["authorization"] for h in fake_openai.headers] == [f"Bearer {SECRET}"] * 3
    (warning,) = _clear_key_warnings(caplog)
    assert remote in warning and "fake-agent" in warning
    assert SECRET not in caplog.text


async def test_no_key_warning_without_a_key_or_for_this_machine(
    fake_openai: FakeOpenAI,
    fake_definition: AgentDefinition,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A loopback endpoint with a key, or a remote http:// one without any, sends no key
    across a network."""
    monkeypatch.setenv("MAFIA_TEST_KEY", SECRET)
    caplog.set_level(logging.WARNING)
    fake_openai.script(*[reply(answer("Bob"))] * 2)
    keyed = fake_definition.model_copy(update={"api_key_env": "MAFIA_TEST_KEY"})
    assert (await ChatClient(keyed).choose(MESSAGES, OPTIONS)).choice == "Bob"
    _through_proxy(monkeypatch, fake_openai)
    keyless = fake_definition.model_copy(update={"base_url": "http://keyless.example:8000/v1"})
    assert (await ChatClient(keyless).choose(MESSAGES, OPTIONS)).choice == "Bob"
    assert _clear_key_warnings(caplog) == []


@pytest.mark.parametrize(
    ("base_url", "in_clear"),
    [
        ("http://localhost:8080/v1", False),
        ("http://LOCALHOST/v1", False),
        ("http://127.0.0.1:8080/v1", False),
        ("http://127.45.6.7/v1", False),
        ("http://[::1]:8080/v1", False),
        ("https://api.openai.com/v1", False),
        ("https://10.0.0.5/v1", False),
        ("http://10.0.0.5:8000/v1", True),
        ("http://192.168.1.20/v1", True),
        ("http://[fe80::1]:8000/v1", True),
        ("http://gpu-box.lan:8000/v1", True),
        ("http://localhost.evil.example/v1", True),
    ],
)
def test_which_base_urls_send_a_key_in_clear(base_url: str, in_clear: bool) -> None:
    assert sends_key_in_clear(base_url) is in_clear


async def test_api_key_used_but_never_logged_or_shown(
    fake_openai: FakeOpenAI,
    fake_definition: AgentDefinition,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("MAFIA_TEST_KEY", SECRET)
    definition = fake_definition.model_copy(update={"api_key_env": "MAFIA_TEST_KEY"})
    fake_openai.script(reply(answer("Zed")), error(500), reply(answer("Bob")), error(401))
    caplog.set_level(logging.DEBUG)

    client = ChatClient(definition)
    chosen = await client.choose(MESSAGES, OPTIONS, "vote")
    failed = await client.complete(MESSAGES)

    assert chosen.choice == "Bob" and failed.error_kind == "auth"
    assert all(h["authorization"] == f"Bearer {SECRET}" for h in fake_openai.headers)
    shown = [
        caplog.text,
        repr(client),
        repr(definition),
        str(definition),
        definition.model_dump_json(),
        repr(chosen),
        repr(failed),
        repr(client.usage),
        repr(definition.api_key()),
    ]
    assert not [text for text in shown if SECRET in text]
    key = definition.api_key()
    assert key is not None and key.get_secret_value() == SECRET


async def test_no_key_configured_never_sends_openai_api_key(
    fake_openai: FakeOpenAI, fake_definition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The openai package would default to $OPENAI_API_KEY; a local endpoint must not get it."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    fake_openai.script(reply("hi"))
    await ChatClient(fake_definition).complete(MESSAGES)
    assert SECRET not in json.dumps(fake_openai.headers)


async def test_key_removed_after_construction_is_a_counted_auth_fallback(
    fake_openai: FakeOpenAI, fake_definition, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAFIA_TEST_KEY", SECRET)
    definition = fake_definition.model_copy(update={"api_key_env": "MAFIA_TEST_KEY"})
    client = ChatClient(definition)
    monkeypatch.delenv("MAFIA_TEST_KEY")
    result = await client.complete(MESSAGES)
    assert result.fallback and result.error_kind == "auth" and fake_openai.requests == []
