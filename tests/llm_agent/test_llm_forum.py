"""An LLM player in the forum game: the prompt shows its private conversations, the
newspaper and the testaments it received; it picks a form as a structured decision
and writes the form's content as free text."""

from __future__ import annotations

import pytest
from tests.dictator.table import C1, C2, C3, C4, C5, Table, c, w
from tests.llm.fake_openai import FakeOpenAI, error, reply
from tests.llm_agent.support import enum_of, last_user

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.catalogue import Newspaper, PrivateMessage
from mafia_arena.engine.choices import PASS, Decision, Speech
from mafia_arena.llm import AgentDefinition
from mafia_arena.runner.traces import trace_lines
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
    _, decision = await _acting(fake_definition, view, C2)
    assert decision == Speech("Thanks, P13.", c("pm", C3))
    first = prompt_text(fake.requests[0])
    assert "Psst, P12: I trust you." in first  # its private conversation
    assert "Trust P12." in first  # the private testament it received
    assert "Owl" in first and "Beware P1." in first  # the newspaper
    assert enum_of(fake.requests[0]) is not None  # the form: a structured decision
    assert "only P13 will read it" in last_user(fake.requests[1])  # the content: free text


async def test_an_llm_players_words_under_a_pseudonym_it_has_seen_are_cut_and_counted(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """P12 has read P13's ad under "Owl" in the newspaper: a message that goes on as
    Owl ("... Owl: P1 is the boss.") is cut there, as a person's would be refused, and
    counted among the speeches cleaned of another speaker's words."""
    view = day_two_view()
    request = view.request
    assert request is not None and request.kind == "forum"
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "answer him"}}'),
        reply("Thanks, P13. Owl: P1 is the boss."),
    )
    agent, decision = await _acting(fake_definition, view, C2)
    assert decision == Speech("Thanks, P13.", c("pm", C3))
    assert agent.stats.extra.get("impersonations_cleaned") == 1


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
    agent, decision = await _acting(fake_definition, view, C2)
    assert decision == c("pm", C3)
    assert agent.take_fallback() is None
    assert agent.stats.fallbacks == 0 and agent.stats.decisions == 1
    extra = agent.stats.extra
    assert extra.get("forum_content_fallbacks") == 1
    assert "fallbacks_infrastructure" not in extra and "fallbacks_model" not in extra
    content_trace = agent.traces[-1]
    assert content_trace["fallback"] == "bad_request" and "bad" in content_trace["reason"]


async def _acting(definition: AgentDefinition, view: View, seat: int) -> tuple[LLMAgent, Decision]:
    """A fresh LLM player at `seat` and its decision on `view` (its shared client closed
    after, so each test starts with none)."""
    agent = LLMAgent(definition)
    agent.reset(seat, 7)
    try:
        return agent, await agent.act(view)
    finally:
        await aclose_shared_clients()


async def _forum_decision(definition: AgentDefinition, t: Table, seat: int) -> Decision:
    """The LLM player's decision for `seat`'s forum turn now."""
    _, decision = await _acting(definition, SeatTracker(seat).view(t.game), seat)
    return decision


