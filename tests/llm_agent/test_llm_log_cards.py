"""An LLM game's log names the model card that played it, as its results record does.

A log read apart from its record (copied out of a results folder, opened in the web
replay) must still say which model, endpoint kind, sampling and prompts played it:
the header's ``meta.cards`` holds each LLM agent's card, and it survives a save and a
load. The record's ``cards`` is the same mapping. The card's ``definition_hash`` tells
apart two agent files that differ in anything but the endpoint's URL (a persona, the
re-asks, structured output), which model, endpoint kind and sampling do not show.
"""

from __future__ import annotations

from pathlib import Path

from tests.llm.fake_openai import FakeOpenAI
from tests.llm_agent.support import SHORT, play
from tests.llm_agent.test_llm_agent_fake import seats

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.experiments.records import build_record
from mafia_arena.llm import AgentDefinition
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog


async def test_an_llm_games_log_and_record_keep_its_model_card(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    agents = seats(fake_definition)
    result = await play(agents, seed=3)
    card = agents[0].card()
    assert card is not None and card["model"] == fake_definition.model
    expected = {fake_definition.name: dict(card)}
    assert result.log.meta["cards"] == expected
    loaded = GameLog.load(result.log.save(tmp_path / "game.jsonl"))
    assert loaded.meta["cards"] == expected
    record = build_record(
        experiment="cards",
        spec_hash="0",
        game_index=0,
        seed=3,
        variant=load_variant("standard", SHORT),
        agents=agents,
        result=result,
    )
    assert record["cards"] == expected


def test_the_card_tells_agent_files_apart_that_differ_beyond_model_and_sampling(
    fake_definition: AgentDefinition,
) -> None:
    card = LLMAgent(fake_definition).card()
    assert card == LLMAgent(fake_definition).card()  # the same file, the same card
    assert card is not None and len(card["definition_hash"]) == 12
    for change in ({"persona": "Loud."}, {"max_reasks": 0}, {"structured_output": False}):
        other = LLMAgent(fake_definition.model_copy(update=change)).card()
        assert other is not None
        assert {k: v for k, v in other.items() if k != "definition_hash"} == {
            k: v for k, v in card.items() if k != "definition_hash"
        }, change  # nothing else in the card shows the change
        assert other["definition_hash"] != card["definition_hash"], change
    moved = fake_definition.model_copy(update={"base_url": "http://127.0.0.1:1/v1"})
    assert LLMAgent(moved).card() == card  # another port on the same host: the same card
