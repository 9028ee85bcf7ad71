"""Tool calls in replies, against the real HTTP fake: what each one means by the kind of
question, and what the result records when a reply carries both content and a call.

No request offers tools. A free-text question that offers set moves by code takes a
tool call naming exactly one of the codes as that move; a decision takes a reply's tool
call as its answer even beside content; speech takes the content beside a tool call
that names no move. Whatever part of a reply is not used is listed in ``dropped``.
"""

from __future__ import annotations

import json

import pytest
from tests.llm.fake_openai import Action, FakeOpenAI, reply, tool_call

from mafia_arena.llm import AgentDefinition, ChatClient

OPTIONS = ["Alice", "Bob", "Carol"]
VOTE = [{"role": "user", "content": "Vote to eliminate one player."}]
SPEAK = [{"role": "user", "content": "Speak. Or reply #1 (pass) or #2 (accuse P4)."}]
MOVES = ("#1", "#2")
BOB = json.dumps({"choice": "Bob", "reason": "quiet"})


def both(text: str, name: str, arguments: str) -> Action:
    """A reply whose message carries a content and one tool call."""
    return Action(text=text, tool_calls=((name, arguments),))


@pytest.mark.parametrize(
    "arguments",
    ['{"move": "#2"}', '{"code": " #2 ", "reason": "P4 lied"}', '"#2"', "#2"],
    ids=["object", "object with a reason", "json string", "bare code"],
)
async def test_a_tool_call_naming_an_offered_move_is_that_move(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, arguments: str
) -> None:
    fake_openai.script(tool_call("move", arguments))
    said = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert said.text == "#2" and not said.fallback and said.stats.reasks == 0
    assert said.answers == (f"(tool call) move {arguments}",)
    assert said.dropped == ()


@pytest.mark.parametrize(
    "arguments",
    ['{"move": "#3"}', '{"text": "I pick #2"}', '{"a": "#1", "b": "#2"}', '{"move": 2}'],
    ids=["not offered", "inside words", "two codes", "a number"],
)
async def test_a_tool_call_naming_no_single_offered_move_is_re_asked_as_empty(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, arguments: str
) -> None:
    fake_openai.script(tool_call("move", arguments), reply("Hello, table."))
    said = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert said.text == "Hello, table." and said.stats.reasks == 1
    assert said.answers == (f"(tool call) move {arguments}", "Hello, table.")


async def test_speech_never_given_says_the_answers_were_tool_calls(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """A tool call naming no move, each time re-asked, falls back saying the model sent
    tool calls, not speech: not "empty answer", which blames an endpoint that sent
    nothing. Answers that were empty say so as before, and a mix counts the calls."""
    call = tool_call("move", '{"move": "#3"}')
    fake_openai.script(call, call, call)
    said = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert said.fallback and said.error_kind == "empty_answer" and said.text == ""
    assert said.failure == "a tool call, not speech, answered 3 of 3 request(s)"
    assert said.answers == ('(tool call) move {"move": "#3"}',) * 3

    fake_openai.script(reply(""), call, reply(""))
    mixed = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert mixed.failure == "a tool call, not speech, answered 1 of 3 request(s)"

    fake_openai.script(reply(""), reply(""), reply(""))
    empty = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert empty.failure == "empty answer to 3 request(s)"


def test_parse_move_reads_exactly_one_code() -> None:
    from mafia_arena.llm.parsing import parse_move

    assert parse_move('{"move": "#1"}', MOVES) == "#1"
    assert parse_move('{"move": "#1"}', ()) is None  # a turn that offers no set move
    assert parse_move('{"move": "#1", "again": "#1"}', MOVES) == "#1"
    assert parse_move("{" * 100_000, MOVES) is None  # nested too deep: names nothing


@pytest.mark.parametrize("backend", ["openai", "langchain"])
async def test_a_decision_takes_the_tool_call_and_records_the_content_it_dropped(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition, backend: str
) -> None:
    """Content that names another option does not decide: the tool call does, and the
    result keeps both parts and says which one was not used."""
    definition = fake_definition.model_copy(update={"backend": backend})
    fake_openai.script(both("Alice, I think.", "vote", BOB))
    result = await ChatClient(definition).choose(VOTE, OPTIONS)
    assert result.choice == "Bob" and result.reason == "quiet" and not result.fallback
    assert result.answers == (f"Alice, I think.\n(tool call) vote {BOB}",)
    assert result.dropped == ("answer 1 content (a tool call is the decision): Alice, I think.",)


async def test_a_decision_whose_tool_call_names_no_option_is_re_asked(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    zed = json.dumps({"choice": "Zed"})
    fake_openai.script(both("Bob.", "vote", zed), reply(BOB))
    result = await ChatClient(fake_definition).choose(VOTE, OPTIONS)
    assert result.choice == "Bob" and result.stats.reasks == 1
    assert fake_openai.requests[1]["messages"][-2] == {"role": "assistant", "content": zed}
    assert result.dropped == ("answer 1 content (a tool call is the decision): Bob.",)


async def test_speech_takes_the_content_and_records_the_tool_call_it_dropped(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(both("I trust P3.", "say", '{"text": "hi"}'))
    said = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert said.text == "I trust P3." and said.stats.reasks == 0
    assert said.answers == ('I trust P3.\n(tool call) say {"text": "hi"}',)
    assert said.dropped == ('answer 1 tool call (the content is the answer): say {"text": "hi"}',)


async def test_speech_beside_a_tool_call_naming_a_move_is_that_move(
    fake_openai: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    fake_openai.script(both("I pass.", "move", '{"move": "#1"}'))
    said = await ChatClient(fake_definition).complete(SPEAK, moves=MOVES)
    assert said.text == "#1"
    assert said.dropped == ("answer 1 content (the tool call named set move #1): I pass.",)
