"""Reasoning models, replies without usage, deep JSON and the endpoint circuit breaker,
against the scripted HTTP endpoint (tests/llm/fake_openai.py) and as pure functions."""

from __future__ import annotations

import json

import pytest
from tests.llm.fake_openai import (
    FakeOpenAI,
    drop,
    garbage_body,
    no_usage,
    reply,
    thinking,
)

from mafia_arena.llm import AgentDefinition, ChatClient
from mafia_arena.llm.accounting import attribution, estimate_tokens
from mafia_arena.llm.breaker import CircuitBreaker
from mafia_arena.llm.parsing import parse_choice
from mafia_arena.llm.reasoning import split_reasoning

OPTIONS = ["Alice", "Bob", "Carol"]
MESSAGES = [
    {"role": "system", "content": "You are a villager."},
    {"role": "user", "content": "Vote to eliminate one player."},
]


# ---------------------------------------------------------------------- pure functions


@pytest.mark.parametrize(
    ("text", "reasoning", "answer"),
    [
        ("plain speech", "", "plain speech"),
        ("<think>I am the mafioso.</think> I trust P2.", "I am the mafioso.", "I trust P2."),
        ("<THINKING>a</THINKING>b<think>c</think>d", "a\n\nc", "b d"),
        ("<think>cut short by the token limit", "cut short by the token limit", ""),
        ("hidden plan</think>I suspect P4.", "hidden plan", "I suspect P4."),
    ],
)
def test_reasoning_is_split_from_the_answer(text: str, reasoning: str, answer: str) -> None:
    assert split_reasoning(text) == (reasoning, answer)


def test_begin_and_end_of_thought_marks_are_split_from_the_answer() -> None:
    text = "<|begin_of_thought|>P3 is my ally.<|end_of_thought|>\n\nI suspect P5."
    assert split_reasoning(text) == ("P3 is my ally.", "I suspect P5.")
    cut = "I vote P2.<|begin_of_thought|>as the mafioso I"
    assert split_reasoning(cut) == ("as the mafioso I", "I vote P2.")


def test_kimi_think_marks_are_split_from_the_answer() -> None:
    text = "◁think▷I am the mafioso.◁/think▷I trust P2."
    assert split_reasoning(text) == ("I am the mafioso.", "I trust P2.")
    assert split_reasoning("plan◁/think▷P4 is lying.") == ("plan", "P4 is lying.")


@pytest.mark.parametrize(
    ("text", "reasoning", "answer"),
    [
        ("[THINK]I am the mafioso.[/THINK]I trust P2.", "I am the mafioso.", "I trust P2."),
        ("[THINK]as the mafioso I", "as the mafioso I", ""),
        (
            "<seed:think>I am the mafioso.</seed:think>I trust P2.",
            "I am the mafioso.",
            "I trust P2.",
        ),
        # a prefixed tag closes only with its own prefix
        ("<seed:think>plan</think>I trust P2.", "plan</think>I trust P2.", ""),
        ("I vote [P3], not [P4].", "", "I vote [P3], not [P4]."),
        # Magistral's marks are capitals: "[think]" in a speech is the speaker's word
        ("I [think] P3 is lying.", "", "I [think] P3 is lying."),
        ("I [Think] P3 lies; [/think] so P4.", "", "I [Think] P3 lies; [/think] so P4."),
    ],
)
def test_magistral_and_seed_think_marks_are_split_from_the_answer(
    text: str, reasoning: str, answer: str
) -> None:
    assert split_reasoning(text) == (reasoning, answer)


