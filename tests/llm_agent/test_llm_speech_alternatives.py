"""A speaking turn's set moves for the LLM player: the pass or silence and the speech
acts' set sentences a turn offers besides free text are listed in the question under
codes, and a reply that is exactly one of the codes is that choice; anything else is a
speech as before (`agents.llm_alternatives`)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.llm.fake_openai import Action, FakeOpenAI, reply, tool_call
from tests.llm_agent.support import (
    assert_replays,
    enum_of,
    first_view,
    last_user,
    play,
    set_answer,
)
from tests.palermo.table import P, Table

from mafia_arena.agents import make_agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_alternatives import (
    Alternative,
    picked_alternative,
    speech_alternatives,
)
from mafia_arena.agents.llm_card import model_card
from mafia_arena.agents.llm_prompts import load_templates
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.catalogue import SpeechMade
from mafia_arena.engine.choices import PASS, Choice, Decision, Request, Speech
from mafia_arena.llm import AgentDefinition, load_agent_definition
from mafia_arena.llm.local_server import LocalServer
from mafia_arena.runner.traces import trace_lines
from mafia_arena.views.view import View, view_of

AGENT = Path(__file__).resolve().parents[2] / "agents" / "local-smollm2.toml"
SET_MOVES = "Instead of your own words you may make one of these set moves"


async def _answer(definition: AgentDefinition, view: View, seed: int = 7) -> Decision:
    """The decision of a fresh LLM player at the view's seat."""
    return (await _acting(definition, view, seed))[1]


async def _acting(
    definition: AgentDefinition, view: View, seed: int = 7
) -> tuple[LLMAgent, Decision]:
    """A fresh LLM player at the view's seat and its decision (its traces kept)."""
    agent = LLMAgent(definition)
    agent.reset(view.seat, seed)
    agent.set_variant(view.rules)
    try:
        return agent, await agent.act(view)
    finally:
        await aclose_shared_clients()


def _codes(question: str) -> dict[str, str]:
    """``{text: code}`` of the alternatives a question lists (a label with the
    "(your teammate)" mark that options of a known teammate carry left out)."""
    lines = re.finditer(r"^(?P<code>#\d+): (?P<text>.+?)(?: \(your teammate\))?$", question, re.M)
    return {m["text"]: m["code"] for m in lines}


def _palermo_post() -> Table:
    """A Palermo table where P1 chose to post and now has its speaking turn, which
    offers one alternative to free text: silence ("say nothing")."""
    t = Table()
    t.until(1, "morning")
    t.step({1: "post"})
    request = t.game.request(P(1))
    assert request is not None and request.kind == "speak" and request.free_text
    assert request.labels == ("say nothing",)
    return t


