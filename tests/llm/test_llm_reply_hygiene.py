"""Replies that are HTTP 200 but not what the API promises, against the real HTTP fake.

Each case ends as the client contract says: an answer, a re-ask, or a counted fallback
with the error kind that blames the right party. Nothing raises, the recorded answers
are UTF-8-safe single-line-break text of bounded size, and token counts stay plausible.
"""

from __future__ import annotations

import email.utils
import json
import logging
import time
from typing import Any

import pytest
from tests.llm.fake_openai import Action, FakeOpenAI, error, tool_call

from mafia_arena.llm import AgentDefinition, ChatClient
from mafia_arena.llm import client as client_module
from mafia_arena.llm.client import CUT_NOTE
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


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(body(choices=[None]), id="choices [null]"),
        pytest.param(body(choices=[{}]), id="choice without message"),
        pytest.param(body(None), id="message null"),
        pytest.param(body("Bob"), id="message a string"),
        pytest.param(body(choices={"0": {"message": {"content": BOB}}}), id="choices an object"),
        pytest.param(body(choices=5), id="choices a number"),
        pytest.param(content(42), id="content a number"),
        pytest.param(content({"text": BOB}), id="content an object"),
    ],
)
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
async def test_a_wrong_shaped_200_is_an_endpoint_fault_with_the_langchain_backend_too(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, broken: Action
) -> None:
    """ChatOpenAI fails inside itself on such a body (``TypeError``, ``AttributeError``,
    pydantic's ``ValidationError``); it is the endpoint's fault, retried, as the openai
    backend says of the same body, not a bug of ours."""
    definition = fake_definition.model_copy(update={"backend": "langchain"})
    fake_openai.script(broken, content(BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    fake_openai.script(broken, broken, broken)
    failed = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "endpoint_error" and failed.stats.retries == 2
    assert failed.failure.startswith("HTTP 200 ")
    assert failed.stats.attribution == "infrastructure"


async def test_the_langchain_backend_names_a_202_or_204_by_its_status(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    definition = fake_definition.model_copy(update={"backend": "langchain", "max_retries": 0})
    cases = [
        (Action(status=204, raw_body=b""), "server_error"),  # no body: not JSON
        (Action(status=202, raw_body=b'{"id": "q"}'), "endpoint_error"),  # JSON, no choices
    ]
    for action, kind in cases:
        fake_openai.script(action)
        failed = await ChatClient(definition).complete(MESSAGES)
        assert failed.error_kind == kind
        assert failed.failure.startswith(f"HTTP {action.status} ")


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


@pytest.mark.parametrize("backend", ["openai", "langchain"])
async def test_a_tool_calls_arguments_are_kept_and_read_as_the_answer(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str
) -> None:
    """A server may send the answer as a call of a tool nobody offered (``content``
    null): the trace keeps the call, and arguments naming a legal option are the
    choice, with either backend."""
    definition = fake_definition.model_copy(update={"backend": backend})
    fake_openai.script(tool_call("vote", BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.reason == "quiet" and not result.fallback
    assert result.answers == (f"(tool call) vote {BOB}",)


async def test_a_tool_call_naming_no_option_is_re_asked_and_kept(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """Arguments that name no option are an invalid answer of the model, re-asked with
    the arguments echoed; free speech is never taken from a tool call."""
    zed = json.dumps({"choice": "Zed", "reason": "loud"})
    fake_openai.script(tool_call("vote", zed), tool_call("vote", zed), tool_call("vote", zed))
    failed = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert failed.error_kind == "invalid_answer" and failed.stats.reasks == 2
    assert failed.answers == (f"(tool call) vote {zed}",) * 3
    assert fake_openai.requests[1]["messages"][-2] == {"role": "assistant", "content": zed}

    fake_openai.script(*[tool_call("say", '{"text": "hello"}')] * 3)
    said = await ChatClient(fake_definition).complete(MESSAGES)
    assert said.error_kind == "empty_answer" and said.text == ""
    assert said.answers == ('(tool call) say {"text": "hello"}',) * 3


async def test_a_tool_calls_arguments_are_bounded_like_text(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    size = MAX_REPLY_CHARS + 5_000
    fake_openai.script(tool_call("x" * 500, "y" * size), content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob"
    kept = result.answers[0]
    assert kept.startswith("(tool call) " + "x" * 100)
    assert kept.endswith("y" * 10 + " [... 5000 more characters not kept]")
    assert len(kept) < MAX_REPLY_CHARS + 300


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


@pytest.mark.parametrize(
    ("headers", "cap", "waits", "least"),
    [
        ({"retry-after-ms": "500"}, 5.0, 0.5, 0.5),
        # both sent: the milliseconds win (the seconds header alone would wait 3 s)
        ({"retry-after-ms": "500", "Retry-After": "3"}, 5.0, 0.5, 0.5),
        # an unusable milliseconds value leaves the seconds header in charge
        ({"retry-after-ms": "soon", "Retry-After": "0.5"}, 5.0, 0.5, 0.5),
        # capped as Retry-After is: at retry_backoff_max_s
        ({"retry-after-ms": "1e12"}, 1.0, 1.0, 0.9),
    ],
)
async def test_a_retry_after_ms_header_is_honoured_and_preferred(
    fake_openai: FakeOpenAI,
    fake_definition: AgentDefinition,
    caplog: pytest.LogCaptureFixture,
    headers: dict[str, str],
    cap: float,
    waits: float,
    least: float,
) -> None:
    """OpenAI-compatible servers say how long to wait in ``retry-after-ms``
    (milliseconds); the client waits that long, not its own shorter backoff nor the
    coarser ``Retry-After``, and never longer than ``retry_backoff_max_s``. The wait
    it chose is the one its retry log line gives (`waits`), and the retry arrived no
    sooner than that (`least`, the server's clock)."""
    caplog.set_level(logging.DEBUG, logger=client_module.__name__)
    definition = fake_definition.model_copy(update={"retry_backoff_max_s": cap})
    fake_openai.script(error(429, **headers), content(BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.retries == 1
    (retry,) = [r for r in caplog.records if r.getMessage().startswith("llm retry ")]
    assert isinstance(retry.args, tuple) and retry.args[-1] == waits, retry.getMessage()
    first, second = fake_openai.arrivals
    assert second - first >= least


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


# ---------------------------------------------------------------------- redirects, cuts


@pytest.mark.parametrize("backend", ["openai", "langchain"])
@pytest.mark.parametrize("status", [301, 302, 303])
async def test_a_redirect_that_would_resend_the_request_as_a_get_is_named(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str, status: int
) -> None:
    """Followed, such a redirect sends a GET without the prompt, whose answer (here the
    fake's model list) the trace would blame as a body without choices; refused, the
    failure names the redirect and where it points (no query: it may hold a key), and
    no retry is spent on it."""
    definition = fake_definition.model_copy(update={"backend": backend})
    location = "/v1/moved/chat/completions?api_key=sk-abcdefghijkl"
    fake_openai.script(error(status, Location=location), content(BOB))
    result = await ChatClient(definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "bad_request" and result.choice is None
    assert (result.stats.requests, result.stats.retries) == (1, 0)
    assert result.failure.startswith(
        f"HTTP {status} redirect to http://127.0.0.1:{fake_openai.port}/v1/moved/chat/completions"
        " would resend the chat request as a GET"
    )
    assert "sk-" not in result.failure and "api_key" not in result.failure


@pytest.mark.parametrize("status", [307, 308])
async def test_a_redirect_that_keeps_the_post_is_followed(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, status: int
) -> None:
    fake_openai.script(error(status, Location="/v1/chat/completions"), content(BOB))
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob" and result.stats.requests == 1
    assert len(fake_openai.requests) == 2  # the same POST, sent where it was pointed


async def test_an_answer_cut_at_the_token_limit_is_said_to_be_cut(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """A choice cut mid-way names no option; the trace and the correction say why, so
    that the fallback points at ``max_tokens`` rather than at a model naming nothing."""
    cut = '{"reason": "P3 has been quiet all day and", "choice": "Bo'
    fake_openai.script(*[body({"role": "assistant", "content": cut}, finish="length")] * 3)
    result = await ChatClient(fake_definition).choose(MESSAGES, OPTIONS)
    assert result.error_kind == "invalid_answer" and result.stats.reasks == 2
    assert result.answers == (cut + CUT_NOTE,) * 3
    assert "cut at the token limit" in result.failure
    correction = fake_openai.requests[1]["messages"][-1]["content"]
    assert "cut at the token limit, so answer in fewer words" in correction


async def test_a_speech_cut_at_the_token_limit_is_kept_and_marked(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(body({"role": "assistant", "content": "I think P3 is"}, finish="length"))
    result = await ChatClient(fake_definition).complete(MESSAGES)
    assert result.text == "I think P3 is" and not result.fallback
    assert result.answers == ("I think P3 is" + CUT_NOTE,)
