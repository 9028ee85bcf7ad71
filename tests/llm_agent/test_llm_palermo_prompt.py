"""The LLM player's Palermo turn: its state, its own card and the card's timing windows,
in words generated from the variant data, and no other seat's card."""

from __future__ import annotations

import json
from typing import Any

from tests.llm.fake_openai import Action, FakeOpenAI, reply
from tests.llm_agent.support import enum_of, set_answer
from tests.palermo.table import P, Table

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.engine import Choice, Game
from mafia_arena.llm import AgentDefinition
from mafia_arena.rules import load_variant
from mafia_arena.views import view_of

HANDS = {15: "pythia", 14: "resurrection", 16: "grave_robbing"}


def _seated(definition: AgentDefinition, number: int, t: Table) -> LLMAgent:
    """An LLM player at P<number> of the table, its prompts kept whole in its traces."""
    agent = LLMAgent(definition.model_copy(update={"trace_prompts": "full"}))
    agent.reset(P(number), 5)
    agent.set_variant(t.game.variant)
    return agent


async def _question(agent: LLMAgent, t: Table, number: int) -> tuple[str, str]:
    view = view_of(t.game, P(number))
    assert view.request is not None and view.request.kind == "turn"
    await agent.act(view)
    trace = agent.traces[-1]
    assert trace["template"] == "decide_turn"
    return trace["messages"][-1]["content"], trace["messages"][0]["content"]


async def test_the_turn_prompt_explains_the_seats_state_card_and_windows(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = Table(hands=HANDS, keep={14, 15, 16})
    agent = _seated(fake_definition, 15, t)
    t.until(2, "morning")
    user, system = await _question(agent, t, 15)
    assert "Your state: Active; you may post publicly, vote, be voted for, play cards" in user
    assert "Now: morning. Open to you: cast or change your ballot, post." in user
    assert (
        "Your card: Pythia's Oracle (used once, then gone; playable in: night before "
        "midnight, night after midnight, morning, afternoon); its window is open now." in user
    )
    assert "Resurrection" not in user and "Grave Robbing" not in user  # others' cards
    assert "Resurrection" in system  # the rules list every card: the deal is public
    t.until(3, "dead_time")
    user, _ = await _question(agent, t, 15)
    assert "Now: dead time." in user and "its window is not open now" in user


async def test_a_seat_without_a_card_is_told_so_and_sees_no_card(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = Table(hands=HANDS, keep={13, 14, 15, 16})
    agent = _seated(fake_definition, 13, t)
    t.until(2, "afternoon")
    user, _ = await _question(agent, t, 13)
    assert "You hold no intrigue card." in user
    assert not any(t.game.variant.palermo.cards[c].title in user for c in HANDS.values())  # type: ignore[union-attr]


async def test_the_change_window_prompt_says_which_window_is_open(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    t = Table(hands={15: "cancel_imprisonment"}, keep={14, 15})
    agent = _seated(fake_definition, 15, t)
    t.until(1, "change_window")
    view = view_of(t.game, P(15))
    assert view.request is not None and view.request.kind == "change_vote"
    await agent.act(view)
    trace = agent.traces[-1]
    user = trace["messages"][-1]["content"]
    assert trace["template"] == "decide_change_vote"
    assert "Now: the vote block (change window)." in user
    assert "Your card: Cancel Imprisonment" in user and "its window is open now" in user


async def test_the_transcript_names_the_card_and_an_answer_by_name_plays_it(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The model reads its own card by name with the id beside it, and its role by name
    (in the transcript, the system message and the question alike); an answer that names
    the card's option is parsed to that card (options are the request's labels,
    untouched by the transcript's names)."""
    t = Table(hands={15: "vote_exemption"}, keep={14, 15})
    agent = _seated(fake_definition, 15, t)
    t.until(2, "morning")

    def play_the_card(body: dict[str, Any]) -> Action | None:
        options = enum_of(body) or []
        named = [o for o in options if "Vote Exemption" in o]
        return reply(json.dumps({"reason": "safe", "choice": named[0]})) if named else None

    set_answer(fake, play_the_card)
    view = view_of(t.game, P(15))
    decision = await agent.act(view)
    sent = "\n".join(m["content"] for m in agent.traces[-1]["messages"])
    assert "Your intrigue card: Vote Exemption (vote_exemption)." in sent
    assert "your role is Simple Citizen (citizen; town)." in sent
    system, user = agent.traces[-1]["messages"][0]["content"], agent.traces[-1]["messages"][-1]
    assert "Your secret role: Simple Citizen (team town)." in system  # as the transcript
    assert "You are P15 (Simple Citizen)." in user["content"]
    assert isinstance(decision, Choice) and decision.key == "vote_exemption"
    assert agent.traces[-1]["fallback"] is None


async def test_a_known_seat_of_the_other_side_is_never_called_a_teammate(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """The Informant (town) is told who Known Mafioso A is: its prompt names him as a
    seat it knows, not as a teammate, and no option marks him "(your teammate)", while
    the mafia's own teammates are still named as such."""
    game = Game(load_variant("palermo"), 12, 5)
    role = {s.role: s.seat for s in game.state.seats}
    informant, known = role["informant"], role["known_a"]
    while known not in _targets(game, informant):
        assert not game.over
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, request.choices[0])
    traces = {}
    for seat in (informant, known):
        agent = LLMAgent(fake_definition.model_copy(update={"trace_prompts": "full"}))
        agent.reset(seat, 5)
        agent.set_variant(game.variant)
        await agent.act(view_of(game, seat))
        traces[seat] = agent.traces[-1]
    label = f"P{known + 1}"
    system = traces[informant]["messages"][0]["content"]
    assert "Your teammates" not in system
    assert f"You know these roles (not your team): {label} (Known Mafioso A)." in system
    assert f"vote {label}" in traces[informant]["options"]
    assert not any("teammate" in option for option in traces[informant]["options"])
    assert "Your teammates: " in traces[known]["messages"][0]["content"]
    assert any(o.endswith("(your teammate)") for o in traces[known]["options"])


def _targets(game: Game, seat: int) -> set[int | None]:
    """The seats the pending request of ``seat`` may target (none when it has none)."""
    request = game.pending().get(seat)
    return {c.target for c in request.choices} if request is not None else set()