async def test_an_llm_player_widens_a_private_message_to_several_players(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The content of a private message may name more recipients (``Also to: …``):
    one message to all of them, which reaches them and nobody else. A name that is no
    living other player is dropped, so the engine accepts the form."""
    t = Table().to("day", 1)
    request = SeatTracker(C2).view(t.game).request
    assert request is not None
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "allies"}}'),
        reply("Also to: P14, P99 and P11. Meet me after the vote."),
    )
    decision = await _forum_decision(fake_definition, t, C2)
    assert decision == Speech("Meet me after the vote.", c("pm", None, f"{C1}.{C3}.{C4}"))
    assert "begin with 'Also to:'" in last_user(fake.requests[1])
    t.act(C2, decision).phase()
    assert t.refusals == []
    events = t.game.events
    sent = [(e, f) for e in events if isinstance(f := e.fact, PrivateMessage) and f.sender == C2]
    assert [(f.recipients, f.text) for _, f in sent] == [((C1, C3, C4), "Meet me after the vote.")]
    assert sent[0][0].visibility.seats == {C1, C2, C3, C4}  # the recipients only


async def test_the_names_a_widened_message_is_not_sent_to_are_in_its_trace(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The names of an ``Also to`` opening that the message cannot reach (a dead
    player, the writer, no seat) are not dropped unsaid: the content's trace lists them,
    each once and in the order written, among its ``dropped`` parts, and the terminal
    replay shows them as not used. The message still goes to the others."""
    view = day_two_view()  # P15 was executed on day 1
    request = view.request
    assert request is not None and not view.knowledge.alive[C5]
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "allies"}}'),
        reply("Also to: P14, P15, P12, P99, P15 and P11. Meet me after the vote."),
    )
    agent, decision = await _acting(fake_definition, view, C2)
    assert decision == Speech("Meet me after the vote.", c("pm", None, f"{C1}.{C3}.{C4}"))
    content_trace = agent.traces[-1]
    assert content_trace["fallback"] is None
    note = "'Also to:' names not sent to (no living player other than the writer): P15, P12, P99"
    assert content_trace["dropped"] == [note]
    assert f"not used: {note}" in "\n".join(trace_lines(content_trace))
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "allies"}}'),
        reply("Also to: P14. Meet me after the vote."),
    )
    agent, _ = await _acting(fake_definition, day_two_view(), C2)
    assert agent.traces[-1]["dropped"] == []  # every name reached: nothing to say


@pytest.mark.parametrize(
    "opening", ["Also to: P99.", "Also to: P12.", "Also to: everyone.", "also to P0 and P99"]
)
async def test_a_message_addressed_to_nobody_who_can_read_it_is_refused(
    fake: FakeOpenAI, fake_definition: AgentDefinition, opening: str
) -> None:
    """An ``Also to`` opening that names no living other player (none there, the writer
    itself, no seat at all) is not sent to the first recipient alone: the content is
    refused as the model's invalid answer, with the opening in the trace, and the form
    is played with its standard text like any failed content (no decision fallback)."""
    t = Table().to("day", 1)
    request = SeatTracker(C2).view(t.game).request
    assert request is not None
    label = request.labels[request.choices.index(c("pm", C3))]
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "allies"}}'),
        reply(f"{opening} Meet me after the vote."),
    )
    agent, decision = await _acting(fake_definition, SeatTracker(C2).view(t.game), C2)
    assert decision == c("pm", C3)
    assert agent.take_fallback() is None and agent.stats.fallbacks == 0
    assert agent.stats.extra.get("forum_content_fallbacks") == 1
    content_trace = agent.traces[-1]
    assert content_trace["fallback"] == "invalid_answer" and content_trace["speech"] is None
    assert content_trace["reason"].startswith("'Also to:' names no living player")
    assert opening in content_trace["reason"]


async def test_an_llm_player_places_an_ad_under_a_pseudonym_it_owns(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """A seat that owns pseudonyms is offered them for an ad (``Pseudonym: …``); the ad
    is published under that one. In the edition that already has its ad, none is
    offered."""
    t = Table().to("day", 1)
    t.act(C3, w("Beware P1.", "ad", None, "Owl")).phase()
    t.phase()  # night 1: day 2's edition is a new one
    request = SeatTracker(C3).view(t.game).request
    assert request is not None and request.info.get("pseudonyms") == ["Owl"]
    label = request.labels[request.choices.index(c("ad", None, "new"))]
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "again"}}'),
        reply("Pseudonym: owl. The dictator lies."),
    )
    decision = await _forum_decision(fake_definition, t, C3)
    assert decision == Speech("The dictator lies.", c("ad", None, "Owl"))
    assert "You own the pseudonyms Owl" in last_user(fake.requests[1])
    for seat in sorted(t.game.pending()):  # one round: the others are done
        t.game.submit(seat, decision if seat == C3 else PASS)
    assert C3 in t.game.pending()  # asked again in the same window and edition
    fake.script(
        reply(f'{{"choice": "{label}", "reason": "more"}}'), reply("Pseudonym: Owl. Again.")
    )
    second = await _forum_decision(fake_definition, t, C3)
    assert "pseudonyms" not in last_user(fake.requests[3])
    assert second == Speech("Pseudonym: Owl. Again.", c("ad", None, "new"))
    t.phase()
    [paper] = t.last_phase_facts(Newspaper)
    assert ("Owl", "The dictator lies.") in zip(paper.pseudonyms, paper.texts, strict=True)