@pytest.mark.parametrize(
    ("text", "reasoning", "answer"),
    [
        (
            "<|channel|>analysis<|message|>I am the mafioso.<|end|>"
            "<|start|>assistant<|channel|>final<|message|>I trust P2.<|return|>",
            "I am the mafioso.",
            "I trust P2.",
        ),
        (
            "<|start|>assistant<|channel|>analysis<|message|>plan<|end|>"
            "<|start|>assistant<|channel|>commentary to=functions.vote <|constrain|>json"
            '<|message|>{"seat": 2}<|call|>'
            "<|start|>assistant<|channel|>final<|message|>I trust P2.",
            'plan\n\n{"seat": 2}',
            "I trust P2.",
        ),
        # cut short in its analysis: no answer, nothing of it published
        ("<|channel|>analysis<|message|>as the mafioso I", "as the mafioso I", ""),
    ],
)
def test_harmony_channels_are_split_into_reasoning_and_answer(
    text: str, reasoning: str, answer: str
) -> None:
    """gpt-oss from a server that does not parse its format sends the channels as text;
    the analysis channel is its private deliberation, which names its role."""
    assert split_reasoning(text) == (reasoning, answer)


def test_a_thinking_tag_with_attributes_is_split_without_its_tag_text() -> None:
    text = "<think type=\"x\" budget='2'>I am the mafioso.</think>I trust P2."
    reasoning, answer = split_reasoning(text)
    assert (reasoning, answer) == ("I am the mafioso.", "I trust P2.")
    assert "type" not in reasoning and "<" not in answer
    # a word that only begins like a tag is no tag
    assert split_reasoning("<thinker>hi</thinker>") == ("", "<thinker>hi</thinker>")


def test_a_block_closes_only_with_its_own_format() -> None:
    text = "<think>plan ◁/think▷ still plan</think>Vote P3."
    assert split_reasoning(text) == ("plan ◁/think▷ still plan", "Vote P3.")


def test_fallback_kinds_are_attributed() -> None:
    for kind in ("timeout", "connection", "rate_limit", "server_error", "circuit_open"):
        assert attribution(kind) == "infrastructure"
        assert attribution(f"llm:{kind}") == "infrastructure"
    for kind in ("invalid_answer", "empty_answer", "llm:invalid_answer", "illegal"):
        assert attribution(kind) == "model"


def test_deeply_nested_json_is_parsed_without_a_crash() -> None:
    deep = "[" * 5000 + "]" * 5000
    # too deep for the decoder: the choice is still read from the text around it
    assert parse_choice('{"reason": ' + deep + ', "choice": "Bob"}', OPTIONS).index == 1
    parsed = parse_choice('{"choice": ' + deep + "}", OPTIONS)
    assert parsed.index is None and parsed.problem
    nested = json.dumps({"reason": {"why": ["quiet"]}, "choice": "Bob"})
    assert parse_choice(nested, OPTIONS).index == 1


def test_breaker_opens_after_consecutive_failures_and_recovers() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failures=3, cooldown_s=10.0, clock=lambda: now[0])
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()  # a success resets the count
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.allow()
    breaker.record_failure()
    assert not breaker.allow() and breaker.times_opened == 1
    now[0] = 10.0  # cool-down over: half-open
    assert breaker.allow()
    breaker.record_failure()  # the probe failed: open again
    assert not breaker.allow() and breaker.times_opened == 2
    now[0] = 20.0
    breaker.record_success()
    assert breaker.allow() and breaker.consecutive == 0


# ---------------------------------------------------------------------- request rules


@pytest.mark.parametrize("model", ["o3-mini", "o1", "gpt-5", "gpt-5-mini", "openai/o4-mini"])
async def test_reasoning_models_get_their_parameter_rules(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, model: str
) -> None:
    definition = fake_definition.model_copy(
        update={"model": model, "reasoning_effort": "low", "extra_body": {"service_tier": "flex"}}
    )
    fake_openai.script(reply('{"reason": "r", "choice": "Bob"}'))
    async with ChatClient(definition) as client:
        result = await client.choose(MESSAGES, OPTIONS)
    assert result.choice == "Bob"
    body = fake_openai.requests[0]
    assert "temperature" not in body and "top_p" not in body and "max_tokens" not in body
    assert body["max_completion_tokens"] == 8 * definition.max_tokens
    assert body["reasoning_effort"] == "low" and body["service_tier"] == "flex"


