"""An LLM player in the forum game: the prompt shows its private conversations, the
newspaper and the testaments it received; it picks a form as a structured decision
and writes the form's content as free text."""

from __future__ import annotations

from tests.dictator.table import C1, C2, C3, C5, Table, c, w
from tests.llm.fake_openai import FakeOpenAI, error, reply
from tests.llm_agent.support import enum_of, last_user

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.choices import Speech
from mafia_arena.llm import AgentDefinition
from mafia_arena.views import SeatTracker, View


def prompt_text(body: dict) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"])


def day_two_view() -> View:
    """P12's view of its forum turn on day 2, with a private message from P13."""
    t = Table().to("day", 1)
    t.act(C3, w("Psst, P12: I trust you.", "pm", C2), w("Beware P1.", "ad", None, "Owl"))
    t.act(C5, w("Trust P12.", "testament", None, f"{C2}"))
    t.act(C1, c("execute", C5)).phase()
    t.phase()  # night 1: P12 is asked again on day 2
    t.phase()
    return SeatTracker(C2).view(t.game)


async def test_an_llm_player_reads_its_channels_and_writes_a_private_message(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = day_two_view()
    request = view.request
    assert request is not None and request.kind == "forum"
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(reply(f'{{"choice": "{label}", "reason": "answer him"}}'), reply("Thanks, P13."))
    agent = LLMAgent(fake_definition)
    agent.reset(C2, 7)
    try:
        decision = await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert decision == Speech("Thanks, P13.", c("pm", C3))
    first = prompt_text(fake.requests[0])
    assert "Psst, P12: I trust you." in first  # its private conversation
    assert "Trust P12." in first  # the private testament it received
    assert "Owl" in first and "Beware P1." in first  # the newspaper
    assert enum_of(fake.requests[0]) is not None  # the form: a structured decision
    assert "only P13 will read it" in last_user(fake.requests[1])  # the content: free text


async def test_a_failed_forum_content_is_no_decision_fallback(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The form was the model's decision; only its text failed. The form is played
    with its standard text, the log records no fallback (``take_fallback`` is None),
    and the agent's own ``stats.fallbacks`` agrees with it: the records count the log."""
    view = day_two_view()
    request = view.request
    assert request is not None and request.kind == "forum"
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(reply(f'{{"choice": "{label}", "reason": "answer him"}}'), error(400, "bad"))
    agent = LLMAgent(fake_definition)
    agent.reset(C2, 7)
    try:
        decision = await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert decision == c("pm", C3)
    assert agent.take_fallback() is None
    assert agent.stats.fallbacks == 0 and agent.stats.decisions == 1
    extra = agent.stats.extra
    assert extra.get("forum_content_fallbacks") == 1
    assert "fallbacks_infrastructure" not in extra and "fallbacks_model" not in extra
    content_trace = agent.traces[-1]
    assert content_trace["fallback"] == "bad_request" and "bad" in content_trace["reason"]
