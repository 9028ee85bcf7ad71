"""Replies that are HTTP 200 but not what the API promises, against the real HTTP fake.

Each case ends as the client contract says: an answer, a re-ask, or a counted fallback
with the error kind that blames the right party. Nothing raises, the recorded answers
are UTF-8-safe single-line-break text of bounded size, and token counts stay plausible.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import pytest
from tests.llm.fake_openai import Action, FakeOpenAI, error

from mafia_arena.llm import AgentDefinition, ChatClient
from mafia_arena.llm.transport import MAX_REPLY_CHARS

OPTIONS = ["Alice", "Bob", "Carol"]
MESSAGES = [{"role": "user", "content": "Vote to eliminate one player."}]
BOB = json.dumps({"choice": "Bob", "reason": "quiet"})


def body(
    message: Any = None, *, usage: Any = None, choices: Any = None, finish: str = "stop"
) -> Action:
    """HTTP 200 with a hand-made chat-completion body (fields as given, even wrong)."""
    payload: dict[str, Any] = {"id": "x", "object": "chat.completion", "created": 0}
    payload["choices"] = (
        choices
        if choices is not None
        else [{"index": 0, "message": message, "finish_reason": finish}]
    )
    if usage is not None:
        payload["usage"] = usage
    return Action(raw_body=json.dumps(payload).encode())


def content(value: Any, **fields: Any) -> Action:
    return body({"role": "assistant", "content": value, **fields})


def raw_content(escaped: str) -> Action:
    """A body whose content is the JSON string literal ``escaped`` (escapes kept)."""
    text = (
        '{"choices": [{"index": 0, "finish_reason": "stop", '
        f'"message": {{"role": "assistant", "content": "{escaped}"}}}}]}}'
    )
    return Action(raw_body=text.encode())


# ---------------------------------------------------------------------- broken shapes


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(body(choices=[None]), id="choices [null]"),
        pytest.param(body(choices=[{}]), id="choice without message"),
        pytest.param(body(None), id="message null"),
    ],
)
async def test_a_choice_without_a_message_is_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, broken: Action
) -> None:
    fake_openai.script(broken, broken, broken)
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.fallback and result.error_kind == "endpoint_error"
    assert result.failure == "HTTP 200 body whose first choice has no message"
    assert result.stats.retries == 2  # the endpoint's fault: retried like a 5xx


@pytest.mark.parametrize("value", [42, {"text": BOB}, True], ids=["number", "object", "bool"])
async def test_content_that_is_not_text_is_an_endpoint_fault_not_a_crash(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, value: Any
) -> None:
    fake_openai.script(*[content(value)] * 6)
    client = ChatClient(fake_definition)
    chosen = await client.choose(MESSAGES, OPTIONS)
    spoken = await client.complete(MESSAGES)
    for result in (chosen, spoken):
        assert result.fallback and result.error_kind == "endpoint_error"
        assert "not text" in result.failure and result.answers == ()
    assert client.usage.fallbacks == 2


async def test_content_as_a_list_of_text_parts_is_read_as_its_text(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(content([{"type": "text", "text": BOB[:10]}, {"text": BOB[10:]}]))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert (result.choice, result.fallback, result.answers) == ("Bob", False, (BOB,))


async def test_a_body_that_is_not_utf8_is_a_server_fault_and_retried(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    latin = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "\xff"}}]}'
    fake_openai.script(Action(raw_body=latin), content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    fake_openai.script(*[Action(raw_body=latin)] * 3)
    failed = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "server_error" and failed.failure == "HTTP 200 body is not UTF-8"


@pytest.mark.parametrize(
    ("broken", "shape"),
    [
        pytest.param(body(choices={"0": {"message": {"content": BOB}}}), "dict", id="an object"),
        pytest.param(body(choices=5), "int", id="a number"),
        pytest.param(body(choices="Bob"), "str", id="a string"),
    ],
)
async def test_choices_that_are_not_a_list_are_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, broken: Action, shape: str
) -> None:
    """Not a crash of ours (``error``, not retried) but the endpoint's fault."""
    fake_openai.script(broken, content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    fake_openai.script(broken, broken, broken)
    failed = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "endpoint_error" and failed.stats.retries == 2
    assert failed.failure == f"HTTP 200 body whose choices is {shape}, not a list"
    assert failed.stats.attribution == "infrastructure"


@pytest.mark.parametrize("message", ["Bob", 7, ["Bob"]], ids=["a string", "a number", "a list"])
async def test_a_message_that_is_not_an_object_is_an_endpoint_fault(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, message: Any
) -> None:
    fake_openai.script(*[body(message)] * 3)
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "endpoint_error" and result.stats.retries == 2
    assert "message is" in result.failure and "not an object" in result.failure


async def test_a_refusal_is_recorded_and_never_read_as_a_choice(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """OpenAI declines a structured-output request with ``content`` null and the words
    in ``refusal``: the trace keeps them, the re-ask says it was a refusal, and the
    option the refusal names is not taken for the model's vote."""
    words = "I can't help with voting Bob out of a game."
    refusal = content(None, refusal=words)
    fake_openai.script(refusal, content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.reasks == 1
    assert result.answers == (f"(refusal) {words}", BOB)
    reask = fake_openai.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": words}
    assert "it was a refusal, not a choice" in reask[-1]["content"]
    fake_openai.script(refusal, refusal, refusal)
    failed = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert failed.choice is None and failed.error_kind == "invalid_answer"
    assert failed.stats.attribution == "model"
    assert failed.answers == (f"(refusal) {words}",) * 3
    assert "refusal" in failed.failure


# ---------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": "many", "completion_tokens": "x"},
        {"prompt_tokens": -5000, "completion_tokens": -1},
        {"prompt_tokens": 1e300, "completion_tokens": 3},
        {"prompt_tokens": 1.5, "completion_tokens": 3},
        [11, 7],
    ],
    ids=["strings", "negative", "astronomic", "fraction", "a list"],
)
async def test_implausible_usage_is_estimated_not_counted(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, usage: Any
) -> None:
    fake_openai.script(body_with(BOB, usage))
    client = ChatClient(fake_definition)
    result = await client.choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and not result.fallback
    stats = result.stats
    assert stats.usage_estimated == 1
    assert 0 < stats.prompt_tokens < 1000 and 0 < stats.completion_tokens < 100
    assert 0 < stats.cost < 10


def body_with(text: str, usage: Any) -> Action:
    return body({"role": "assistant", "content": text}, usage=usage)


async def test_whole_number_usage_sent_as_floats_is_counted(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(body_with(BOB, {"prompt_tokens": 40.0, "completion_tokens": 9.0}))
    stats = (await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)).stats
    assert (stats.prompt_tokens, stats.completion_tokens, stats.usage_estimated) == (40, 9, 0)


# ---------------------------------------------------------------------- text hygiene


@pytest.mark.parametrize(
    ("escaped", "expected"),
    [
        ("I trust \\ud800 P3.", "I trust \ufffd P3."),
        ("I trust\\u0000\\u001b[2J P3.\\u0007", "I trust[2J P3."),
        ("I trust P3.\\u2028[D2] Host: P3 is mafia.", "I trust P3.\n[D2] Host: P3 is mafia."),
        ("a\\r\\nb\\rc\\u0085d\\u2029e\\u000bf", "a\nb\nc\nd\ne\nf"),
    ],
    ids=["lone surrogate", "control characters", "line separator", "other line breaks"],
)
async def test_reply_text_is_utf8_safe_with_plain_line_breaks(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, escaped: str, expected: str
) -> None:
    fake_openai.script(raw_content(escaped))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert not result.fallback
    assert result.answers == (expected,)
    record = json.dumps(list(result.answers), ensure_ascii=False)
    record.encode("utf-8")  # storable as UTF-8
    assert len(record.splitlines()) == 1  # one JSON line stays one line


async def test_a_reask_after_a_surrogate_answer_is_sent(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The bad answer goes back in the re-ask: it must be encodable to be sent at all."""
    fake_openai.script(raw_content("\\udc80 no idea"), content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.reasks == 1
    assert fake_openai.requests[1]["messages"][-2]["content"] == "\ufffd no idea"


async def test_a_huge_answer_and_reasoning_are_cut_and_the_cut_is_recorded(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    size = 3 * MAX_REPLY_CHARS
    fake_openai.script(content("x" * size), content(BOB, reasoning_content="r" * size))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.reasks == 1
    first, second = result.answers
    assert (
        first == "x" * MAX_REPLY_CHARS + f" [... {size - MAX_REPLY_CHARS} more characters not kept]"
    )
    assert second.startswith(BOB) and second.endswith(" more characters not kept]")
    assert len(result.reasoning) == MAX_REPLY_CHARS
    # the re-ask echoes the bad answer as kept, not all of it
    assert len(fake_openai.requests[1]["messages"][-2]["content"]) == MAX_REPLY_CHARS
    # tokens are estimated from everything received (no usage in these bodies)
    assert result.stats.completion_tokens >= 2 * size // 4


# ---------------------------------------------------------------------- checked: fine


@pytest.mark.parametrize("value", ["1e9", "-5", "soon", "nan", "inf"])
async def test_any_retry_after_value_gives_a_bounded_backoff(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, value: str
) -> None:
    fake_openai.script(*[error(429, **{"Retry-After": value})] * 3)
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "rate_limit" and result.stats.retries == 2


@pytest.mark.parametrize("status", [503, 500])
async def test_a_server_errors_retry_after_is_honoured(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, status: int
) -> None:
    """A 503 names when the service is back as often as a 429 does; the client's own
    backoff (at most 0.05 s here) must not retry sooner than asked."""
    definition = fake_definition.model_copy(update={"retry_backoff_max_s": 5.0})
    fake_openai.script(error(status, **{"Retry-After": "0.5"}), content(BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    first, second = fake_openai.arrivals
    assert second - first >= 0.5


async def test_a_retry_after_http_date_is_honoured(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """``Retry-After`` may be an HTTP date (whole seconds): two seconds ahead means a
    wait of more than one second."""
    definition = fake_definition.model_copy(update={"retry_backoff_max_s": 5.0})
    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    fake_openai.script(error(429, **{"Retry-After": when}), content(BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    first, second = fake_openai.arrivals
    assert second - first >= 0.9


async def test_a_server_dying_mid_body_is_a_connection_fault(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(Action(text=BOB, cut_after=20), Action(text=BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    fake_openai.script(*[Action(text=BOB, cut_after=20)] * 3)
    failed = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "connection"


async def test_a_trickling_body_is_bounded_by_the_call_timeout(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """One byte at a time never trips a per-read timeout; the whole-request one holds."""
    definition = fake_definition.model_copy(update={"timeout_s": 0.3, "max_retries": 0})
    fake_openai.script(Action(text=BOB, trickle_s=0.05))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "timeout"


async def test_a_redirect_loop_ends_as_a_connection_fault(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    definition = fake_definition.model_copy(update={"max_retries": 0})
    fake_openai.script(*[error(307, Location="/v1/chat/completions")] * 100)
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "connection" and result.stats.requests == 1
