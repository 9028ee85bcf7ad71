"""The `card` hook of the `Agent` protocol, as the results record reads it.

Scripted players have no card (the base class's None), an agent that declares one has
it copied into the record under its name, and a seat played by side (`BySideAgent`)
carries the card of the side's agent that played it, so a ``town=heuristic,mafia=<LLM>``
table keeps the model card of its LLM side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.agents.support import by_side
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.base import Agent
from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.experiments.records import build_record, model_card
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync

CARD = {"model": "carded-model", "endpoint": "test", "prompt": "v1"}


class Carded(RandomAgent):
    """A random player that declares a model card."""

    name = "carded"

    def card(self) -> Mapping[str, Any] | None:
        return CARD


def _record(agents: list[Any]) -> dict[str, Any]:
    variant = load_variant("simple")
    result = play_match_sync(variant, agents, seed=4, host_key=FIXED_HOST_KEY)
    return build_record(
        experiment="cards",
        spec_hash="0",
        game_index=0,
        seed=4,
        variant=variant,
        agents=agents,
        result=result,
    )


def test_scripted_players_have_no_card_and_a_carded_one_is_recorded() -> None:
    assert model_card(RandomAgent()) is None
    assert model_card(HeuristicAgent()) is None
    agent: Agent = Carded()
    assert model_card(agent) == CARD
    record = _record([Carded(), *(RandomAgent() for _ in range(4))])
    assert record["cards"] == {"carded": CARD}
    assert "cards" not in _record([RandomAgent() for _ in range(5)])


def test_a_seat_played_by_side_carries_its_sides_card() -> None:
    agents = by_side("simple", RandomAgent, Carded, 5)
    assert all(model_card(a) is None for a in agents)  # no side chosen before the deal
    record = _record(list(agents))
    mafia = [s for s in record["seats"] if s["side"] != "town"]
    town = [s for s in record["seats"] if s["side"] == "town"]
    assert mafia and town
    assert [model_card(agents[s["seat"]]) for s in mafia] == [CARD] * len(mafia)
    assert all(model_card(agents[s["seat"]]) is None for s in town)
    assert record["cards"] == {agents[0].name: CARD}