async def test_other_models_keep_sampling_and_may_use_max_completion_tokens(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(reply("hi"), reply("hi"))
    async with ChatClient(fake_definition) as client:
        await client.complete(MESSAGES)
    capped = fake_definition.model_copy(update={"max_completion_tokens": 99})
    async with ChatClient(capped) as client:
        await client.complete(MESSAGES)
    plain, modern = fake_openai.requests
    assert plain["temperature"] == fake_definition.temperature
    assert plain["max_tokens"] == fake_definition.max_tokens
    assert "max_completion_tokens" not in plain
    assert modern["max_completion_tokens"] == 99 and "max_tokens" not in modern


def test_agent_files_accept_the_reasoning_keys(tmp_path) -> None:
    from mafia_arena.llm import load_agent_definition

    path = tmp_path / "o3.toml"
    path.write_text(
        'model = "o3"\nbase_url = "https://api.openai.com/v1"\nreasoning_effort = "high"\n'
        "max_completion_tokens = 4000\nmax_prompt_chars = 60000\n"
        '[extra_body]\nverbosity = "low"\n',
        encoding="utf-8",
    )
    definition = load_agent_definition(path)
    assert definition.is_reasoning_model and hash(definition) == hash(definition.model_copy())
    assert definition.request_parameters() == {
        "max_completion_tokens": 4000,
        "reasoning_effort": "high",
    }
    assert definition.extra_body == {"verbosity": "low"}


# ---------------------------------------------------------------------- replies


async def test_think_blocks_and_reasoning_content_are_kept_apart(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(
        reply("<think>I am the mafioso, vote Bob.</think>I think P3 is lying."),
        thinking("Bob looks guilty.", '{"reason": "quiet", "choice": "Bob"}'),
        reply("<think>still thinking when the token limit hit"),
        reply("Fine, P2."),
    )
    async with ChatClient(fake_definition) as client:
        said = await client.complete(MESSAGES)
        chosen = await client.choose(MESSAGES, OPTIONS)
        retried = await client.complete(MESSAGES)
    assert said.text == "I think P3 is lying." and said.reasoning == "I am the mafioso, vote Bob."
    assert "mafioso" not in said.text and said.answers[0].startswith("<think>")
    assert chosen.choice == "Bob" and chosen.reasoning == "Bob looks guilty."
    # all thinking, no answer: re-asked like an empty reply, never published
    assert retried.text == "Fine, P2." and retried.stats.reasks == 1
    assert retried.reasoning == "still thinking when the token limit hit"


async def test_a_reply_without_usage_has_its_tokens_estimated(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(no_usage("I suspect P4."))
    async with ChatClient(fake_definition) as client:
        result = await client.complete(MESSAGES)
    sent = sum(len(m["content"]) for m in MESSAGES)
    assert result.text == "I suspect P4." and result.stats.usage_estimated == 1
    assert result.stats.prompt_tokens == estimate_tokens(sent) > 0
    assert result.stats.completion_tokens == estimate_tokens(len("I suspect P4."))
    assert result.stats.cost > 0 and client.usage.usage_estimated == 1


async def test_a_body_that_is_not_json_is_an_infrastructure_fallback(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(garbage_body(), garbage_body(), garbage_body())
    async with ChatClient(fake_definition) as client:
        result = await client.choose(MESSAGES, OPTIONS)
    assert result.fallback and result.stats.attribution == "infrastructure"


# ---------------------------------------------------------------------- the breaker


async def test_an_open_breaker_refuses_requests_at_once(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    definition = fake_definition.model_copy(
        update={"breaker_failures": 2, "breaker_cooldown_s": 3600.0, "max_retries": 1}
    )
    fake_openai.script(drop(), drop(), reply("never sent"))
    async with ChatClient(definition) as client:
        first = await client.complete(MESSAGES)
        second = await client.choose(MESSAGES, OPTIONS)
    assert first.error_kind == "connection" and first.stats.requests == 2
    assert second.error_kind == "circuit_open" and second.stats.requests == 0
    assert len(fake_openai.requests) == 2  # the breaker sent nothing more
    assert second.stats.attribution == "infrastructure"