async def test_a_reply_naming_silence_is_a_silence_on_a_turn_that_offers_it(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = _palermo_post()
    fake.script(reply(" #1\n"))
    decision = await _answer(fake_definition, view_of(t.game, P(1)))
    question = last_user(fake.requests[0])
    assert SET_MOVES in question and _codes(question) == {"say nothing": "#1"}
    assert decision is PASS
    said = len(t.facts(SpeechMade))
    t.game.submit(P(1), decision)
    assert len(t.facts(SpeechMade)) == said  # silence: no post at all


async def test_a_set_sentence_code_gives_that_sentence(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = first_view("speak")
    request = view.request
    assert request is not None
    set_answer(fake, lambda body: reply(_codes(last_user(body))["I suspect P4 is mafia."]))
    decision = await _answer(fake_definition, view)
    assert decision == Choice("accuse", 3) and request.offers(decision)
    codes = _codes(last_user(fake.requests[0]))
    assert list(codes) == list(request.labels)  # every offered choice, in its order
    assert list(codes.values()) == [f"#{i}" for i in range(1, len(request.labels) + 1)]


async def test_a_code_the_turn_does_not_offer_is_a_speech(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = _palermo_post()
    fake.script(reply("#2"), reply("#1 and I mean it."))
    view = view_of(t.game, P(1))
    assert await _answer(fake_definition, view) == Speech("#2")
    assert await _answer(fake_definition, view) == Speech("#1 and I mean it.")


async def test_a_turn_that_offers_no_alternatives_shows_none(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = first_view("speak")
    assert view.request is not None
    bare = Request(view.seat, "speak", view.request.prompt, (), (), free_text=True)
    fake.script(reply("#1"))
    decision = await _answer(fake_definition, dataclasses.replace(view, request=bare))
    question = last_user(fake.requests[0])
    assert SET_MOVES not in question and "#1" not in question
    assert decision == Speech("#1")  # nothing is offered, so a code is just words


async def test_shuffled_alternatives_map_back_by_their_shown_code(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = first_view("speak")
    request = view.request
    assert request is not None
    shuffled = fake_definition.model_copy(update={"shuffle_options": True})
    set_answer(fake, lambda body: reply(_codes(last_user(body))["I claim to be the doctor."]))
    decision = await _answer(shuffled, view)
    assert decision == Choice("claim_role", None, "doctor")
    codes = _codes(last_user(fake.requests[0]))
    assert sorted(codes) == sorted(request.labels) and list(codes) != list(request.labels)


async def test_codes_played_in_a_game_are_logged_as_choices_and_replay(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    """LLM seats that answer every discussion turn with the first code (the pass, "I
    have nothing to add.") play it as the choice: no fallback, the set sentence in
    the transcript, a trace that names the choice, and a log that replays."""

    def first_code(body: dict[str, Any]) -> Action | None:
        return reply("#1") if _codes(last_user(body)) else None

    set_answer(fake, first_code)
    agents = [LLMAgent(fake_definition) if s < 3 else make_agent("heuristic") for s in range(7)]
    result = await play(agents, seed=3)
    log = result.log
    spoken = [d for d in log.decisions if d["seat"] < 3 and d["kind"] == "speak"]
    assert spoken and all(d["choice"] == "pass" and not d.get("fallback") for d in spoken)
    mine = [e.fact for e in log.events if isinstance(e.fact, SpeechMade) and e.fact.seat < 3]
    assert mine and all(f.text == "I have nothing to add." for f in mine)
    traces = [t for a in agents[:3] for t in a.traces if t["kind"] == "speak"]
    assert traces and all(t["choice"] == "I have nothing to add." for t in traces)
    assert all(t["speech"] is None and t["fallback"] is None for t in traces)
    assert sum(a.stats.fallbacks for a in agents[:3]) == 0
    assert_replays(log, tmp_path)


async def test_a_tool_call_naming_a_code_is_that_set_move(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """No tool is offered; a server may still turn the model's answer into a tool call.
    Arguments naming an offered code are that move, at the first answer; the trace keeps
    the call as the answer."""
    t = _palermo_post()
    fake.script(tool_call("say_nothing", '{"move": "#1"}'))
    agent, decision = await _acting(fake_definition, view_of(t.game, P(1)))
    assert decision is PASS and agent.take_fallback() is None
    [trace] = agent.traces
    assert trace["choice"] == "say nothing" and trace["fallback"] is None
    assert trace["answers"] == ['(tool call) say_nothing {"move": "#1"}']
    assert trace["requests"] == 1 and trace["dropped"] == []


async def test_speech_beside_a_tool_call_is_spoken_and_the_call_traced_as_not_used(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = _palermo_post()
    fake.script(Action(text="P4 is lying.", tool_calls=(("post", '{"to": "all"}'),)))
    agent, decision = await _acting(fake_definition, view_of(t.game, P(1)))
    assert decision == Speech("P4 is lying.")
    [trace] = agent.traces
    assert trace["speech"] == "P4 is lying."
    assert trace["answers"] == ['P4 is lying.\n(tool call) post {"to": "all"}']
    dropped = 'answer 1 tool call (the content is the answer): post {"to": "all"}'
    assert trace["dropped"] == [dropped]
    assert f"not used: {dropped}" in "\n".join(trace_lines(trace))


async def test_a_vote_beside_other_words_is_the_tool_calls_and_the_words_are_traced(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """On a decision turn the tool call is the decision: content naming another option
    does not change it, and the trace says the content was not used."""
    view = first_view("vote")
    request = view.request
    assert request is not None and len(request.choices) > 2

    def vote(body: dict[str, Any]) -> Action | None:
        options = enum_of(body)
        assert options is not None
        arguments = json.dumps({"choice": options[1], "reason": "loud"})
        return Action(text=f"{options[0]}.", tool_calls=(("vote", arguments),))

    set_answer(fake, vote)
    agent, decision = await _acting(fake_definition, view)
    assert decision == request.choices[1]
    [trace] = agent.traces
    first = trace["options"][0]
    assert trace["choice"] == trace["options"][1] and trace["reason"] == "loud"
    assert trace["dropped"] == [f"answer 1 content (a tool call is the decision): {first}."]


def test_only_a_reply_that_is_exactly_a_code_picks_it() -> None:
    request = Request(0, "speak", "x", (PASS, Choice("accuse", 2)), ("a", "b"), free_text=True)
    alternatives = speech_alternatives(request, ["a", "b"], [1, 0])
    assert alternatives == [
        Alternative("#1", "b", Choice("accuse", 2)),
        Alternative("#2", "a", PASS),
    ]
    assert picked_alternative("\n #2 \n", alternatives) == alternatives[1]
    for words in ("#2.", "2", "# 2", "#02", '"#2"', "#2 a", "#3", "", "b", "I pick #1"):
        assert picked_alternative(words, alternatives) is None, words


@pytest.mark.llm
@pytest.mark.timeout(600)
async def test_the_bundled_model_answers_a_turn_with_set_moves_legally(
    local_server: LocalServer,
) -> None:
    """SmolLM2 on a real server, asked a discussion turn that lists its set moves:
    whatever it writes is a speech or one of the offered choices, and the trace lists
    the coded moves it was shown."""
    definition = load_agent_definition(AGENT).model_copy(update={"max_tokens": 48})
    view = first_view("speak")
    request = view.request
    assert request is not None
    agent = LLMAgent(definition)
    agent.reset(view.seat, 7)
    try:
        decision = await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert agent.take_fallback() is None
    trace = agent.traces[-1]
    assert len(trace["options"]) == len(request.choices)
    if isinstance(decision, Speech):
        assert decision.text and trace["speech"] == decision.text
    else:
        assert request.offers(decision) and trace["choice"] in trace["options"]


def test_the_set_moves_wording_is_a_template_in_the_agents_digest(tmp_path: Path) -> None:
    """`alternatives.txt` is loaded, overridable by name and hashed like every template,
    so a new wording gives the agent a new prompt hash in its model card."""
    prompts = Path(__file__).resolve().parents[2] / "agents" / "prompts"
    shipped = load_templates(prompts)
    assert "$options" in (prompts / "alternatives.txt").read_text(encoding="utf-8")
    assert "alternatives" in shipped.versions
    custom = tmp_path / "prompts"
    custom.mkdir()
    (custom / "alternatives.txt").write_text("Or reply a code:\n$options\n", encoding="utf-8")
    changed = load_templates(prompts, custom)
    assert changed.render("alternatives", {"options": "#1: x"}) == "Or reply a code:\n#1: x"
    definition = load_agent_definition(AGENT)
    assert (
        model_card(definition, shipped.versions)["prompt_hash"]
        != model_card(definition, changed.versions)["prompt_hash"]
    )
